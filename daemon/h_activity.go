package daemon

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/views"
)

func (s *Server) activityRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/activity", s.activity)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/activity", s.activity)
	s.handle("GET /api/v1/audit-log", s.auditLog)
}

// auditLog answers Pad's audit log (WS-08): every live workspace's
// activity (or one's, with ?workspace=), newest first, as a bare array
// of activity rows, over the last days (default 30). action filters by
// action, actor (or Pad's user) by user or agent. X-Pad-Has-More says
// whether older entries match.
func (s *Server) auditLog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, offset, err := pageParams(r, views.DefaultAuditLimit, views.MaxAuditLimit)
	if err != nil {
		return err
	}
	days := views.DefaultAuditDays
	if v := q.Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return model.BadRequest("days must be a whole number of 1 or more, got %q", v).With("param", "days")
		}
		days = min(n, views.MaxAuditDays)
	}
	actor := q.Get("actor")
	if actor == "" {
		actor = q.Get("user")
	}
	page, err := s.views.AuditLog(r.Context(), views.AuditQuery{Workspace: q.Get("workspace"), Action: q.Get("action"),
		Actor: actor, Since: s.now().AddDate(0, 0, -days), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	out := make([]api.Activity, 0, len(page.Entries))
	for _, e := range page.Entries {
		out = append(out, wireActivity(e))
	}
	setPaging(w, page.HasMore, offset+len(out))
	writeJSON(w, 200, out)
	return nil
}

// activity answers the workspace feed and (with {ref}) one item's,
// newest first, as a bare array (ACT-01). Filters apply before limit.
// Paging is a keyset: each row carries its seq, and ?before=<seq> (or
// Pad's ?before_id=<activity id>) continues below it; X-Pad-Has-More and
// X-Pad-Next-Before say whether and where.
func (s *Server) activity(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ws := r.PathValue("ws")
	limit, offset, err := pageParams(r, views.DefaultActivityLimit, views.MaxActivityLimit)
	if err != nil {
		return err
	}
	query := views.ActivityQuery{Action: q.Get("action"), Actor: q.Get("actor"), Source: q.Get("source"),
		Since: q.Get("since"), Collection: q.Get("collection"), ItemRef: r.PathValue("ref"), Limit: limit, Offset: offset}
	before, err := s.activityBefore(r.Context(), ws, query.ItemRef, q.Get("before"), q.Get("before_id"))
	if err != nil {
		return err
	}
	query.Before = before
	page, err := s.views.ListActivity(r.Context(), ws, query)
	if err != nil {
		return err
	}
	out := make([]api.Activity, 0, len(page.Entries))
	for _, e := range page.Entries {
		out = append(out, wireActivity(e))
	}
	w.Header().Set("X-Pad-Has-More", strconv.FormatBool(page.HasMore))
	if page.HasMore {
		w.Header().Set("X-Pad-Next-Before", strconv.FormatInt(page.NextBefore, 10))
	}
	writeJSON(w, 200, out)
	return nil
}

// activityBefore reads the keyset cursor. before is a seq; Pad's web
// client sends before=<created_at>&before_id=<id> from the last row it
// holds, and then the id decides: the entry's own seq is the bound.
func (s *Server) activityBefore(ctx context.Context, ws, itemRef, before, beforeID string) (int64, error) {
	if beforeID = strings.TrimSpace(beforeID); beforeID != "" {
		return s.activitySeqOf(ctx, ws, itemRef, beforeID)
	}
	if before == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(before, 10, 64)
	if err != nil || n < 1 {
		return 0, model.BadRequest("before must be the seq of an activity row (or send before_id with its id), got %q", before).
			With("param", "before")
	}
	return n, nil
}

// activitySeqOf finds an activity entry's seq by walking the feed down
// from its head. Entries carry no id index (they are keyed by seq), and
// a keyset page is asked for from a row the client just read, near the
// top, so the walk is short in practice.
func (s *Server) activitySeqOf(ctx context.Context, ws, itemRef, id string) (int64, error) {
	var before int64
	for {
		page, err := s.views.ListActivity(ctx, ws, views.ActivityQuery{ItemRef: itemRef, Before: before,
			Limit: views.MaxActivityLimit})
		if err != nil {
			return 0, err
		}
		for _, e := range page.Entries {
			if e.ID == id {
				return e.Seq, nil
			}
		}
		if !page.HasMore {
			return 0, model.BadRequest("before_id %q names no activity entry of this feed", id).With("param", "before_id")
		}
		before = page.NextBefore
	}
}
