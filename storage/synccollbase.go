package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// SyncCollectionBase is the last version of a collection both sides
// agreed on: the common ancestor of its three-way merge (its schema,
// settings, icon and description), written when a pull or a push leaves
// both sides equal.
type SyncCollectionBase struct {
	CollectionID string         `json:"-"`
	Icon         string         `json:"icon,omitempty"`
	Description  string         `json:"description,omitempty"`
	Schema       model.Schema   `json:"schema"`
	Settings     model.Settings `json:"settings"`
	// RemoteUpdatedAt is the remote's updated_at of this version, as the
	// server wrote it.
	RemoteUpdatedAt string `json:"remote_updated_at,omitempty"`
}

// A collection's base is kept under 'k' and the collection's id in the
// bucket of the items' bases (whose keys are ids alone, and comments'
// 'c' and an id).
func collectionBaseKey(id []byte) []byte { return records.Cat([]byte{'k'}, id) }

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
	return t.w.ws.SyncBase().Put(collectionBaseKey(id), raw)
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
		raw := r.WS.SyncBase().Get(collectionBaseKey(id))
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
