package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
)

func (s *Server) fieldUsageRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/collections/{coll}/field-usage", s.fieldUsage)
}

// fieldUsage answers the collection's field usage census: per field key
// how many live items hold a value, and per value how many hold it.
func (s *Server) fieldUsage(w http.ResponseWriter, r *http.Request) error {
	list, more, err := s.views.FieldUsage(r.Context(), r.PathValue("ws"), r.PathValue("coll"))
	if err != nil {
		return err
	}
	out := api.FieldUsage{Fields: make([]api.FieldUsageRow, 0, len(list)), Truncated: more}
	for _, u := range list {
		out.Fields = append(out.Fields, api.FieldUsageRow(u))
	}
	writeJSON(w, 200, out)
	return nil
}
