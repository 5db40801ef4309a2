package storage

import (
	"github.com/padd/padd/storage/internal/records"
)

// SyncCursors reads a linked workspace's cursors (zero before the first
// pull).
func (s *Store) SyncCursors(ws string) (SyncCursors, error) {
	var out SyncCursors
	err := s.base.Read(ws, func(r *records.Rtx) error {
		_, err := records.SyncRecord(r.WS, records.KCursors, &out)
		return err
	})
	return out, err
}

// SyncInFlight reads the in-flight record; nil when no write is in
// flight.
func (s *Store) SyncInFlight(ws string) (*SyncInFlight, error) {
	var out *SyncInFlight
	err := s.base.Read(ws, func(r *records.Rtx) error {
		var f SyncInFlight
		ok, err := records.SyncRecord(r.WS, records.KInFlight, &f)
		if ok {
			out = &f
		}
		return err
	})
	return out, err
}

// SetSyncInFlight commits the in-flight record: the engine calls it
// before it sends the write, and sends only once it returns.
func (s *Store) SetSyncInFlight(ws string, f SyncInFlight) error {
	return s.syncUpdate(ws, func(b *records.Wsb) error { return records.SetInFlight(b, f) })
}

// syncUpdate runs fn on a live workspace's buckets outside its seq.
func (s *Store) syncUpdate(ws string, fn func(b *records.Wsb) error) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return fn(records.OpenWS(tx, rec.ID))
	})
}
