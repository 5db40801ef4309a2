package storage

import (
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
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

// CommentCreate is a new comment or reply.
type CommentCreate struct {
	Body    string
	ReplyTo string // the id of a comment on the same item
	Idem    Idem
}

// CommentResult answers AddComment.
type CommentResult struct {
	Comment *model.Comment
	// Replayed is true when an idempotency key matched an earlier add:
	// Comment is that comment as it stands now.
	Replayed bool
}

// CommentDeletion says what DeleteComment did.
type CommentDeletion struct {
	// Comment is the deleted comment as it was, or the tombstone it
	// became.
	Comment *model.Comment
	// Tombstoned is true when the comment had replies and stays as a
	// tombstone.
	Tombstoned bool
	// Removed lists the ids that are gone: the comment itself, then any
	// tombstone ancestors it was the last reply of.
	Removed []string
}

func commentKey(c *model.Comment) []byte {
	return records.Cat(records.MustID(c.ItemID), records.MustID(c.ID))
}

func putComment(b *records.Wsb, c *model.Comment) error {
	v, err := records.Encode(c)
	if err != nil {
		return err
	}
	return records.FirstErr(b.Comments().Put(commentKey(c), v), b.CommentIdx().Put(records.MustID(c.ID), records.MustID(c.ItemID)))
}

func delComment(b *records.Wsb, c *model.Comment) error {
	return records.FirstErr(b.Comments().Delete(commentKey(c)), b.CommentIdx().Delete(records.MustID(c.ID)))
}

func commentDeleted(id string) error {
	return model.Errorf(model.CodeCommentDeleted,
		"comment %s was deleted and only remains as a placeholder for its replies", id).With("comment_id", id)
}

// AddComment adds a comment, or a reply when ReplyTo names a live
// comment on the same item. Archived items take no comments.
func (s *Store) AddComment(ws, itemRef string, in CommentCreate, actor model.Actor) (*CommentResult, error) {
	var res *CommentResult
	err := s.write(ws, actor, func(w *wtx) error {
		if replay, err := w.idemReplay(in.Idem); err != nil || replay != nil {
			if replay != nil {
				res, err = replayComment(w.ws, replay)
			}
			return err
		}
		cm, err := w.addComment(itemRef, in)
		if err != nil {
			return err
		}
		res = &CommentResult{Comment: cm}
		return w.idemSave(in.Idem, idemRecord{ItemID: cm.ItemID, EntityID: cm.ID})
	})
	return res, err
}

func (w *wtx) addComment(itemRef string, in CommentCreate) (*model.Comment, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	b := w.ws
	it, c, err := w.annotatedItem(itemRef)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Body) == "" {
		return nil, model.BadRequest("body is required").With("field", "body")
	}
	cm := &model.Comment{ID: records.NewID(), WorkspaceID: b.ID, ItemID: it.ID, Body: in.Body,
		Author: w.actor, CreatedAt: records.Tstamp(w.now), UpdatedAt: records.Tstamp(w.now)}
	meta := map[string]any{"comment_id": cm.ID}
	if rt := strings.TrimSpace(in.ReplyTo); rt != "" {
		// Not found here is a bad parameter, not a missing route
		// target: the Pad CLI rewrites a 404 on this route into
		// "item not found".
		parent, err := records.FindComment(b, "", rt)
		if err != nil || parent.ItemID != it.ID {
			if err != nil && !model.IsNotFound(err) {
				return nil, err
			}
			return nil, model.Invalid("reply_to %q is not a comment on %s", rt, records.RefOf(c, it.Number)).
				With("field", "reply_to").With("comment_id", rt)
		}
		if parent.DeletedAt != nil {
			return nil, commentDeleted(parent.ID)
		}
		cm.ParentID = parent.ID
		meta["reply_to"] = parent.ID
	}
	seq, err := w.stamp(model.EntityComment, model.OpCreated, cm.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	cm.Seq = seq
	meta["seq"] = seq
	if err := records.FirstErr(putComment(b, cm), w.activity(seq, it.ID, "commented", meta)); err != nil {
		return nil, err
	}
	return cm, nil
}

// replayComment answers a replayed add with the comment as it stands now.
func replayComment(b *records.Wsb, rec *idemRecord) (*CommentResult, error) {
	item, okItem := records.IDKey(rec.ItemID)
	id, okID := records.IDKey(rec.EntityID)
	if !okItem || !okID {
		return nil, records.ErrInternal("idempotency record names no comment")
	}
	c, err := records.GetComment(b, item, id)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, model.Errorf(model.CodeIdempotencyTargetGone, "the comment this idempotency key created no longer exists")
	}
	return &CommentResult{Comment: c, Replayed: true}, nil
}

