package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func (s *Server) starRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/star", s.starState)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/star", s.star)
	s.handle("DELETE /api/v1/workspaces/{ws}/items/{ref}/star", s.unstar)
	s.handle("GET /api/v1/workspaces/{ws}/starred", s.starred)
}

func (s *Server) starState(w http.ResponseWriter, r *http.Request) error {
	on, err := s.views.IsStarred(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.StarState{Starred: on})
	return nil
}

// star answers 200 {ref, starred: true}, also for an item already starred.
func (s *Server) star(w http.ResponseWriter, r *http.Request) error {
	res, err := s.store.Star(r.PathValue("ws"), r.PathValue("ref"), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.StarState{Ref: res.Ref, Starred: true})
	return nil
}

// unstar refuses an item that is not starred with Pad's 404.
func (s *Server) unstar(w http.ResponseWriter, r *http.Request) error {
	res, err := s.store.Unstar(r.PathValue("ws"), r.PathValue("ref"), actor(r))
	if err != nil {
		return err
	}
	if !res.Changed {
		return model.NotFound("Item is not starred").With("ref", res.Ref)
	}
	writeJSON(w, 200, api.StarState{Ref: res.Ref, Starred: false})
	return nil
}

// starred lists starred items, newest star first, as a bare array with
// the paging headers; summary=true leaves out the bodies.
func (s *Server) starred(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, offset, err := pageParams(r, storage.MaxStarredPage, storage.MaxStarredPage)
	if err != nil {
		return err
	}
	res, err := s.views.Starred(r.PathValue("ws"), storage.StarredParams{
		IncludeTerminal: q.Get("include_terminal") == "true", Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	ws, summary := r.PathValue("ws"), q.Get("summary") == "true"
	out := make([]api.Item, 0, len(res.Items))
	for _, st := range res.Items {
		v := st.Item
		if !summary {
			// The starred list reads no bodies (summary's answer); the
			// page's are loaded here.
			if v, err = s.views.GetItem(ws, v.ID); err != nil {
				return err
			}
		}
		out = append(out, wireItem(v))
	}
	setPaging(w, res.HasMore, res.NextOffset)
	writeJSON(w, 200, out)
	return nil
}
