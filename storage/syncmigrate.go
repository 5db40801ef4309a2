package storage

import (
	"github.com/padd/padd/storage/internal/records"
)

// kSyncLinkedV5 is layout 5's link flag in a workspace's root bucket.
var kSyncLinkedV5 = []byte("sync_linked")

// migrateSyncState (layout 5 -> 6) adds the sync buckets to every
// workspace. Layout 5's link flag named no remote, so nothing could ever
// push the outbox it kept: the flag and that outbox go, and the
// workspace is unlinked with its local data as it was.
func migrateSyncState(tx *records.Txn) error {
	if err := ensureWSSubBuckets(tx); err != nil {
		return err
	}
	root := tx.Bucket(records.BWS)
	return root.ForEachBucket(func(k []byte) error {
		ws := root.Bucket(k)
		if ws.Get(kSyncLinkedV5) == nil {
			return nil
		}
		if err := records.ClearBucket(ws.Bucket(records.BOutbox)); err != nil {
			return err
		}
		return ws.Delete(kSyncLinkedV5)
	})
}
