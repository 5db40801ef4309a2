package records

import (
	"github.com/padd/padd/model"
)

// EachChild visits the live children of an item with their collections:
// the items whose parent it is, then the items that implement it. Pad
// counts an implements link as a parent link (an item that implements
// another is its child) wherever it walks children: the children list,
// progress and the open-children guard. An item that is both is visited
// once.
func EachChild(b *Wsb, parentID string, fn func(*model.Item, *model.Collection) error) error {
	pk := MustID(parentID)
	p := Cat([]byte{kindParent}, pk, []byte{LifeLive})
	colls := map[string]*model.Collection{}
	visit := func(child *model.Item) error {
		cc := colls[child.CollectionID]
		if cc == nil {
			var err error
			if cc, err = GetCollection(b, MustID(child.CollectionID)); err != nil {
				return err
			}
			colls[child.CollectionID] = cc
		}
		if cc == nil || cc.ArchivedAt != nil {
			return nil
		}
		return fn(child, cc)
	}
	m := NewMerged(b.Index(), [][]byte{p})
	for {
		suffix, _ := m.Next()
		if suffix == nil {
			break
		}
		child, err := GetItem(b, suffix[9:], false)
		if err != nil {
			return err
		}
		if err := visit(child); err != nil {
			return err
		}
	}
	for _, id := range Implementers(b, pk) {
		child, err := GetItem(b, id, false)
		if err != nil {
			return err
		}
		if child == nil || child.DeletedAt != nil || child.ParentID == parentID {
			continue // archived, or visited above as a parent's child
		}
		if err := visit(child); err != nil {
			return err
		}
	}
	return nil
}

// Implementers are the items with an implements link to id (the link's
// sources), oldest link first, each once; archived ones included.
func Implementers(b *Wsb, id []byte) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for _, e := range EdgesOf(b.LinkDst(), id, model.LinkImplements) {
		if !seen[string(e.Other)] {
			seen[string(e.Other)] = true
			out = append(out, e.Other)
		}
	}
	return out
}
