package daemon

import (
	"net/http"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/views"
)

func (s *Server) timelineRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/timeline", s.timeline)
}

// timeline answers an item's comments, activity, versions, notes and
// decisions as one stream, newest first: ?limit= (50, at most 200),
// ?before=<RFC3339>&before_id=<id> for the next page. Pad ignores a
// before it cannot read and reads the first page; padd refuses it
// (invalid_cursor), so a client's broken cursor is not a silent restart.
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) error {
	limit, err := limitParam(r, views.DefaultTimelineLimit, views.MaxTimelineLimit)
	if err != nil {
		return err
	}
	var q views.TimelineQuery
	q.Limit = limit
	if b := r.URL.Query().Get("before"); b != "" {
		t, err := time.Parse(time.RFC3339Nano, b)
		if err != nil {
			return api.Errorf(api.CodeInvalidCursor, "before must be an RFC3339 instant, got %q", model.Excerpt(b)).With("param", "before")
		}
		q.Before, q.BeforeID = t, r.URL.Query().Get("before_id")
	}
	page, err := s.views.Timeline(r.Context(), r.PathValue("ws"), r.PathValue("ref"), q)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireTimeline(page))
	return nil
}
