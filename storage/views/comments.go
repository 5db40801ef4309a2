package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// ListComments lists an item's comments oldest first, replies flat with
// their ParentID. Tombstones are included (empty body, DeletedAt set)
// so a thread keeps its shape. Archived items can be read.
func (s *Views) ListComments(ws, itemRef string) ([]model.Comment, error) {
	return records.ReadComments(s.base, ws, itemRef)
}

// CommentsOfItems lists the comments of several items of ws in one read,
// as ListComments does each: out[i] are refs[i]'s, nil if it names none.
func (s *Views) CommentsOfItems(ws string, refs []string) ([][]model.Comment, error) {
	return records.ReadCommentsOfItems(s.base, ws, refs)
}

// GetComment reads a comment by id, tombstones included.
func (s *Views) GetComment(ws, commentID string) (*model.Comment, error) {
	return records.ReadComment(s.base, ws, commentID)
}