// EditComment replaces a comment's body. itemRef may be "" (the
// workspace-scoped route); when given, the comment must be on that item.
// The same body again changes nothing and writes nothing.
func (s *Store) EditComment(ws, itemRef, commentID, body string, actor model.Actor) (*model.Comment, error) {
	var out *model.Comment
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.editComment(itemRef, commentID, body)
		return err
	})
	return out, err
}

func (w *wtx) editComment(itemRef, commentID, body string) (*model.Comment, error) {
	if err := CheckInput(CommentCreate{Body: body}); err != nil {
		return nil, err
	}
	b := w.ws
	cm, err := records.FindComment(b, itemRef, commentID)
	if err != nil {
		return nil, err
	}
	if cm.DeletedAt != nil {
		return nil, commentDeleted(cm.ID)
	}
	it, c, err := w.annotatedItem(cm.ItemID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(body) == "" {
		return nil, model.BadRequest("body is required (use delete to remove a comment)").With("field", "body")
	}
	if body == cm.Body {
		return cm, nil
	}
	seq, err := w.stamp(model.EntityComment, model.OpUpdated, cm.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	cm.Body, cm.UpdatedAt, cm.Seq = body, records.Tstamp(w.now), seq
	return cm, records.FirstErr(putComment(b, cm),
		w.activity(seq, it.ID, "comment_edited", map[string]any{"seq": seq, "comment_id": cm.ID}))
}

// DeleteComment deletes a comment. One with replies becomes a tombstone
// (body emptied; author and timestamps kept) so the thread survives;
// otherwise it is removed, and so is every tombstone ancestor it was the
// last reply of. A tombstone cannot be deleted again (404): it goes by
// itself with its last reply.
func (s *Store) DeleteComment(ws, itemRef, commentID string, actor model.Actor) (*CommentDeletion, error) {
	var out *CommentDeletion
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.deleteComment(itemRef, commentID)
		return err
	})
	return out, err
}

func (w *wtx) deleteComment(itemRef, commentID string) (*CommentDeletion, error) {
	b := w.ws
	cm, err := records.FindComment(b, itemRef, commentID)
	if err != nil {
		return nil, err
	}
	if cm.DeletedAt != nil {
		return nil, records.CommentNotFound(commentID)
	}
	it, c, err := w.annotatedItem(cm.ItemID)
	if err != nil {
		return nil, err
	}
	all, err := records.CommentsOf(b, records.MustID(it.ID))
	if err != nil {
		return nil, err
	}
	byID := map[string]*model.Comment{}
	replies := map[string]int{}
	for _, x := range all {
		byID[x.ID] = x
		if x.ParentID != "" {
			replies[x.ParentID]++
		}
	}
	seq, err := w.stamp(model.EntityComment, model.OpDeleted, cm.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	d := &CommentDeletion{Comment: cm}
	if replies[cm.ID] > 0 {
		t := records.Tstamp(w.now)
		cm.Body, cm.DeletedAt, cm.Seq = "", &t, seq
		cm.Reactions, cm.ReactionsGone = nil, nil // a tombstone keeps no reactions, as Pad's deleted comment has none
		d.Tombstoned = true
		if err := putComment(b, cm); err != nil {
			return nil, err
		}
	} else {
		for cur := cm; cur != nil; {
			if err := delComment(b, cur); err != nil {
				return nil, err
			}
			d.Removed = append(d.Removed, cur.ID)
			p := byID[cur.ParentID]
			if p == nil {
				break
			}
			replies[p.ID]--
			if p.DeletedAt == nil || replies[p.ID] > 0 {
				break
			}
			cur = p
		}
	}
	return d, w.activity(seq, it.ID, "comment_deleted", map[string]any{"seq": seq, "comment_id": cm.ID,
		"tombstoned": d.Tombstoned, "removed": d.Removed})
}
