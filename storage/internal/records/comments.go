package records

import (
	"strings"

	"github.com/padd/padd/model"
)

// Comments live in two buckets:
//
//	comments     item id(16) | comment id(16) -> model.Comment JSON
//	comment_idx  comment id(16)               -> item id(16)
//
// Comment ids are time-ordered (v7), so an item's comments read oldest
// first straight off the cursor. A comment never changes its item's
// seq (Pad keeps comments out of the item's concurrency token), but
// each comment mutation is stamped, so it has its own workspace seq and
// change-log entry.

func GetComment(b *Wsb, itemID, id []byte) (*model.Comment, error) {
	v := b.Comments().Get(Cat(itemID, id))
	if v == nil {
		return nil, nil
	}
	var c model.Comment
	if err := Decode(v, &c); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored comment %s is unreadable: %v", IDString(id), err)
	}
	return &c, nil
}

func CommentNotFound(id string) error {
	return model.NotFound("Comment not found").With("comment_id", id)
}

// FindComment resolves a comment id. With itemRef, the comment must be
// on that item: a comment elsewhere is not found, as Pad's item-scoped
// routes answer.
func FindComment(b *Wsb, itemRef, commentID string) (*model.Comment, error) {
	k, ok := IDKey(strings.TrimSpace(commentID))
	if !ok {
		return nil, CommentNotFound(commentID)
	}
	itemID := b.CommentIdx().Get(k)
	if itemID == nil {
		return nil, CommentNotFound(commentID)
	}
	if itemRef != "" {
		it, err := ItemByRef(b, itemRef, false)
		if err != nil {
			return nil, err
		}
		if it.ID != IDString(itemID) {
			return nil, CommentNotFound(commentID)
		}
	}
	c, err := GetComment(b, itemID, k)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, CommentNotFound(commentID)
	}
	return c, nil
}
