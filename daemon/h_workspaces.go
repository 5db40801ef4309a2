package daemon

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func (s *Server) workspaceRoutes() {
	s.handle("GET /api/v1/workspaces", s.listWorkspaces)
	s.handle("POST /api/v1/workspaces", s.createWorkspace)
	s.handle("GET /api/v1/workspaces/deleted", s.listDeletedWorkspaces)
	s.handle("PUT /api/v1/workspaces/reorder", s.reorderWorkspaces)
	s.handle("GET /api/v1/workspaces/{ws}", s.getWorkspace)
	s.handle("PATCH /api/v1/workspaces/{ws}", s.updateWorkspace)
	s.handle("DELETE /api/v1/workspaces/{ws}", s.deleteWorkspace)
	s.handle("POST /api/v1/workspaces/{ws}/restore", s.restoreWorkspace)
	s.handle("GET /api/v1/workspaces/{ws}/members", s.members)
	s.handle("GET /api/v1/workspaces/{ws}/me", s.workspaceMe)
	s.handle("GET /api/v1/templates", s.templates)
}

func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) error {
	return writeWorkspaces(w)(s.views.ListWorkspaces())
}

// maxReorder bounds a reorder's list: far more workspaces than one
// person keeps.
const maxReorder = 1000

// reorderWorkspaces is Pad's PUT /workspaces/reorder: a list of {slug,
// sort_order}, each workspace's order set, a slug that names no live
// workspace skipped, as Pad skips one the caller is not a member of.
func (s *Server) reorderWorkspaces(w http.ResponseWriter, r *http.Request) error {
	var in []api.WorkspaceOrder
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if len(in) > maxReorder {
		return model.Invalid("a reorder lists at most %d workspaces, got %d", maxReorder, len(in)).With("limit", maxReorder)
	}
	for _, o := range in {
		order := o.SortOrder
		if _, err := s.store.UpdateWorkspace(o.Slug, storage.WorkspaceUpdate{SortOrder: &order}, actor(r)); err != nil && !model.IsNotFound(err) {
			return err
		}
	}
	writeJSON(w, 200, api.Status{Status: "ok"})
	return nil
}

func (s *Server) listDeletedWorkspaces(w http.ResponseWriter, r *http.Request) error {
	wss, err := s.views.ListDeletedWorkspaces()
	if err != nil {
		return err
	}
	now := s.now()
	out := make([]api.DeletedWorkspace, 0, len(wss))
	for i := range wss {
		d := api.DeletedWorkspace{Workspace: wireWorkspace(&wss[i])}
		if at := wss[i].DeletedAt; at != nil {
			d.PurgeAt = at.Add(storage.RestoreWindow).UTC()
			d.DaysLeft = max(0, int(math.Ceil(d.PurgeAt.Sub(now).Hours()/24)))
		}
		out = append(out, d)
	}
	writeJSON(w, 200, out)
	return nil
}

// writeWorkspaces answers a workspace list as a bare array.
func writeWorkspaces(w http.ResponseWriter) func([]model.Workspace, error) error {
	return func(wss []model.Workspace, err error) error {
		if err != nil {
			return err
		}
		out := make([]api.Workspace, 0, len(wss))
		for i := range wss {
			out = append(out, wireWorkspace(&wss[i]))
		}
		writeJSON(w, 200, out)
		return nil
	}
}

func (s *Server) createWorkspace(w http.ResponseWriter, r *http.Request) error {
	var in api.WorkspaceCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	create := storage.WorkspaceCreate{Name: in.Name, Slug: in.Slug, Description: in.Description, Template: in.Template}
	if err := checkInput(create); err != nil {
		return err
	}
	ws, err := s.store.CreateWorkspace(create, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 201, wireWorkspace(ws))
	return nil
}

