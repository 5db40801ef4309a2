package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
)

func (s *Server) roleRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/agent-roles", s.listRoles)
	s.handle("POST /api/v1/workspaces/{ws}/agent-roles", s.createRole)
	s.handle("GET /api/v1/workspaces/{ws}/agent-roles/{role}", s.getRole)
	s.handle("PATCH /api/v1/workspaces/{ws}/agent-roles/{role}", s.updateRole)
	s.handle("DELETE /api/v1/workspaces/{ws}/agent-roles/{role}", s.deleteRole)
}

func (s *Server) listRoles(w http.ResponseWriter, r *http.Request) error {
	roles, err := s.views.ListRoles(r.PathValue("ws"))
	if err != nil {
		return err
	}
	out := make([]api.AgentRole, 0, len(roles))
	for _, ri := range roles {
		out = append(out, wireAgentRole(ri))
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) createRole(w http.ResponseWriter, r *http.Request) error {
	var in api.AgentRoleCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	create := storage.RoleCreate{Slug: in.Slug, Name: in.Name,
		Icon: in.Icon, Description: in.Description, Tools: in.Tools, SortOrder: in.SortOrder}
	if err := checkInput(create); err != nil {
		return err
	}
	role, err := s.store.CreateRole(r.PathValue("ws"), create, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 201, wireAgentRole(storage.RoleInfo{Role: *role}))
	return nil
}

func (s *Server) getRole(w http.ResponseWriter, r *http.Request) error {
	ri, err := s.views.GetRole(r.PathValue("ws"), r.PathValue("role"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireAgentRole(*ri))
	return nil
}

func (s *Server) updateRole(w http.ResponseWriter, r *http.Request) error {
	var in api.AgentRoleUpdate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ws := r.PathValue("ws")
	update := storage.RoleUpdate{Slug: in.Slug, Name: in.Name,
		Icon: in.Icon, Description: in.Description, Tools: in.Tools, SortOrder: in.SortOrder}
	if err := checkInput(update); err != nil {
		return err
	}
	role, err := s.store.UpdateRole(ws, r.PathValue("role"), update, actor(r))
	if err != nil {
		return err
	}
	ri, err := s.views.GetRole(ws, role.ID) // with its item count, as GET answers
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireAgentRole(*ri))
	return nil
}

// deleteRole answers Pad's {"status":"deleted"}; items that had the
// role lose it.
func (s *Server) deleteRole(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.DeleteRole(r.PathValue("ws"), r.PathValue("role"), actor(r)); err != nil {
		return err
	}
	writeJSON(w, 200, api.Status{Status: "deleted"})
	return nil
}
