package views

import (
	"sort"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// DefaultChildrenLimit is Pad's children page size, default and cap.
const DefaultChildrenLimit = 1000

// ChildrenPage is one page of an item's children.
type ChildrenPage struct {
	Items      []*storage.ItemView
	HasMore    bool
	NextOffset int
}

// Children lists an item's live children (Pad's HIE-02), with bodies,
// ordered by sort_order, created_at, id. The parent may be archived.
// Children in archived collections are left out, as everywhere else.
func (s *Views) Children(ws, parentRef string, limit, offset int) (*ChildrenPage, error) {
	limit = records.BoundLimit(limit, DefaultChildrenLimit, DefaultChildrenLimit)
	offset = max(offset, 0)
	out := &ChildrenPage{Items: []*storage.ItemView{}}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		b := r.WS
		parent, err := records.ItemByRef(b, parentRef, false)
		if err != nil {
			return err
		}
		var kids []*model.Item
		colls := map[string]*model.Collection{}
		err = records.EachChild(b, parent.ID, func(it *model.Item, c *model.Collection) error {
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
			it.Content = string(b.Content().Get(records.MustID(it.ID)))
			v, err := records.View(b, it, colls)
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
func (s *Views) Progress(ws, parentRef string) (*Progress, error) {
	out := &Progress{}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		parent, err := records.ItemByRef(r.WS, parentRef, false)
		if err != nil {
			return err
		}
		return records.EachChild(r.WS, parent.ID, func(it *model.Item, c *model.Collection) error {
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