func (s *Server) getWorkspace(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.views.GetWorkspace(r.PathValue("ws"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireWorkspace(ws))
	return nil
}

func (s *Server) updateWorkspace(w http.ResponseWriter, r *http.Request) error {
	var in api.WorkspaceUpdate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ctx, setCtx, err := workspaceContextOf(in.Context, in.Settings)
	if err != nil {
		return err
	}
	update := storage.WorkspaceUpdate{Name: in.Name, Description: in.Description, SortOrder: in.SortOrder}
	if err := checkInput(update); err != nil {
		return err
	}
	var ws *model.Workspace
	if setCtx {
		if ws, err = s.store.SetWorkspaceContext(r.PathValue("ws"), ctx, actor(r)); err != nil {
			return err
		}
	}
	if !setCtx || in.Name != nil || in.Description != nil || in.SortOrder != nil {
		if ws, err = s.store.UpdateWorkspace(r.PathValue("ws"), update, actor(r)); err != nil {
			return err
		}
	}
	writeJSON(w, 200, wireWorkspace(ws))
	return nil
}

// workspaceContextOf reads the context a workspace update sets: its
// "context" member (Pad's `pad workspace context set`; null leaves the
// context alone, as Pad does), else the "context" of its "settings" (a
// JSON object or Pad's text of one), where no context clears it, as
// Pad's settings are replaced whole. set says whether the update sets
// one. Settings holding anything but a context are refused: padd keeps
// no other setting, and drops nothing in silence.
func workspaceContextOf(ctxRaw, settingsRaw json.RawMessage) (ctx *model.WorkspaceContext, set bool, err error) {
	if isJSONNull(ctxRaw) && !isJSONNull(settingsRaw) {
		raw := bytes.TrimSpace(settingsRaw)
		if raw[0] == '"' {
			var text string
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, false, model.BadRequest("settings must be a JSON object or Pad's text of one").With("field", "settings")
			}
			if raw = bytes.TrimSpace([]byte(text)); len(raw) == 0 {
				raw = []byte("{}")
			}
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil || members == nil {
			return nil, false, model.BadRequest("settings must be a JSON object or Pad's text of one").With("field", "settings")
		}
		for k := range members {
			if k != "context" {
				return nil, false, model.BadRequest("padd keeps no workspace setting %q (only the context); nothing was changed", model.Excerpt(k)).
					With("field", "settings."+k)
			}
		}
		if isJSONNull(members["context"]) {
			return nil, true, nil
		}
		ctxRaw = members["context"]
	}
	if isJSONNull(ctxRaw) {
		return nil, false, nil
	}
	ctx, err = model.ParseWorkspaceContext(ctxRaw)
	return ctx, err == nil, err
}

// isJSONNull says raw is absent or JSON null.
func isJSONNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func (s *Server) deleteWorkspace(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.DeleteWorkspace(r.PathValue("ws"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) restoreWorkspace(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.store.RestoreWorkspace(r.PathValue("ws"), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireWorkspace(ws))
	return nil
}

// members answers with the one local user, in Pad's envelope.
func (s *Server) members(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.views.GetWorkspace(r.PathValue("ws"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, map[string]any{"members": []map[string]any{{
		"workspace_id": ws.ID, "user_id": "local", "role": "owner", "collection_access": "all",
		"created_at": ws.CreatedAt, "user_name": localUser["name"], "user_email": "", "user_username": "local",
	}}, "invitations": []any{}, "apps": []any{}})
	return nil
}

// workspaceMe is Pad's GET /workspaces/{ws}/me, the caller's access: padd's one
// user owns every workspace and sees every collection.
func (s *Server) workspaceMe(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.views.GetWorkspace(r.PathValue("ws")); err != nil {
		return err
	}
	writeJSON(w, 200, api.WorkspaceAccess{Role: "owner", CollectionAccess: "all",
		CollectionGrants: []any{}, ItemGrants: []any{}})
	return nil
}

func (s *Server) templates(w http.ResponseWriter, r *http.Request) error {
	var out []map[string]any
	for _, t := range modelTemplates() {
		var colls []string
		for _, c := range t.Collections {
			colls = append(colls, c.Slug)
		}
		out = append(out, map[string]any{"name": t.Name, "description": t.Description, "collections": colls})
	}
	writeJSON(w, 200, out)
	return nil
}
