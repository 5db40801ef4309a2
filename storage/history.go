package storage

import (
	"fmt"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Content history (Pad's VER-01..03).
//
// Pad stores a version row as the body BEFORE the update that wrote it
// (a reverse patch), so its diff of an update row runs from that row's
// body to the next newer body. padd stores the body AFTER the change
// (versions.go), so the same diff, the change made by the mutation that
// wrote the row, runs from the previous row's body to this row's. Both
// say "what this edit did"; a create row diffs "" -> its body in both.

// RestoreVersion makes a version's body the item's body again, through
// the normal update (indexes, seq, activity, and a new version whose
// summary says where it came from). Like Pad it restores the body only,
// not the title, and refuses archived items. Restoring the body the item
// already has changes nothing and writes nothing.
func (s *Store) RestoreVersion(ws, itemRef, versionID string, actor model.Actor) (*ItemResult, error) {
	var res *ItemResult
	err := s.write(ws, actor, func(w *wtx) error {
		it, _, err := liveItemByRef(w.ws, itemRef, false)
		if err != nil {
			return err
		}
		ver, _, err := records.FindVersion(w.ws, it.ID, versionID)
		if err != nil {
			return err
		}
		body := ver.Content
		summary := fmt.Sprintf("Restored from version %d (%s)", ver.VersionSeq, ver.CreatedAt.Format("Jan 2, 2006 3:04 PM"))
		// Replace: a restore means to overwrite whatever is there now.
		res, err = w.updateItem(it.ID, ItemUpdate{Content: &body, Replace: true, Comment: summary})
		return err
	})
	return res, err
}
