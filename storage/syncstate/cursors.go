package syncstate

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// SyncCursors reads a linked workspace's cursors (zero before the first
// pull).
func (s *State) SyncCursors(ws string) (storage.SyncCursors, error) {
	var out storage.SyncCursors
	err := s.base.Read(ws, func(r *records.Rtx) error {
		_, err := records.SyncRecord(r.WS, records.KCursors, &out)
		return err
	})
	return out, err
}

// SyncInFlight reads the in-flight record; nil when no write is in
// flight.
func (s *State) SyncInFlight(ws string) (*storage.SyncInFlight, error) {
	var out *storage.SyncInFlight
	err := s.base.Read(ws, func(r *records.Rtx) error {
		var f storage.SyncInFlight
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
func (s *State) SetSyncInFlight(ws string, f storage.SyncInFlight) error {
	return s.syncUpdate(ws, func(b *records.Wsb) error { return records.SetInFlight(b, f) })
}

// syncUpdate runs fn on a live workspace's buckets outside its seq.
func (s *State) syncUpdate(ws string, fn func(b *records.Wsb) error) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return fn(records.OpenWS(tx, rec.ID))
	})
}
