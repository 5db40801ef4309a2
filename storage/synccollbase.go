package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// SetCollectionBase records the version of a collection both sides hold.
func (t *SyncTx) SetCollectionBase(b SyncCollectionBase) error {
	id, ok := records.IDKey(b.CollectionID)
	if !ok {
		return model.Invalid("collection id %q is not an id", b.CollectionID)
	}
	c, err := records.GetCollection(t.w.ws, id)
	if err != nil {
		return err
	}
	if c == nil {
		return model.CollectionNotFound(b.CollectionID)
	}
	raw, err := records.Encode(b)
	if err != nil {
		return err
	}
	return t.w.ws.SyncBase().Put(records.CollectionBaseKey(id), raw)
}

// SyncCollectionBase reads a collection's base; nil when it has none (it
// was synced before padd kept one, or never).
func (s *Store) SyncCollectionBase(ws, collectionID string) (*SyncCollectionBase, error) {
	var out *SyncCollectionBase
	err := s.base.Read(ws, func(r *records.Rtx) error {
		id, ok := records.IDKey(collectionID)
		if !ok {
			return nil
		}
		raw := r.WS.SyncBase().Get(records.CollectionBaseKey(id))
		if raw == nil {
			return nil
		}
		var b SyncCollectionBase
		if err := records.Decode(raw, &b); err != nil {
			return model.Errorf(model.CodeStoredStateUnreadable, "stored sync base of collection %s is unreadable: %v", collectionID, err)
		}
		b.CollectionID = collectionID
		out = &b
		return nil
	})
	return out, err
}
