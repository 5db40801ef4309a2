package storage

import (
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// MarkSeen moves the caller's seen cursor to now, never backwards, and
// returns it. The cursor is the caller's own reading position, not
// workspace content: it is not stamped (no change-log entry, no seq).
func (s *Store) MarkSeen(ws string, caller model.Actor, now time.Time) (time.Time, error) {
	if now.IsZero() {
		now = s.base.Clock()
	}
	at := model.Truncate1s(now)
	err := s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		if cur := records.ReadSeen(b, caller); cur != nil && cur.After(at) {
			at = *cur
			return nil
		}
		return b.Seen().Put(records.SeenKey(caller), records.U64(uint64(at.Unix())))
	})
	return at, err
}
