package api

import (
	"context"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// ItemQuery is the filter of an item list, in Pad's query vocabulary.
// Zero members are not sent.
type ItemQuery struct {
	// Status values are ORed (sent as one comma-separated status filter).
	Status   []string
	Priority string
	Parent   string // ref, slug or id of the parent
	Tag      string
	Role     string // agent role slug or id
	Assignee string
	// Unparented keeps items with no parent link.
	Unparented bool
	// NonTerminal leaves out items in a terminal state of their collection
	// (done, cancelled, ...): Pad's CLI default when no status is asked.
	NonTerminal     bool
	IncludeArchived bool
	// Fields are arbitrary field filters: key -> values (ORed).
	Fields map[string][]string
	Sort   string // "key[:asc|desc],..."
	Limit  int    // 0 = the server's default (its cap)
	Offset int
}

// Values encodes the query as Pad's list parameters.
func (q ItemQuery) Values() url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	// Field filters first, so a named flag below wins over a --field of
	// the same key.
	keys := make([]string, 0, len(q.Fields))
	for k := range q.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(k, strings.Join(q.Fields[k], ","))
	}
	set("status", strings.Join(q.Status, ","))
	set("priority", q.Priority)
	set("parent", q.Parent)
	set("tag", q.Tag)
	set("agent_role_id", q.Role)
	set("assigned_user_id", q.Assignee)
	set("sort", q.Sort)
	if q.Unparented {
		v.Set("unparented", "true")
	}
	if q.NonTerminal {
		v.Set("non_terminal", "true")
	}
	if q.IncludeArchived {
		v.Set("include_archived", "true")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	return v
}

// Page is the paging state of a list answer (Pad's X-Pad-Has-More and
// X-Pad-Next-Offset headers).
type Page struct {
	HasMore    bool
	NextOffset int
}

func pageOf(r *Response) Page {
	if r == nil {
		return Page{}
	}
	p := Page{HasMore: r.HasMore}
	if n, err := strconv.Atoi(r.Header.Get("X-Pad-Next-Offset")); err == nil {
		p.NextOffset = n
	}
	return p
}

// ListItems lists items of a workspace, or of one collection when coll is
// not empty.
func (c *Client) ListItems(ctx context.Context, ws, coll string, q ItemQuery) ([]Item, Page, error) {
	path := wsPath(ws) + "/items"
	if coll != "" {
		path = collPath(ws, coll) + "/items"
	}
	var out []Item
	r, err := c.Do(ctx, "GET", path, q.Values(), nil, &out)
	return out, pageOf(r), err
}

// GetItem answers GET /workspaces/{ws}/items/{ref}; ref is a PREFIX-N
// ref, a slug or an id. Archived items are returned too.
func (c *Client) GetItem(ctx context.Context, ws, ref string) (*Item, error) {
	return c.itemCall(ctx, "GET", itemPath(ws, ref), nil, nil)
}

// CreateItem sends POST /workspaces/{ws}/collections/{coll}/items.
func (c *Client) CreateItem(ctx context.Context, ws, coll string, in ItemCreate) (*Item, error) {
	return c.itemCall(ctx, "POST", collPath(ws, coll)+"/items", nil, in)
}

// UpdateItem sends PATCH /workspaces/{ws}/items/{ref}.
func (c *Client) UpdateItem(ctx context.Context, ws, ref string, in ItemUpdate) (*Item, error) {
	return c.itemCall(ctx, "PATCH", itemPath(ws, ref), nil, in)
}

// DeleteItem archives an item (Pad's soft delete); RestoreItem undoes it.
func (c *Client) DeleteItem(ctx context.Context, ws, ref string) error {
	_, err := c.Do(ctx, "DELETE", itemPath(ws, ref), nil, nil, nil)
	return err
}

// RestoreItem sends POST /workspaces/{ws}/items/{ref}/restore.
func (c *Client) RestoreItem(ctx context.Context, ws, ref string) (*Item, error) {
	return c.itemCall(ctx, "POST", itemPath(ws, ref)+"/restore", nil, nil)
}

// MoveItem sends POST /workspaces/{ws}/items/{ref}/move.
func (c *Client) MoveItem(ctx context.Context, ws, ref string, in ItemMove) (*Item, error) {
	return c.itemCall(ctx, "POST", itemPath(ws, ref)+"/move", nil, in)
}

// BulkItems sends POST /workspaces/{ws}/items/bulk. Per-item refusals
// come back in the answer's failed rows, not as an error.
func (c *Client) BulkItems(ctx context.Context, ws string, in BulkRequest) (*BulkResponse, error) {
	var out BulkResponse
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/items/bulk", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (c *Client) itemCall(ctx context.Context, method, path string, q url.Values, body any) (*Item, error) {
	var out Item
	if _, err := c.Do(ctx, method, path, q, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func itemPath(ws, ref string) string { return wsPath(ws) + "/items/" + PathEscape(ref) }

// CopyItemPreflight sends POST /workspaces/{ws}/items/{ref}/copy/preflight:
// what a copy would carry, drop and need, changing nothing.
func (c *Client) CopyItemPreflight(ctx context.Context, ws, ref string, in ItemCopyRequest) (*ItemCopyPreflight, error) {
	var out ItemCopyPreflight
	if _, err := c.Do(ctx, "POST", itemPath(ws, ref)+"/copy/preflight", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CopyItem sends POST /workspaces/{ws}/items/{ref}/copy. Give in.OpKey so
// that a retry after a lost answer replays the copy instead of making a
// second one.
func (c *Client) CopyItem(ctx context.Context, ws, ref string, in ItemCopyRequest) (*ItemCopyResult, error) {
	var out ItemCopyResult
	if _, err := c.Do(ctx, "POST", itemPath(ws, ref)+"/copy", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
