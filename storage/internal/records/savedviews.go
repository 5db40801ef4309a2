package records

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/padd/padd/model"
)

// Saved views of a workspace's collections live in one bucket:
//
//	saved_views  'v' view id(16)            -> model.SavedView JSON
//	             'c' coll id(16) view id(16) -> nil
//
// The 'c' keys list a collection's views without reading the others. A
// workspace made before saved views has no bucket until its first view
// is written (SavedViewsForWrite); a read of it finds none.
var BSavedViews = []byte("saved_views")

const (
	svView = 'v'
	svColl = 'c'
)

// SavedViewsForWrite is the saved views' bucket, made when missing.
func SavedViewsForWrite(b *Wsb) (*Bucket, error) {
	return b.Root.CreateBucketIfNotExists(BSavedViews)
}

func savedViewsBucket(b *Wsb) *Bucket { return b.Root.Bucket(BSavedViews) }

// GetSavedView is the saved view with id, nil when there is none.
func GetSavedView(b *Wsb, id []byte) (*model.SavedView, error) {
	bk := savedViewsBucket(b)
	if bk == nil {
		return nil, nil
	}
	return decodeSavedView(bk.Get(Cat([]byte{svView}, id)), id)
}

func decodeSavedView(v, id []byte) (*model.SavedView, error) {
	if v == nil {
		return nil, nil
	}
	var sv model.SavedView
	if err := Decode(v, &sv); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored saved view %s is unreadable: %v", IDString(id), err)
	}
	return &sv, nil
}

// SavedViewsOf lists collection collID's saved views in their order
// (sort_order, then creation, then id), as Pad lists them.
func SavedViewsOf(b *Wsb, collID string) ([]*model.SavedView, error) {
	bk := savedViewsBucket(b)
	if bk == nil {
		return nil, nil
	}
	prefix := Cat([]byte{svColl}, MustID(collID))
	var out []*model.SavedView
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		id := k[len(prefix):]
		sv, err := decodeSavedView(bk.Get(Cat([]byte{svView}, id)), id)
		if err != nil {
			return nil, err
		}
		if sv != nil {
			out = append(out, sv)
		}
	}
	sortSavedViews(out)
	return out, nil
}

// AllSavedViews lists every saved view of the workspace, by collection
// then in each collection's order.
func AllSavedViews(b *Wsb) ([]*model.SavedView, error) {
	bk := savedViewsBucket(b)
	if bk == nil {
		return nil, nil
	}
	var out []*model.SavedView
	c := bk.Cursor()
	for k, v := c.Seek([]byte{svView}); k != nil && k[0] == svView; k, v = c.Next() {
		sv, err := decodeSavedView(v, k[1:])
		if err != nil {
			return nil, err
		}
		out = append(out, sv)
	}
	sortSavedViews(out)
	return out, nil
}

func sortSavedViews(vs []*model.SavedView) {
	slices.SortStableFunc(vs, func(a, b *model.SavedView) int {
		return cmp.Or(cmp.Compare(a.CollectionID, b.CollectionID), cmp.Compare(a.SortOrder, b.SortOrder),
			a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
}

// PutSavedView writes sv and its collection's key.
func PutSavedView(bk *Bucket, sv *model.SavedView) error {
	v, err := Encode(sv)
	if err != nil {
		return err
	}
	id := MustID(sv.ID)
	if err := bk.Put(Cat([]byte{svView}, id), v); err != nil {
		return err
	}
	return bk.Put(Cat([]byte{svColl}, MustID(sv.CollectionID), id), nil)
}

// DeleteSavedView removes sv and its collection's key.
func DeleteSavedView(bk *Bucket, sv *model.SavedView) error {
	id := MustID(sv.ID)
	if err := bk.Delete(Cat([]byte{svView}, id)); err != nil {
		return err
	}
	return bk.Delete(Cat([]byte{svColl}, MustID(sv.CollectionID), id))
}
