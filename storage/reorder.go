package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The batch reorders: an item's place in lists (sort_order, Pad's PUT
// .../items/sort-order), an item's place in its role's lane
// (role_sort_order, PUT .../roles/board/reorder) and a lane's place on
// the board (the role's sort_order, PUT .../roles/board/lane-order).
// Each batch is one write; each changed item or role is its own stamped
// change, so the change log, the feeds, SSE and export see it. An item
// keeps its updated_at, as Pad's role board reorder leaves it.

// ItemOrder names which of an item's two orders a reorder sets.
type ItemOrder int

const (
	// RoleLaneOrder is the item's place in its role's lane
	// (role_sort_order, PUT .../roles/board/reorder): the item is named by
	// id, and the change is logged "updated".
	RoleLaneOrder ItemOrder = iota
	// ListOrder is the item's place in lists and child lists (sort_order,
	// PUT .../items/sort-order, ITM-10): the item is named by id or ref,
	// must not be archived, and the change is logged "reordered" with
	// sort_order_from, sort_order_to and reorder_batch (one id for the
	// batch, so the dashboard shows a batch as one row).
	ListOrder
)

// ActionReordered is the activity action of a ListOrder change.
const ActionReordered = "reordered"

// MaxItemReorder bounds one reorder batch, as Pad bounds its sort-order
// batch (1–1000 entries).
const MaxItemReorder = 1000

// ItemOrderUpdate places one item.
type ItemOrderUpdate struct {
	ItemID string
	Order  int64
}

// ItemSeq is one reordered item's id and seq after the batch.
type ItemSeq struct {
	ID  string
	Seq int64
}

// ReorderItems sets one of the items' orders in one write: each changed
// item is its own stamped change; an unchanged one keeps its seq. A bad
// element refuses the whole batch: an item not in the workspace is
// not_found (for the role board Pad answers 403 forbidden, "hidden
// collections", which padd does not have), an archived one (ListOrder)
// archived, a repeated one or more than MaxItemReorder validation_error.
func (s *Store) ReorderItems(ws string, which ItemOrder, updates []ItemOrderUpdate, actor model.Actor) ([]ItemSeq, error) {
	if len(updates) > MaxItemReorder {
		return nil, model.Errorf(model.CodeValidation, "at most %d items per reorder, got %d", MaxItemReorder, len(updates)).With("max", MaxItemReorder)
	}
	var out []ItemSeq
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		out = make([]ItemSeq, 0, len(updates))
		seen := make(map[string]bool, len(updates))
		batch := records.NewID()
		for _, u := range updates {
			it, err := w.reorderTarget(which, u.ItemID)
			if err != nil {
				return err
			}
			if seen[it.ID] {
				return model.Errorf(model.CodeValidation, "item %s is named twice in one reorder", u.ItemID).With("item_id", u.ItemID)
			}
			seen[it.ID] = true
			cur := &it.SortOrder
			if which == RoleLaneOrder {
				cur = &it.RoleSortOrder
			}
			if *cur == u.Order {
				out = append(out, ItemSeq{ID: it.ID, Seq: it.Seq})
				continue
			}
			seq, err := w.stamp(model.EntityItem, model.OpUpdated, it.ID, it.ID, it.CollectionID)
			if err != nil {
				return err
			}
			old := *it
			*cur, it.Seq = u.Order, seq
			unpar := records.IsUnparented(b, it)
			if err := records.FirstErr(putItem(b, it), w.reindex(&old, it, unpar, unpar)); err != nil {
				return err
			}
			action, meta := "updated", map[string]any{"seq": seq, "prev_seq": old.Seq, "changes": map[string]any{
				"role_sort_order": map[string]any{"from": old.RoleSortOrder, "to": it.RoleSortOrder}}}
			if which == ListOrder {
				action, meta = ActionReordered, map[string]any{"seq": seq, "prev_seq": old.Seq,
					"sort_order_from": old.SortOrder, "sort_order_to": it.SortOrder, "reorder_batch": batch}
			}
			if err := w.activity(seq, it.ID, action, meta); err != nil {
				return err
			}
			out = append(out, ItemSeq{ID: it.ID, Seq: seq})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reorderTarget finds the item a reorder names: by id on the role board
// (archived items have lanes too), by id or ref and live for ListOrder.
func (w *wtx) reorderTarget(which ItemOrder, ref string) (*model.Item, error) {
	if which == ListOrder {
		it, _, err := liveItemByRef(w.ws, ref, true)
		return it, err
	}
	var it *model.Item
	if id, ok := records.IDKey(ref); ok {
		var err error
		if it, err = records.GetItem(w.ws, id, true); err != nil {
			return nil, err
		}
	}
	if it == nil {
		return nil, model.NotFound("Item not found: %s", ref).With("item_id", ref)
	}
	return it, nil
}

// RoleOrderUpdate places one role's lane.
type RoleOrderUpdate struct {
	RoleID    string
	SortOrder int
}

// ReorderRoleLanes sets the roles' sort_order. A role the workspace does
// not have refuses the batch (unknown_role).
func (s *Store) ReorderRoleLanes(ws string, updates []RoleOrderUpdate, actor model.Actor) error {
	return s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		for _, u := range updates {
			var r *model.Role
			var err error
			if id, ok := records.IDKey(u.RoleID); ok {
				if r, err = records.GetRole(b, id); err != nil {
					return err
				}
			}
			if r == nil {
				return model.Errorf(model.CodeUnknownRole, "no agent role has the id %q", u.RoleID).With("role_id", u.RoleID)
			}
			if r.SortOrder == u.SortOrder {
				continue
			}
			seq, err := w.stamp(model.EntityRole, model.OpUpdated, r.ID, "", "")
			if err != nil {
				return err
			}
			next := *r
			next.SortOrder, next.UpdatedAt, next.Seq = u.SortOrder, records.Tstamp(w.now), seq
			if err := records.FirstErr(putRole(b, &next), w.activity(seq, "", "role_updated", map[string]any{"seq": seq, "role": next.Slug})); err != nil {
				return err
			}
		}
		return nil
	})
}
