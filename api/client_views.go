package api

import (
	"context"
	"net/url"
	"time"
)

// The client calls of an item's timeline, the collections' progress
// badges, the graph, the role board and the report layout.

// Timeline reads one page of an item's timeline; before zero is the
// first page, otherwise the last entry's created_at and id.
func (c *Client) Timeline(ctx context.Context, ws, ref string, limit int, before time.Time, beforeID string) (*Timeline, error) {
	v := url.Values{}
	setInt(v, "limit", limit)
	if !before.IsZero() {
		v.Set("before", before.UTC().Format(time.RFC3339Nano))
		setStr(v, "before_id", beforeID)
	}
	return call[Timeline](ctx, c, "GET", itemPath(ws, ref)+"/timeline", v, nil)
}

// ChildProgress reads a collection's children-done rows (archived items
// too with archived); CheckboxProgress its checked-box rows.
func (c *Client) ChildProgress(ctx context.Context, ws, coll string, archived bool) ([]ItemProgress, error) {
	return c.progressRows(ctx, wsPath(ws)+"/collections/"+PathEscape(coll)+"/child-progress", archived)
}

func (c *Client) CheckboxProgress(ctx context.Context, ws, coll string, archived bool) ([]ItemProgress, error) {
	return c.progressRows(ctx, wsPath(ws)+"/collections/"+PathEscape(coll)+"/checkbox-progress", archived)
}

// FieldUsage reads a collection's field usage census.
func (c *Client) FieldUsage(ctx context.Context, ws, coll string) (*FieldUsage, error) {
	return call[FieldUsage](ctx, c, "GET", wsPath(ws)+"/collections/"+PathEscape(coll)+"/field-usage", nil, nil)
}

// PlansProgress reads the plans' children-done rows.
func (c *Client) PlansProgress(ctx context.Context, ws string) ([]ItemProgress, error) {
	return c.progressRows(ctx, wsPath(ws)+"/plans-progress", false)
}

func (c *Client) progressRows(ctx context.Context, path string, archived bool) ([]ItemProgress, error) {
	v := url.Values{}
	if archived {
		v.Set("include_archived", "true")
	}
	var out []ItemProgress
	_, err := c.Do(ctx, "GET", path, v, nil, &out)
	return out, err
}

// Graph reads the workspace graph, or focus's neighbourhood within depth
// hops (0: Pad's default).
func (c *Client) Graph(ctx context.Context, ws string, includeTerminal bool, focus string, depth int) (*Graph, error) {
	v := url.Values{}
	if includeTerminal {
		v.Set("include_terminal", "true")
	}
	setStr(v, "focus", focus)
	setInt(v, "depth", depth)
	return call[Graph](ctx, c, "GET", wsPath(ws)+"/graph", v, nil)
}

// RoleBoard reads the role board, one user's items when assignedUserID
// is set.
func (c *Client) RoleBoard(ctx context.Context, ws, assignedUserID string) (*RoleBoard, error) {
	v := url.Values{}
	setStr(v, "assigned_user_id", assignedUserID)
	return call[RoleBoard](ctx, c, "GET", wsPath(ws)+"/roles/board", v, nil)
}

// ReorderRoleBoard places items in their lanes; ReorderRoleLanes places
// the lanes.
func (c *Client) ReorderRoleBoard(ctx context.Context, ws string, updates []RoleSortUpdate) error {
	_, err := call[Status](ctx, c, "PUT", wsPath(ws)+"/roles/board/reorder", nil, updates)
	return err
}

func (c *Client) ReorderRoleLanes(ctx context.Context, ws string, updates []RoleOrderUpdate) error {
	_, err := call[Status](ctx, c, "PUT", wsPath(ws)+"/roles/board/lane-order", nil, updates)
	return err
}

// ReportLayout reads the report page's layout; SaveReportLayout stores
// one and answers it as stored.
func (c *Client) ReportLayout(ctx context.Context, ws string) (*ReportLayout, error) {
	return call[ReportLayout](ctx, c, "GET", wsPath(ws)+"/report/layout", nil, nil)
}

func (c *Client) SaveReportLayout(ctx context.Context, ws string, l ReportLayout) (*ReportLayout, error) {
	return call[ReportLayout](ctx, c, "PUT", wsPath(ws)+"/report/layout", nil, l)
}
