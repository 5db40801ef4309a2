package records

import (
	"github.com/padd/padd/model"
)

// EachChild visits the live children of an item with their collections.
func EachChild(b *Wsb, parentID string, fn func(*model.Item, *model.Collection) error) error {
	p := Cat([]byte{kindParent}, MustID(parentID), []byte{LifeLive})
	colls := map[string]*model.Collection{}
	m := NewMerged(b.Index(), [][]byte{p})
	for {
		suffix, _ := m.Next()
		if suffix == nil {
			return nil
		}
		child, err := GetItem(b, suffix[9:], false)
		if err != nil {
			return err
		}
		cc := colls[child.CollectionID]
		if cc == nil {
			if cc, err = GetCollection(b, MustID(child.CollectionID)); err != nil {
				return err
			}
			colls[child.CollectionID] = cc
		}
		if cc == nil || cc.ArchivedAt != nil {
			continue
		}
		if err := fn(child, cc); err != nil {
			return err
		}
	}
}
