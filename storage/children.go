package storage

import (
	"sort"

	"github.com/padd/padd/model"
)

// DefaultChildrenLimit is Pad's children page size, default and cap.
const DefaultChildrenLimit = 1000

// ChildrenPage is one page of an item's children.
type ChildrenPage struct {
	Items      []*ItemView
	HasMore    bool
	NextOffset int
}

// Children lists an item's live children (Pad's HIE-02), with bodies,
// ordered by sort_order, created_at, id. The parent may be archived.
// Children in archived collections are left out, as everywhere else.
func (s *Store) Children(ws, parentRef string, limit, offset int) (*ChildrenPage, error) {
	limit = boundLimit(limit, DefaultChildrenLimit, DefaultChildrenLimit)
	offset = max(offset, 0)
	out := &ChildrenPage{Items: []*ItemView{}}
	err := s.read(ws, func(r *rtx) error {
		b := r.ws
		parent, err := itemByRef(b, parentRef, false)
		if err != nil {
			return err
		}
		var kids []*model.Item
		colls := map[string]*model.Collection{}
		err = eachChild(b, parent.ID, func(it *model.Item, c *model.Collection) error {
			kids = append(kids, it)
			colls[c.ID] = c
			return nil
		})
		if err != nil {
			return err
		}
		sort.Slice(kids, func(i, j int) bool {
			a, b := kids[i], kids[j]
			if a.SortOrder != b.SortOrder {
				return a.SortOrder < b.SortOrder
			}
			if !a.CreatedAt.Equal(b.CreatedAt) {
				return a.CreatedAt.Before(b.CreatedAt)
			}
			return a.ID < b.ID
		})
		if offset >= len(kids) {
			return nil
		}
		page := kids[offset:]
		if len(page) > limit {
			page = page[:limit]
			out.HasMore = true
			out.NextOffset = offset + limit
		}
		for _, it := range page {
			it.Content = string(b.content().Get(mustID(it.ID)))
			v, err := view(b, it, colls)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, v)
		}
		return nil
	})
	return out, err
}

// Progress is the completion of an item's children (Pad's HIE-03).
type Progress struct {
	Total int
	// Done counts children in a terminal state, abandoned ones included
	// (Pad's "done"); Abandoned is the part of Done that was dropped
	// rather than finished.
	Done      int
	Abandoned int
	Open      int
	// Percent is Done*100/Total rounded down (0 with no children), as
	// Pad's "percentage".
	Percent int
}

// Progress counts an item's live children in work collections;
// reference collections (tracks_work false) are left out.
func (s *Store) Progress(ws, parentRef string) (*Progress, error) {
	out := &Progress{}
	err := s.read(ws, func(r *rtx) error {
		parent, err := itemByRef(r.ws, parentRef, false)
		if err != nil {
			return err
		}
		return eachChild(r.ws, parent.ID, func(it *model.Item, c *model.Collection) error {
			if !c.TracksWork() {
				return nil
			}
			out.Total++
			switch c.State(it.Fields) {
			case model.StateOpen:
				out.Open++
			case model.StateAbandoned:
				out.Abandoned++
				out.Done++
			default:
				out.Done++
			}
			return nil
		})
	})
	if out.Total > 0 {
		out.Percent = out.Done * 100 / out.Total
	}
	return out, err
}
