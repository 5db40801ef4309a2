package api

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The project views (Pad's pad_project): dashboard, next, ready, stale,
// standup, changelog, report, activity, catch-up and the seen cursor,
// plus the agent bootstrap. The answers' shapes are this package's
// (project.go, bootstrap.go): padd converts its read models to them.
//
// The lease-aware views (dashboard, next, ready, bootstrap) leave out
// work another claimant holds: set Client.Worker to be that claimant.

// Dashboard answers GET /workspaces/{ws}/dashboard.
func (c *Client) Dashboard(ctx context.Context, ws string) (*Dashboard, error) {
	return call[Dashboard](ctx, c, "GET", wsPath(ws)+"/dashboard", nil, nil)
}

// WorkQuery is the parameters of next and ready.
type WorkQuery struct {
	Role  string // an agent role slug: work for that role first
	Limit int    // 0 = padd's default (next answers at most 3)
}

func (q WorkQuery) values() url.Values {
	v := url.Values{}
	setStr(v, "role", q.Role)
	setInt(v, "limit", q.Limit)
	return v
}

// Next answers GET /workspaces/{ws}/next: the few items to do next.
func (c *Client) Next(ctx context.Context, ws string, q WorkQuery) (*NextWork, error) {
	return call[NextWork](ctx, c, "GET", wsPath(ws)+"/next", q.values(), nil)
}

// Ready answers GET /workspaces/{ws}/ready: the actionable backlog.
func (c *Client) Ready(ctx context.Context, ws string, q WorkQuery) (*NextWork, error) {
	return call[NextWork](ctx, c, "GET", wsPath(ws)+"/ready", q.values(), nil)
}

// StaleQuery is the parameters of stale; zero members take padd's
// defaults.
type StaleQuery struct {
	Days  int
	Limit int
	Type  string // blocked, overdue, stalled or out_of_workflow
}

// Stale answers GET /workspaces/{ws}/stale.
func (c *Client) Stale(ctx context.Context, ws string, q StaleQuery) (*StaleReport, error) {
	v := url.Values{}
	setInt(v, "days", q.Days)
	setInt(v, "limit", q.Limit)
	setStr(v, "type", q.Type)
	return call[StaleReport](ctx, c, "GET", wsPath(ws)+"/stale", v, nil)
}

// StandupQuery is the parameters of standup: the lookback in days
// (padd's default 1) and the size of each section.
type StandupQuery struct {
	Days  int
	Limit int
}

// Standup answers GET /workspaces/{ws}/standup.
func (c *Client) Standup(ctx context.Context, ws string, q StandupQuery) (*Standup, error) {
	v := url.Values{}
	setInt(v, "days", q.Days)
	setInt(v, "limit", q.Limit)
	return call[Standup](ctx, c, "GET", wsPath(ws)+"/standup", v, nil)
}

// ChangelogQuery is the parameters of changelog. Since and Until are
// dates (YYYY-MM-DD) or RFC 3339 instants; Days is a lookback instead
// of Since; Parent keeps the children of one plan.
type ChangelogQuery struct {
	Since, Until string
	Days         int
	Parent       string
	Limit        int
}

// Changelog answers GET /workspaces/{ws}/changelog.
func (c *Client) Changelog(ctx context.Context, ws string, q ChangelogQuery) (*Changelog, error) {
	v := url.Values{}
	setStr(v, "since", q.Since)
	setStr(v, "until", q.Until)
	setInt(v, "days", q.Days)
	setStr(v, "parent", q.Parent)
	setInt(v, "limit", q.Limit)
	return call[Changelog](ctx, c, "GET", wsPath(ws)+"/changelog", v, nil)
}

// ReportQuery is the parameters of the insights report.
type ReportQuery struct {
	Window       string // day, week, 2wk or month
	Offset       int    // periods back from the current one
	Collections  []string
	TZ           string // an IANA zone for the buckets (default UTC)
	IncludeItems bool   // list what was completed
}

// Report answers GET /workspaces/{ws}/report.
func (c *Client) Report(ctx context.Context, ws string, q ReportQuery) (*Report, error) {
	v := url.Values{}
	setStr(v, "window", q.Window)
	setInt(v, "offset", q.Offset)
	setStr(v, "collections", strings.Join(q.Collections, ","))
	setStr(v, "tz", q.TZ)
	if q.IncludeItems {
		v.Set("include_items", "true")
	}
	return call[Report](ctx, c, "GET", wsPath(ws)+"/report", v, nil)
}

// ActivityQuery filters the activity feed. Before is the keyset cursor:
// the seq of the last row read (ActivityPage.NextBefore).
type ActivityQuery struct {
	Action, Actor, Source string
	Since                 string // YYYY-MM-DD or an RFC 3339 instant
	Collection            string
	Limit                 int
	Before                int64
}

// ActivityPage is the paging state of an activity answer (X-Pad-Has-More
// and X-Pad-Next-Before).
type ActivityPage struct {
	HasMore    bool
	NextBefore int64
}

// Activity answers GET /workspaces/{ws}/activity, newest first; with a
// ref, GET .../items/{ref}/activity, the feed of one item.
func (c *Client) Activity(ctx context.Context, ws, ref string, q ActivityQuery) ([]Activity, ActivityPage, error) {
	v := url.Values{}
	setStr(v, "action", q.Action)
	setStr(v, "actor", q.Actor)
	setStr(v, "source", q.Source)
	setStr(v, "since", q.Since)
	setStr(v, "collection", q.Collection)
	setInt(v, "limit", q.Limit)
	if q.Before > 0 {
		v.Set("before", strconv.FormatInt(q.Before, 10))
	}
	path := wsPath(ws) + "/activity"
	if ref != "" {
		path = itemPath(ws, ref) + "/activity"
	}
	var out []Activity
	r, err := c.Do(ctx, "GET", path, v, nil, &out)
	var page ActivityPage
	if r != nil {
		page.HasMore = r.HasMore
		page.NextBefore, _ = strconv.ParseInt(r.Header.Get("X-Pad-Next-Before"), 10, 64)
	}
	return out, page, err
}

// CatchUp answers GET /workspaces/{ws}/catch-up: what happened since the
// caller's seen cursor (at most 14 days back), leaving out their own
// actions.
func (c *Client) CatchUp(ctx context.Context, ws string) (*CatchUp, error) {
	return call[CatchUp](ctx, c, "GET", wsPath(ws)+"/catch-up", nil, nil)
}

// Seen answers PUT /workspaces/{ws}/me/seen.
type Seen struct {
	SeenAt time.Time `json:"seen_at"`
}

// MarkSeen sends PUT /workspaces/{ws}/me/seen: the caller's seen cursor
// moves to now (never backwards), so the next catch-up starts there.
func (c *Client) MarkSeen(ctx context.Context, ws string) (*Seen, error) {
	return call[Seen](ctx, c, "PUT", wsPath(ws)+"/me/seen", nil, nil)
}

// Bootstrap answers GET /workspaces/{ws}/agent/bootstrap: what an agent
// reads before it works in a workspace.
func (c *Client) Bootstrap(ctx context.Context, ws string) (*Bootstrap, error) {
	return call[Bootstrap](ctx, c, "GET", wsPath(ws)+"/agent/bootstrap", nil, nil)
}

func setStr(v url.Values, k, val string) {
	if val != "" {
		v.Set(k, val)
	}
}

func setInt(v url.Values, k string, n int) {
	if n != 0 {
		v.Set(k, strconv.Itoa(n))
	}
}
