package views

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The audit log (Pad's WS-08, GET /api/v1/audit-log): the activity feeds
// of every live workspace, or of one, merged newest first. On Pad it is
// the admin's view of every user's actions; on padd, whose one user is
// its admin, it is the feeds of all the workspaces in one list.

// Audit-log bounds. A page is merged from each workspace's newest
// Offset+Limit entries, so that sum is bounded: an older entry is read
// through a narrower filter (days, action, workspace) or the workspace's
// own feed, which pages by keyset.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 200
	MaxAuditReach     = 1_000 // Offset + Limit
	DefaultAuditDays  = 30    // Pad's default window
	MaxAuditDays      = 36_500
)

// AuditQuery filters the audit log. Every filter applies before Limit.
type AuditQuery struct {
	// Workspace is a workspace's slug or id; "" is every live workspace.
	Workspace string
	Action    string
	Actor     string // "user" or "agent"
	// Since is the oldest time an entry may have (whole seconds, UTC).
	Since         time.Time
	Limit, Offset int
}

// AuditPage is one page of the audit log, newest first.
type AuditPage struct {
	Entries []ActivityView
	HasMore bool
}

// AuditLog reads the audit log. Entries of the same second are ordered
// by workspace, then newest first within it, so pages are stable.
func (s *Views) AuditLog(ctx context.Context, q AuditQuery) (*AuditPage, error) {
	switch q.Actor {
	case "", model.ActorUser, model.ActorAgent:
	default:
		return nil, model.Invalid("actor must be %q or %q", model.ActorUser, model.ActorAgent).With("actor", q.Actor)
	}
	limit := records.BoundLimit(q.Limit, DefaultAuditLimit, MaxAuditLimit)
	if q.Offset < 0 || q.Offset+limit > MaxAuditReach {
		return nil, model.BadRequest("offset plus limit may be at most %d; narrow the log with days, action or workspace, or page one workspace's activity feed",
			MaxAuditReach).With("param", "offset").With("limit", MaxAuditReach)
	}
	var wss []model.Workspace
	if q.Workspace != "" {
		w, err := s.GetWorkspace(q.Workspace)
		if err != nil {
			return nil, err
		}
		wss = []model.Workspace{*w}
	} else {
		var err error
		if wss, err = s.ListWorkspaces(); err != nil {
			return nil, err
		}
	}
	reach := q.Offset + limit
	since := ""
	if !q.Since.IsZero() {
		since = q.Since.UTC().Format(time.RFC3339)
	}
	out := &AuditPage{Entries: []ActivityView{}}
	var all []ActivityView
	for _, w := range wss {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page, err := s.ListActivity(ctx, w.ID, ActivityQuery{Action: q.Action, Actor: q.Actor,
			Since: since, Limit: reach})
		if err != nil {
			return nil, err
		}
		all = append(all, page.Entries...)
		out.HasMore = out.HasMore || page.HasMore
	}
	slices.SortFunc(all, func(a, b ActivityView) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		if c := cmp.Compare(a.WorkspaceID, b.WorkspaceID); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
	if len(all) > reach {
		out.HasMore = true
	}
	if q.Offset < len(all) {
		out.Entries = all[q.Offset:min(len(all), reach)]
	}
	return out, nil
}
