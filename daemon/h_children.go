package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage/views"
)

func (s *Server) childrenRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/children", s.children)
	// Pad's older name for children, which it still answers.
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/tasks", s.children)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/progress", s.progress)
}

// children lists an item's children in manual order as a bare array,
// paged like the item lists (HIE-02).
func (s *Server) children(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := pageParams(r, views.DefaultChildrenLimit, views.DefaultChildrenLimit)
	if err != nil {
		return err
	}
	page, err := s.views.Children(r.PathValue("ws"), r.PathValue("ref"), limit, offset)
	if err != nil {
		return err
	}
	setPaging(w, page.HasMore, page.NextOffset)
	writeJSON(w, 200, wireItems(page.Items))
	return nil
}

// progress counts the item's work children (HIE-03).
func (s *Server) progress(w http.ResponseWriter, r *http.Request) error {
	p, err := s.views.Progress(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.Progress{Total: p.Total, Done: p.Done, Percentage: p.Percent, Open: p.Open, Abandoned: p.Abandoned})
	return nil
}
