package storage

import (
	"sync/atomic"

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

// exactMap is what of bbolt's mapping has been registered with
// mapped.MapExactly (the committer's).
type exactMap struct {
	addr, n uintptr
	off     bool        // the system refused: reads map with fault-around
	on      atomic.Bool // for MappedExactly, read by other goroutines
}

// mapExactly makes reads of the database map only the page they read
// (mapped.MapExactly), and keeps it so as bbolt grows and remaps the
// file. bbolt remaps only when a commit needs pages past its mapping, so
// a mapping that has not moved and a file that has not grown need
// nothing; a checkpoint that failed may have remapped and rolled back
// the growth, and forgets what was registered. It runs in a read
// transaction for the same reason as ReleaseMapped.
func (s *Store) mapExactly() {
	if s.exact.off || !mapped.Supported {
		return
	}
	_ = s.db.View(func(tx *bolt.Tx) error {
		addr, n := s.db.Info().Data, uintptr(tx.Size())
		if addr == s.exact.addr && n == s.exact.n {
			return nil
		}
		if err := mapped.MapExactly(addr, n); err != nil {
			s.exact.off = true
			s.exact.on.Store(false)
			s.log.Info("reads of the database map the pages around each page they read (the kernel's fault-around), so padd's resident set grows faster and the RSS target releases it more often; nothing else changes",
				"reason", err)
			return nil
		}
		s.exact.addr, s.exact.n = addr, n
		s.exact.on.Store(true)
		return nil
	})
}

// MappedExactly says whether reads of the database map only the page they
// read (see mapExactly).
func (s *Store) MappedExactly() bool { return s.exact.on.Load() }
