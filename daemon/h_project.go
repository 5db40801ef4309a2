package daemon

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/views"
)

// The project views (PRJ-01..08), leases and reminders: Pad's pad_project
// and the lease and reminder actions of pad_item. Every view is a read.

// Next's and ready's page sizes: next answers at most Pad's three.
const (
	nextCap      = 3
	defaultReady = 20
)

func (s *Server) projectRoutes() {
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/claim", s.claim)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/release", s.release)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/reminders", s.reminders)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/reminders", s.remind)
	s.handle("POST /api/v1/workspaces/{ws}/reminders/{id}/ack", s.ackReminder)
	s.handle("PATCH /api/v1/workspaces/{ws}/reminders/{id}", s.rearmReminder)
	s.handle("DELETE /api/v1/workspaces/{ws}/reminders/{id}", s.unremind)

	s.handle("GET /api/v1/workspaces/{ws}/dashboard", s.dashboard)
	s.handle("GET /api/v1/workspaces/{ws}/next", s.next)
	s.handle("GET /api/v1/workspaces/{ws}/ready", s.ready)
	s.handle("GET /api/v1/workspaces/{ws}/stale", s.stale)
	s.handle("GET /api/v1/workspaces/{ws}/standup", s.standup)
	s.handle("GET /api/v1/workspaces/{ws}/changelog", s.changelog)
	s.handle("GET /api/v1/workspaces/{ws}/report", s.report)
	s.handle("GET /api/v1/workspaces/{ws}/catch-up", s.catchUp)
	s.handle("PUT /api/v1/workspaces/{ws}/me/seen", s.markSeen)
}

// viewer is the caller of a view as a lease claimant (X-Pad-Worker or
// ?worker_id=, and the X-Pad-Agent name or the user), so views leave out
// work another claimant holds.
func viewer(r *http.Request) (model.Claimant, error) { return claimant(r, api.Claim{}) }

func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	who, err := viewer(r)
	if err != nil {
		return err
	}
	d, err := s.views.Dashboard(r.Context(), r.PathValue("ws"), views.DashboardParams{Now: s.now(), Who: who})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireDashboard(d))
	return nil
}

func (s *Server) next(w http.ResponseWriter, r *http.Request) error {
	return s.suggestions(w, r, nextCap, nextCap)
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	return s.suggestions(w, r, defaultReady, views.MaxViewLimit)
}

// suggestions answers next and ready: ranked actionable work, role-aware
// with ?role=.
func (s *Server) suggestions(w http.ResponseWriter, r *http.Request, def, ceiling int) error {
	who, err := viewer(r)
	if err != nil {
		return err
	}
	limit, err := limitParam(r, def, ceiling)
	if err != nil {
		return err
	}
	out, err := s.views.Next(r.Context(), r.PathValue("ws"), views.NextParams{Now: s.now(), Who: who,
		Role: strings.TrimSpace(r.URL.Query().Get("role")), Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireNextWork(out))
	return nil
}

func (s *Server) stale(w http.ResponseWriter, r *http.Request) error {
	days, err := queryInt(r, "days", 0)
	if err != nil {
		return err
	}
	limit, err := limitParam(r, views.DefaultViewLimit, views.MaxViewLimit)
	if err != nil {
		return err
	}
	out, err := s.views.Stale(r.Context(), r.PathValue("ws"), views.StaleParams{Now: s.now(), Days: days, Limit: limit,
		Type: strings.TrimSpace(r.URL.Query().Get("type"))})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireStale(out))
	return nil
}

func (s *Server) standup(w http.ResponseWriter, r *http.Request) error {
	days, err := queryInt(r, "days", 1)
	if err != nil {
		return err
	}
	limit, err := limitParam(r, views.DefaultViewLimit, views.MaxViewLimit)
	if err != nil {
		return err
	}
	out, err := s.views.Standup(r.Context(), r.PathValue("ws"), views.StandupParams{Now: s.now(), Days: days, Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireStandup(out))
	return nil
}

func (s *Server) changelog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	days, err := queryInt(r, "days", 0)
	if err != nil {
		return err
	}
	limit, err := limitParam(r, views.DefaultChangelog, views.MaxChangelogLimit)
	if err != nil {
		return err
	}
	out, err := s.views.Changelog(r.Context(), r.PathValue("ws"), views.ChangelogParams{Now: s.now(), Since: q.Get("since"),
		Until: q.Get("until"), Days: days, Parent: q.Get("parent"), Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireChangelog(out))
	return nil
}

// report answers the insights report; a non-numeric or negative offset
// is the current period, as Pad's.
func (s *Server) report(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p := views.ReportParams{Now: s.now(), Window: q.Get("window"), TZ: q.Get("tz"),
		IncludeItems: q.Get("include_items") == "true" || q.Get("include_items") == "1"}
	if n, err := strconv.Atoi(strings.TrimSpace(q.Get("offset"))); err == nil && n > 0 {
		p.Offset = n
	}
	for _, slug := range strings.Split(q.Get("collections"), ",") {
		if slug = strings.TrimSpace(slug); slug != "" {
			p.Collections = append(p.Collections, slug)
		}
	}
	out, err := s.views.Report(r.Context(), r.PathValue("ws"), p)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireReport(out))
	return nil
}

func (s *Server) catchUp(w http.ResponseWriter, r *http.Request) error {
	out, err := s.views.CatchUp(r.Context(), r.PathValue("ws"), views.CatchUpParams{Now: s.now(), Caller: actor(r)})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireCatchUp(out))
	return nil
}

// markSeen moves the caller's seen cursor to now (never backwards); it
// takes no body.
func (s *Server) markSeen(w http.ResponseWriter, r *http.Request) error {
	at, err := s.store.MarkSeen(r.PathValue("ws"), actor(r), s.now())
	if err != nil {
		return err
	}
	writeJSON(w, 200, map[string]string{"seen_at": at.UTC().Format("2006-01-02T15:04:05Z")})
	return nil
}
