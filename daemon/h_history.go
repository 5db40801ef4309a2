package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage/views"
)

func (s *Server) historyRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/versions", s.listVersions)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/versions/{id}", s.getVersion)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/versions/{id}/diff", s.diffVersion)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/versions/{id}/restore", s.restoreVersion)
}

// listVersions lists newest first. Pad answers every version when no
// limit is given and clamps at 500; summary=true leaves out the bodies.
func (s *Server) listVersions(w http.ResponseWriter, r *http.Request) error {
	limit, err := limitParam(r, views.MaxVersionLimit, views.MaxVersionLimit)
	if err != nil {
		return err
	}
	list, err := s.views.ListVersions(r.PathValue("ws"), r.PathValue("ref"), limit, r.URL.Query().Get("summary") == "true")
	if err != nil {
		return err
	}
	out := make([]api.ItemVersion, 0, len(list))
	for i := range list {
		out = append(out, wireVersion(&list[i]))
	}
	writeJSON(w, 200, out)
	return nil
}

// getVersion takes a version's id or its version_seq.
func (s *Server) getVersion(w http.ResponseWriter, r *http.Request) error {
	v, err := s.views.GetVersion(r.PathValue("ws"), r.PathValue("ref"), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireVersion(v))
	return nil
}

func (s *Server) diffVersion(w http.ResponseWriter, r *http.Request) error {
	d, err := s.views.DiffVersion(r.PathValue("ws"), r.PathValue("ref"), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.VersionDiff{Version: wireVersion(&d.Version), Before: d.Before, After: d.After, Unified: d.Unified})
	return nil
}

// restoreVersion makes the version's body current again and answers the
// item. Pad's optional body ({"overwrite_pending_edits": true}) is about
// collaborative editing, which padd does not have, so it is not read.
func (s *Server) restoreVersion(w http.ResponseWriter, r *http.Request) error {
	res, err := s.store.RestoreVersion(r.PathValue("ws"), r.PathValue("ref"), r.PathValue("id"), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireResult(res))
	return nil
}
