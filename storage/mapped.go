package storage

import (
	bolt "go.etcd.io/bbolt"

	"github.com/padd/padd/internal/mapped"
)

// ReleaseMapped drops the database file's pages from padd's page tables
// (internal/mapped). It runs in a read transaction, which bbolt's remap
// waits for, so the mapping stays where Info says it is meanwhile; the
// pages the transaction can see are the file up to its size.
func (s *Store) ReleaseMapped() error {
	if !mapped.Supported {
		return nil
	}
	return s.db.View(func(tx *bolt.Tx) error {
		return mapped.Release(s.db.Info().Data, uintptr(tx.Size()))
	})
}
