package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The role board's two orders (Pad's PUT .../roles/board/reorder and
// .../roles/board/lane-order): an item's place in its role's lane
// (role_sort_order) and a lane's place on the board (the role's
// sort_order). Each batch is one write; each changed item or role is its
// own stamped change, so the change log, the feeds and export see it.
// An item keeps its updated_at, as Pad's reorder leaves it.

// RoleSortUpdate places one item in its lane.
type RoleSortUpdate struct {
	ItemID        string
	RoleSortOrder int64
}

// RoleOrderUpdate places one role's lane.
type RoleOrderUpdate struct {
	RoleID    string
	SortOrder int
}

// ReorderRoleBoard sets the items' role_sort_order. An item that is not
// in the workspace refuses the whole batch: not_found (Pad answers 403
// forbidden, "hidden collections", which padd does not have).
func (s *Store) ReorderRoleBoard(ws string, updates []RoleSortUpdate, actor model.Actor) error {
	return s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		for _, u := range updates {
			id, ok := records.IDKey(u.ItemID)
			var it *model.Item
			var err error
			if ok {
				if it, err = records.GetItem(b, id, true); err != nil {
					return err
				}
			}
			if it == nil {
				return model.NotFound("Item not found: %s", u.ItemID).With("item_id", u.ItemID)
			}
			if it.RoleSortOrder == u.RoleSortOrder {
				continue
			}
			seq, err := w.stamp(model.EntityItem, model.OpUpdated, it.ID, it.ID, it.CollectionID)
			if err != nil {
				return err
			}
			old := *it
			it.RoleSortOrder, it.Seq = u.RoleSortOrder, seq
			unpar := records.IsUnparented(b, it)
			if err := records.FirstErr(putItem(b, it), w.reindex(&old, it, unpar, unpar)); err != nil {
				return err
			}
			meta := map[string]any{"seq": seq, "prev_seq": old.Seq, "changes": map[string]any{
				"role_sort_order": map[string]any{"from": old.RoleSortOrder, "to": it.RoleSortOrder}}}
			if err := w.activity(seq, it.ID, "updated", meta); err != nil {
				return err
			}
		}
		return nil
	})
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
