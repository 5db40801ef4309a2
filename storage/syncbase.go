package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// SyncBase reads an item's base; nil when it has none (never synced).
func (s *Store) SyncBase(ws, itemID string) (*SyncBase, error) {
	var out *SyncBase
	err := s.base.Read(ws, func(r *records.Rtx) (err error) {
		out, err = records.GetBase(r.WS, itemID)
		return err
	})
	return out, err
}

// SetCommentBase records the body both sides hold of a comment.
func (t *SyncTx) SetCommentBase(commentID, body string) error {
	id, ok := records.IDKey(commentID)
	if !ok {
		return model.Invalid("comment id %q is not an id", commentID)
	}
	return t.w.ws.SyncBase().Put(records.CommentBaseKey(id), records.ContentSHA(body))
}

// CommentBase says whether body is the one both sides last agreed on
// for a comment; known is false when there is no record (a comment
// synced before bases were kept).
func (s *Store) CommentBase(ws, commentID, body string) (same, known bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		id, ok := records.IDKey(commentID)
		if !ok {
			return nil
		}
		v := r.WS.SyncBase().Get(records.CommentBaseKey(id))
		known = v != nil
		same = known && string(v) == string(records.ContentSHA(body))
		return nil
	})
	return same, known, err
}

// SetRelationWait marks (on) or unmarks an item as having relation
// values that wait for an item to be mapped.
func (t *SyncTx) SetRelationWait(itemID string, on bool) error {
	id, ok := records.IDKey(itemID)
	if !ok {
		return model.Invalid("item id %q is not an id", itemID)
	}
	if !on {
		if t.w.ws.SyncBase().Get(records.RelationWaitKey(id)) == nil {
			return nil // nearly every base write: no delete to record
		}
		return t.w.ws.SyncBase().Delete(records.RelationWaitKey(id))
	}
	if t.w.ws.Items().Get(id) == nil {
		return model.NotFound("Item not found: %s", itemID)
	}
	return t.w.ws.SyncBase().Put(records.RelationWaitKey(id), []byte{1})
}

// SyncRelationWaits lists the items marked by SetRelationWait.
func (s *Store) SyncRelationWaits(ws string) ([]string, error) {
	var out []string
	err := s.base.Read(ws, func(r *records.Rtx) error {
		c := r.WS.SyncBase().Cursor()
		for k, _ := c.Seek([]byte{'w'}); k != nil && k[0] == 'w'; k, _ = c.Next() {
			if len(k) == 17 { // an item's own base is its 16-byte id, which may start with 'w'
				out = append(out, records.IDString(k[1:]))
			}
		}
		return nil
	})
	return out, err
}

// SyncRelationWait says whether an item is marked by SetRelationWait.
func (s *Store) SyncRelationWait(ws, itemID string) (bool, error) {
	on := false
	err := s.base.Read(ws, func(r *records.Rtx) error {
		if id, ok := records.IDKey(itemID); ok {
			on = r.WS.SyncBase().Get(records.RelationWaitKey(id)) != nil
		}
		return nil
	})
	return on, err
}
