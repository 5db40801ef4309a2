package views

import (
	"context"
	"sort"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// The role board (Pad's GET /workspaces/{ws}/roles/board): the open
// items of every live collection in lanes, one per agent role in the
// roles' order and then the unassigned lane when it has items, each lane
// by role_sort_order. Items carry their bodies, as Pad's do.
//
// Pad answers every open item of the workspace. padd first counts them
// from the collections' value counts (no item read) and refuses a board
// of more than MaxRoleBoardItems (too_large), so a request reads at most
// that many items.
const MaxRoleBoardItems = 5000

// RoleLane is one lane: Role nil for the unassigned one.
type RoleLane struct {
	Role  *model.Role
	Items []*storage.ItemView
}

// RoleBoard reads the board; assignedUserID, when set, keeps the items
// assigned to that user.
func (s *Views) RoleBoard(ctx context.Context, ws, assignedUserID string) ([]RoleLane, error) {
	var out []RoleLane
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		b := r.WS
		x, err := newProjectCtx(b, time.Now())
		if err != nil {
			return err
		}
		open := 0
		for _, vc := range x.list {
			open += records.CollectionInfoOf(b, vc.Collection).ActiveItemCount
		}
		if open > MaxRoleBoardItems {
			return model.Errorf(model.CodeTooLarge, "the role board has %d open items, more than the %d padd answers at once", open, MaxRoleBoardItems).
				With("limit", MaxRoleBoardItems).With("items", open)
		}
		var roles []*model.Role
		err = b.Roles().ForEach(func(k, _ []byte) error {
			role, err := records.GetRole(b, k)
			if role != nil {
				roles = append(roles, role)
			}
			return err
		})
		if err != nil {
			return err
		}
		sort.SliceStable(roles, func(i, j int) bool {
			a, c := roles[i], roles[j]
			if a.SortOrder != c.SortOrder {
				return a.SortOrder < c.SortOrder
			}
			if a.Name != c.Name {
				return a.Name < c.Name
			}
			return a.ID < c.ID
		})
		lanes := map[string]int{}
		for i, role := range roles {
			lanes[role.ID] = i
			out = append(out, RoleLane{Role: role, Items: []*storage.ItemView{}})
		}
		unassigned := RoleLane{Items: []*storage.ItemView{}}
		colls := map[string]*model.Collection{}
		var prefixes [][]byte
		for _, vc := range x.list {
			colls[vc.ID] = vc.Collection
			prefixes = append(prefixes, records.CollPrefix(vc.key, records.LifeLive))
		}
		err = records.EachInStreams(b, prefixes, true, func(it *model.Item) (bool, error) {
			c := colls[it.CollectionID]
			if c == nil || c.State(it.Fields) != model.StateOpen || assignedUserID != "" && it.AssignedUserID != assignedUserID {
				return true, nil
			}
			v, err := records.View(b, it, colls)
			if err != nil {
				return false, err
			}
			if i, ok := lanes[it.AgentRoleID]; ok && it.AgentRoleID != "" {
				out[i].Items = append(out[i].Items, v)
			} else {
				unassigned.Items = append(unassigned.Items, v)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		if len(unassigned.Items) > 0 {
			out = append(out, unassigned)
		}
		for _, l := range out {
			sort.SliceStable(l.Items, func(i, j int) bool { return l.Items[i].RoleSortOrder < l.Items[j].RoleSortOrder })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
