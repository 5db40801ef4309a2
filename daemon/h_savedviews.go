package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Saved views of a collection, Pad's routes (storage/savedviews.go).
func (s *Server) savedViewRoutes() {
	const base = "/api/v1/workspaces/{ws}/collections/{coll}/views"
	s.handle("GET "+base, s.listSavedViews)
	s.handle("POST "+base, s.createSavedView)
	s.handle("PATCH "+base+"/{id}", s.updateSavedView)
	s.handle("DELETE "+base+"/{id}", s.deleteSavedView)
}

func wireSavedView(v *model.SavedView) api.SavedView {
	config := string(v.Config)
	if config == "" {
		config = "{}"
	}
	return api.SavedView{ID: v.ID, WorkspaceID: v.WorkspaceID, CollectionID: v.CollectionID, Name: v.Name, Slug: v.Slug,
		ViewType: v.ViewType, Config: config, SortOrder: v.SortOrder, IsDefault: v.IsDefault, Seq: v.Seq,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

// listSavedViews answers a collection's saved views as a bare array.
func (s *Server) listSavedViews(w http.ResponseWriter, r *http.Request) error {
	vs, err := s.views.SavedViews(r.PathValue("ws"), r.PathValue("coll"))
	if err != nil {
		return err
	}
	out := make([]api.SavedView, 0, len(vs))
	for _, v := range vs {
		out = append(out, wireSavedView(v))
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) createSavedView(w http.ResponseWriter, r *http.Request) error {
	var in api.SavedViewCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	create := storage.SavedViewCreate{Name: in.Name, Slug: in.Slug, ViewType: in.ViewType, Config: in.Config}
	if err := checkInput(create); err != nil {
		return err
	}
	v, err := s.store.CreateSavedView(r.PathValue("ws"), r.PathValue("coll"), create, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 201, wireSavedView(v))
	return nil
}

func (s *Server) updateSavedView(w http.ResponseWriter, r *http.Request) error {
	var in api.SavedViewUpdate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	update := storage.SavedViewUpdate{Name: in.Name, ViewType: in.ViewType, Config: in.Config, SortOrder: in.SortOrder}
	if err := checkInput(update); err != nil {
		return err
	}
	v, err := s.store.UpdateSavedView(r.PathValue("ws"), r.PathValue("coll"), r.PathValue("id"), update, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireSavedView(v))
	return nil
}

func (s *Server) deleteSavedView(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.DeleteSavedView(r.PathValue("ws"), r.PathValue("coll"), r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
