package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
)

func (s *Server) tagRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/tags", s.tags)
}

// tags lists the tags of the workspace's live items, each with how many
// carry it, the most used first (Pad's GET .../tags, a bare array).
func (s *Server) tags(w http.ResponseWriter, r *http.Request) error {
	tags, err := s.views.Tags(r.PathValue("ws"))
	if err != nil {
		return err
	}
	out := make([]api.TagCount, len(tags))
	for i, t := range tags {
		out[i] = api.TagCount{Tag: t.Tag, Count: t.Count}
	}
	writeJSON(w, 200, out)
	return nil
}
