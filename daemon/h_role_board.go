package daemon

import (
	"net/http"
	"sort"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func (s *Server) roleBoardRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/roles/board", s.roleBoard)
	s.handle("PUT /api/v1/workspaces/{ws}/roles/board/reorder", s.roleBoardReorder)
	s.handle("PUT /api/v1/workspaces/{ws}/roles/board/lane-order", s.roleBoardLaneOrder)
}

// roleBoard answers the open items in lanes by agent role (?assigned_user_id=
// keeps one user's); more than views.MaxRoleBoardItems open items is
// too_large.
func (s *Server) roleBoard(w http.ResponseWriter, r *http.Request) error {
	lanes, err := s.views.RoleBoard(r.Context(), r.PathValue("ws"), r.URL.Query().Get("assigned_user_id"))
	if err != nil {
		return err
	}
	out := api.RoleBoard{Lanes: make([]api.RoleLane, 0, len(lanes))}
	for _, l := range lanes {
		lane := api.RoleLane{Items: wireItems(l.Items), AssignedUsers: []string{}}
		if l.Role != nil {
			role := wireAgentRole(storage.RoleInfo{Role: *l.Role})
			lane.Role = &role
		}
		seen := map[string]bool{}
		for _, it := range lane.Items {
			if n := it.AssignedUserName; n != "" && !seen[n] {
				seen[n] = true
				lane.AssignedUsers = append(lane.AssignedUsers, n)
			}
		}
		sort.Strings(lane.AssignedUsers)
		out.Lanes = append(out.Lanes, lane)
	}
	writeJSON(w, 200, out)
	return nil
}

// roleBoardReorder sets items' places in their lanes: a JSON array of
// {item_id, role_sort_order}, all or nothing.
func (s *Server) roleBoardReorder(w http.ResponseWriter, r *http.Request) error {
	var in []api.RoleSortUpdate
	if err := decodeArray(r, &in); err != nil {
		return err
	}
	ups := make([]storage.ItemOrderUpdate, 0, len(in))
	for _, u := range in {
		ups = append(ups, storage.ItemOrderUpdate{ItemID: u.ItemID, Order: u.RoleSortOrder})
	}
	if _, err := s.store.ReorderItems(r.PathValue("ws"), storage.RoleLaneOrder, ups, actor(r)); err != nil {
		return err
	}
	writeJSON(w, 200, api.Status{Status: "ok"})
	return nil
}

// roleBoardLaneOrder sets the lanes' order: a JSON array of {role_id,
// sort_order}, all or nothing.
func (s *Server) roleBoardLaneOrder(w http.ResponseWriter, r *http.Request) error {
	var in []api.RoleOrderUpdate
	if err := decodeArray(r, &in); err != nil {
		return err
	}
	ups := make([]storage.RoleOrderUpdate, 0, len(in))
	for _, u := range in {
		ups = append(ups, storage.RoleOrderUpdate(u))
	}
	if err := s.store.ReorderRoleLanes(r.PathValue("ws"), ups, actor(r)); err != nil {
		return err
	}
	writeJSON(w, 200, api.Status{Status: "ok"})
	return nil
}

// decodeArray reads a body that must be a JSON array (an empty body is
// refused, as Pad's decoder refuses it).
func decodeArray[T any](r *http.Request, into *[]T) error {
	if err := decodeBody(r, into); err != nil {
		return err
	}
	if *into == nil {
		return model.BadRequest("the body must be a JSON array")
	}
	return nil
}
