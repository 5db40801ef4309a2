package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/padd/padd/api"
)

// The bootstrap is one-shot context for an agent entering a workspace:
// the same document answers pad_set_workspace, pad_meta bootstrap and
// pad://workspace/{ws}/bootstrap. padd serves it (GET .../agent/bootstrap,
// with the dashboard arrays capped at five and *_overflow_count beside
// them), as it serves the dashboard. A padd older than this padctl has
// neither route; then the two are assembled here from the routes every
// padd has (minimalBootstrap, minimalDashboard), so an agent still gets
// the collections and schemas it needs to work.

// bootstrap answers the workspace's bootstrap and its canonical slug.
// padd's document is passed through as it came (json.RawMessage keeps
// every number's digits).
func bootstrap(ctx context.Context, p *paddConn, ws string) (any, string, error) {
	var raw json.RawMessage
	_, err := p.do(ctx, "GET", wsPath(ws)+"/agent/bootstrap", nil, nil, &raw)
	if noRoute(err) {
		min, err := minimalBootstrap(ctx, p, ws)
		if err != nil {
			return nil, "", err
		}
		return min, min.Workspace.Slug, nil
	}
	if err != nil {
		return nil, "", err
	}
	var doc struct {
		Workspace struct {
			Slug string `json:"slug"`
		} `json:"workspace"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, "", fmt.Errorf("padd's bootstrap is not the expected document: %w", err)
	}
	return raw, doc.Workspace.Slug, nil
}

// dashboardOf answers the workspace's dashboard.
func dashboardOf(ctx context.Context, p *paddConn, ws string) (any, error) {
	var raw json.RawMessage
	_, err := p.do(ctx, "GET", wsPath(ws)+"/dashboard", nil, nil, &raw)
	if noRoute(err) {
		cs, err := listCollections(ctx, p, ws)
		if err != nil {
			return nil, err
		}
		return minimalDashboard(ctx, p, ws, cs)
	}
	return raw, err
}

// dashboardCap bounds each dashboard array; the *_overflow_count beside
// it says how many more there are (Pad's BootstrapDashboard).
const dashboardCap = 5

// bootstrapDoc is the minimal bootstrap document.
type bootstrapDoc struct {
	Workspace   bootstrapWorkspace `json:"workspace"`
	Collections []collectionOut    `json:"collections"`
	Roles       []bootstrapRole    `json:"roles"`
	Conventions []any              `json:"conventions"`
	Playbooks   []any              `json:"playbooks"`
	Dashboard   *dashboard         `json:"dashboard"`
	Notes       []string           `json:"notes,omitempty"`
}

type bootstrapWorkspace struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// bootstrapRole is Pad's BootstrapRole projection: no ids, timestamps or
// tools.
type bootstrapRole struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Icon        string `json:"icon,omitempty"`
	Description string `json:"description,omitempty"`
}

// dashboard is the minimal dashboard that can be computed honestly from
// item lists and collection counts: open and closed counts, and the most
// recently touched open work, capped at five per array.
type dashboard struct {
	Minimal                  bool          `json:"minimal"`
	Summary                  dashSummary   `json:"summary"`
	ActiveItems              []itemSummary `json:"active_items"`
	ActiveItemsOverflowCount int           `json:"active_items_overflow_count"`
	ActivePlans              []itemSummary `json:"active_plans"`
	ActivePlansOverflowCount int           `json:"active_plans_overflow_count"`
	Note                     string        `json:"note"`
}

type dashSummary struct {
	TotalItems   int             `json:"total_items"`
	OpenItems    int             `json:"open_items"`
	ClosedItems  int             `json:"closed_items"`
	ByCollection []dashCollCount `json:"by_collection"`
}

type dashCollCount struct {
	Collection string `json:"collection"`
	Total      int    `json:"total"`
	Open       int    `json:"open"`
	TracksWork bool   `json:"tracks_work"`
}

// plansCollection is the template collection whose open items are plans.
const plansCollection = "plans"

func minimalBootstrap(ctx context.Context, p *paddConn, ws string) (*bootstrapDoc, error) {
	var w api.Workspace
	if _, err := p.do(ctx, "GET", wsPath(ws), nil, nil, &w); err != nil {
		return nil, err
	}
	cs, err := listCollections(ctx, p, w.Slug)
	if err != nil {
		return nil, err
	}
	doc := &bootstrapDoc{
		Workspace:   bootstrapWorkspace{Slug: w.Slug, Name: w.Name, Description: w.Description},
		Collections: shapeCollections(cs, bootstrapCollection),
		Roles:       []bootstrapRole{},
		Conventions: []any{},
		Playbooks:   []any{},
		Notes: []string{"this padd serves no bootstrap: this one is assembled from collections and item lists; " +
			"conventions and playbooks are items of their collections (pad_item list collection=conventions)"},
	}
	// Decoding into the projection drops what it leaves out.
	if _, err := p.do(ctx, "GET", wsPath(w.Slug)+"/agent-roles", nil, nil, &doc.Roles); err != nil {
		if !noRoute(err) {
			return nil, err
		}
		doc.Notes = append(doc.Notes, "agent roles are not served by this padd yet")
	}
	if doc.Roles == nil {
		doc.Roles = []bootstrapRole{}
	}
	if doc.Dashboard, err = minimalDashboard(ctx, p, w.Slug, cs); err != nil {
		return nil, err
	}
	return doc, nil
}

// minimalDashboard computes the minimal dashboard. Counts come from the
// collections' own counts (exact, no paging); the arrays from one list of
// open items each, so the cost stays flat as the workspace grows.
func minimalDashboard(ctx context.Context, p *paddConn, ws string, cs []api.Collection) (*dashboard, error) {
	d := &dashboard{Minimal: true, ActiveItems: []itemSummary{}, ActivePlans: []itemSummary{},
		Summary: dashSummary{ByCollection: []dashCollCount{}},
		Note:    "this padd serves no dashboard: this minimal one has counts and recently updated open work, no attention or suggestions"}
	work := map[string]bool{}
	openWork, openPlans := 0, 0
	for _, c := range cs {
		d.Summary.TotalItems += c.ItemCount
		d.Summary.OpenItems += c.ActiveItemCount
		d.Summary.ByCollection = append(d.Summary.ByCollection, dashCollCount{Collection: c.Slug, Total: c.ItemCount,
			Open: c.ActiveItemCount, TracksWork: c.TracksWork})
		switch {
		case c.Slug == plansCollection:
			openPlans = c.ActiveItemCount
		case c.TracksWork:
			work[c.Slug] = true
			openWork += c.ActiveItemCount
		}
	}
	d.Summary.ClosedItems = d.Summary.TotalItems - d.Summary.OpenItems
	if openWork > 0 {
		// Open items come newest-updated first; reference collections and
		// plans are skipped, so ask for more than five.
		items, err := openItems(ctx, p, wsPath(ws)+"/items", 50)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if work[it.CollectionSlug] && len(d.ActiveItems) < dashboardCap {
				d.ActiveItems = append(d.ActiveItems, summarize(it))
			}
		}
		d.ActiveItemsOverflowCount = max(openWork-len(d.ActiveItems), 0)
	}
	if openPlans > 0 {
		items, err := openItems(ctx, p, collPath(ws, plansCollection)+"/items", dashboardCap)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			d.ActivePlans = append(d.ActivePlans, summarize(it))
		}
		d.ActivePlansOverflowCount = max(openPlans-len(d.ActivePlans), 0)
	}
	return d, nil
}

func openItems(ctx context.Context, p *paddConn, path string, limit int) ([]api.Item, error) {
	var items []api.Item
	q := url.Values{"non_terminal": {"true"}, "limit": {strconv.Itoa(limit)}}
	_, err := p.do(ctx, "GET", path, q, nil, &items)
	return items, err
}
