package daemon

import (
	"encoding/json"
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

func (s *Server) reportLayoutRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/report/layout", s.getReportLayout)
	s.handle("PUT /api/v1/workspaces/{ws}/report/layout", s.putReportLayout)
}

func (s *Server) getReportLayout(w http.ResponseWriter, r *http.Request) error {
	l, err := s.views.ReportLayout(r.PathValue("ws"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.ReportLayout(*l))
	return nil
}

// putReportLayout stores the layout the body holds and answers it as
// stored. An empty body is refused and null stores the defaults, as Pad
// does.
func (s *Server) putReportLayout(w http.ResponseWriter, r *http.Request) error {
	var raw json.RawMessage
	if err := decodeBody(r, &raw); err != nil {
		return err
	}
	var in api.ReportLayout
	if len(raw) == 0 {
		return model.BadRequest("the body must be a layout: {hidden_cards, default_window, default_collections}")
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return model.BadRequest("the body is not a layout: %v", err)
	}
	l, err := s.store.SaveReportLayout(r.PathValue("ws"), model.ReportLayout(in), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.ReportLayout(*l))
	return nil
}
