package records

import (
	"bytes"
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

// CommentsOf reads an item's comments, oldest first.
func CommentsOf(b *Wsb, itemID []byte) ([]*model.Comment, error) {
	var out []*model.Comment
	c := b.Comments().Cursor()
	for k, v := c.Seek(itemID); k != nil && bytes.HasPrefix(k, itemID); k, v = c.Next() {
		var cm model.Comment
		if err := Decode(v, &cm); err != nil {
			return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored comment %s is unreadable: %v", IDString(k[16:]), err)
		}
		out = append(out, &cm)
	}
	return out, nil
}

func CommentsOfItem(b *Wsb, it *model.Item) ([]model.Comment, error) {
	list, err := CommentsOf(b, MustID(it.ID))
	if err != nil {
		return nil, err
	}
	out := make([]model.Comment, 0, len(list))
	for _, c := range list {
		out = append(out, *c)
	}
	return out, nil
}

// ReadComments lists an item's comments oldest first, replies flat with
// their ParentID. Tombstones are included (empty body, DeletedAt set)
// so a thread keeps its shape. Archived items can be read.
func ReadComments(b *Base, ws, itemRef string) ([]model.Comment, error) {
	var out []model.Comment
	err := b.Read(ws, func(r *Rtx) error {
		it, err := ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		out, err = CommentsOfItem(r.WS, it)
		return err
	})
	return out, err
}

// ReadCommentsOfItems lists the comments of several items of ws in one read,
// as ListComments does each: out[i] are refs[i]'s, nil if it names none.
func ReadCommentsOfItems(b *Base, ws string, refs []string) ([][]model.Comment, error) {
	out := make([][]model.Comment, len(refs))
	err := b.Read(ws, func(r *Rtx) error {
		return EachItem(r.WS, refs, false, func(i int, it *model.Item) (err error) {
			out[i], err = CommentsOfItem(r.WS, it)
			return err
		})
	})
	return out, err
}

// ReadComment reads a comment by id, tombstones included, in a read of
// its own.
func ReadComment(b *Base, ws, commentID string) (*model.Comment, error) {
	var out *model.Comment
	err := b.Read(ws, func(r *Rtx) error {
		c, err := FindComment(r.WS, "", commentID)
		out = c
		return err
	})
	return out, err
}
