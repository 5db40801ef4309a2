package syncstate

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// SyncConflicts lists a workspace's conflicts and set-aside entries,
// oldest first: the open ones only, or all.
func (s *State) SyncConflicts(ws string, openOnly bool) ([]storage.SyncConflict, error) {
	var out []storage.SyncConflict
	err := s.base.Read(ws, func(r *records.Rtx) error {
		return r.WS.SyncConfl().ForEach(func(k, raw []byte) error {
			var c storage.SyncConflict
			if err := records.Decode(raw, &c); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored sync conflict %d is unreadable: %v", records.GetU64(k), err)
			}
			if !openOnly || c.State == storage.ConflictOpen {
				out = append(out, c)
			}
			return nil
		})
	})
	return out, err
}

// ResolveSyncConflict marks an entry settled. What the item becomes is
// the engine's write (storage's SyncApply or a door's update); this
// records the outcome.
func (s *State) ResolveSyncConflict(ws string, id int64, how storage.ConflictState) (*storage.SyncConflict, error) {
	var out *storage.SyncConflict
	err := s.syncUpdate(ws, func(b *records.Wsb) (err error) {
		out, err = records.ResolveConflict(b, id, how, s.base.Clock())
		return err
	})
	return out, err
}
