package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage/views"
)

func (s *Server) collectionProgressRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/collections/{coll}/child-progress", s.childProgress)
	s.handle("GET /api/v1/workspaces/{ws}/collections/{coll}/checkbox-progress", s.checkboxProgress)
	s.handle("GET /api/v1/workspaces/{ws}/plans-progress", s.plansProgress)
}

// childProgress answers a row per item of the collection (archived ones
// too with ?include_archived=true): its children, and how many are done.
func (s *Server) childProgress(w http.ResponseWriter, r *http.Request) error {
	archived := r.URL.Query().Get("include_archived") == "true"
	list, err := s.views.ChildProgress(r.Context(), r.PathValue("ws"), r.PathValue("coll"), archived, false)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireProgressRows(list))
	return nil
}

// plansProgress is child-progress of the plans collection, live plans
// only, and [] when the workspace has no plans collection (Pad's older
// route, which reads no parameter).
func (s *Server) plansProgress(w http.ResponseWriter, r *http.Request) error {
	list, err := s.views.ChildProgress(r.Context(), r.PathValue("ws"), "plans", false, true)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireProgressRows(list))
	return nil
}

// checkboxProgress answers a row per item of the collection whose body
// has Markdown task boxes.
func (s *Server) checkboxProgress(w http.ResponseWriter, r *http.Request) error {
	archived := r.URL.Query().Get("include_archived") == "true"
	list, err := s.views.CheckboxProgress(r.Context(), r.PathValue("ws"), r.PathValue("coll"), archived)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireProgressRows(list))
	return nil
}

func wireProgressRows(list []views.ItemProgress) []api.ItemProgress {
	out := make([]api.ItemProgress, 0, len(list))
	for _, p := range list {
		out = append(out, api.ItemProgress(p))
	}
	return out
}
