package syncstate

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// SyncBase reads an item's base; nil when it has none (never synced).
func (s *State) SyncBase(ws, itemID string) (*storage.SyncBase, error) {
	var out *storage.SyncBase
	err := s.base.Read(ws, func(r *records.Rtx) (err error) {
		out, err = records.GetBase(r.WS, itemID)
		return err
	})
	return out, err
}

// CommentBase says whether body is the one both sides last agreed on
// for a comment; known is false when there is no record (a comment
// synced before bases were kept).
func (s *State) CommentBase(ws, commentID, body string) (same, known bool, err error) {
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

// SyncRelationWaits lists the items marked by storage's
// SyncTx.SetRelationWait.
func (s *State) SyncRelationWaits(ws string) ([]string, error) {
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

// SyncRelationWait says whether an item is marked by storage's
// SyncTx.SetRelationWait.
func (s *State) SyncRelationWait(ws, itemID string) (bool, error) {
	on := false
	err := s.base.Read(ws, func(r *records.Rtx) error {
		if id, ok := records.IDKey(itemID); ok {
			on = r.WS.SyncBase().Get(records.RelationWaitKey(id)) != nil
		}
		return nil
	})
	return on, err
}

// SyncCollectionBase reads a collection's base; nil when it has none
// (it was synced before padd kept one, or never).
func (s *State) SyncCollectionBase(ws, collectionID string) (*storage.SyncCollectionBase, error) {
	var out *storage.SyncCollectionBase
	err := s.base.Read(ws, func(r *records.Rtx) error {
		id, ok := records.IDKey(collectionID)
		if !ok {
			return nil
		}
		raw := r.WS.SyncBase().Get(records.CollectionBaseKey(id))
		if raw == nil {
			return nil
		}
		var b storage.SyncCollectionBase
		if err := records.Decode(raw, &b); err != nil {
			return model.Errorf(model.CodeStoredStateUnreadable, "stored sync base of collection %s is unreadable: %v", collectionID, err)
		}
		b.CollectionID = collectionID
		out = &b
		return nil
	})
	return out, err
}
