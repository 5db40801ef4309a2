package storage

import (
	"time"

	"github.com/padd/padd/storage/internal/records"
)

// sweep deletes, in every workspace, the entries of one bucket that
// stale says are past use, one workspace per write; it answers how many
// went. It is maintenance: losing it to a crash loses nothing, the next
// sweep does it again.
func (s *Store) sweep(bucketOf func(*records.Wsb) *records.Bucket, stale func(k, v []byte, now time.Time) bool) (int, error) {
	n := 0
	wss, err := records.Workspaces(&s.base, records.Live)
	if err != nil {
		return 0, err
	}
	for _, ws := range wss {
		err := s.base.Update(func(tx *records.Txn) error {
			b := records.OpenWS(tx, ws.ID)
			if b == nil {
				return nil
			}
			bk := bucketOf(b)
			if bk == nil {
				return nil
			}
			now := s.base.Now()
			var gone [][]byte
			c := bk.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if stale(k, v, now) {
					gone = append(gone, append([]byte(nil), k...))
				}
			}
			for _, k := range gone {
				if err := bk.Delete(k); err != nil {
					return err
				}
			}
			n += len(gone)
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// SweepLeases forgets the leases that no longer hold. An expired lease
// is worth nothing (every read and claim treats it as none), but the
// suggestions of `next`, `ready` and the dashboard, and catch-up, walk
// every stored lease to find the caller's, so the leases of agents that
// never released made `next` many times slower (docs/PERFORMANCE.md,
// "Why the code is as it is").
func (s *Store) SweepLeases() (int, error) {
	return s.sweep((*records.Wsb).Leases, func(k, v []byte, now time.Time) bool {
		l, err := records.DecodeLease(k, v)
		return err == nil && !l.Live(now)
	})
}
