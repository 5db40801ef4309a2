package remote

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/padd/padd/api"
)

// Base is the version of an item (or collection) a write was made on;
// the server refuses the write with a conflict if it has moved on since.
// Seq is sent as expected_seq where the server honours it, UpdatedAt as
// expected_updated_at otherwise (whole seconds on the Pad of August
// 2026, so two writes in one second can both pass: see docs/SYNC.md).
// The zero Base sends no guard.
type Base struct {
	Seq       int64
	UpdatedAt time.Time
}

// guard sets the base token of an update body.
func (c *Client) guard(b Base) (seq *int64, updatedAt string) {
	if c.Capabilities().ExpectedSeq && b.Seq > 0 {
		s := b.Seq
		return &s, ""
	}
	if !b.UpdatedAt.IsZero() {
		return nil, b.UpdatedAt.UTC().Format(time.RFC3339Nano)
	}
	return nil, ""
}

// keyed returns the idempotency key to send: key where the server
// advertises idempotency_keys, else none (an ignored key would only
// make Go's transport treat the request as safe to resend).
func (c *Client) keyed(key string) string {
	if c.Capabilities().OpKeys {
		return key
	}
	return ""
}

// GetItem reads one item by ref, slug or id (archived ones too).
func (c *Client) GetItem(ctx context.Context, ws, ref string) (*api.Item, error) {
	var out api.Item
	if _, err := c.do(ctx, "GET", itemPath(ws, ref), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// maxListLimit is the largest page Pad's lists answer: it clamps a
// larger limit to it, so asking more would make a full page look short.
const maxListLimit = 1000

// ListItems reads a page of a collection's items, archived ones
// included, with their bodies; limit is at most 1000 (0 means 1000).
// more says another page may follow: the server's X-Pad-Has-More where
// it sends one, else a full page.
func (c *Client) ListItems(ctx context.Context, ws, coll string, limit, offset int) (items []api.Item, more bool, err error) {
	if limit <= 0 || limit > maxListLimit {
		limit = maxListLimit
	}
	q := url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}, "include_archived": {"true"}}
	h, err := c.do(ctx, "GET", wsPath(ws)+"/collections/"+url.PathEscape(coll)+"/items", q, nil, &items)
	if err != nil {
		return nil, false, err
	}
	switch h.Get("X-Pad-Has-More") {
	case "true":
		return items, true, nil
	case "false":
		return items, false, nil
	}
	return items, len(items) >= limit, nil
}

// CreateItem creates an item in a collection. key (an op_key the caller
// keeps with the outbox entry) is sent only to a server that honours it.
func (c *Client) CreateItem(ctx context.Context, ws, coll string, in api.ItemCreate, key string) (*api.Item, error) {
	in.OpKey = c.keyed(key)
	var out api.Item
	_, err := c.send(ctx, &request{method: "POST", path: wsPath(ws) + "/collections/" + url.PathEscape(coll) + "/items",
		body: in, out: &out, opKey: in.OpKey})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateItem patches an item made on base; the guard members of in are
// set from base (see Base).
func (c *Client) UpdateItem(ctx context.Context, ws, ref string, in api.ItemUpdate, base Base) (*api.Item, error) {
	in.ExpectedSeq, in.ExpectedUpdatedAt = c.guard(base)
	in.OpKey = ""
	var out api.Item
	if _, err := c.do(ctx, "PATCH", itemPath(ws, ref), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AppendToItem appends one implementation note or decision: in carries
// append_implementation_note or append_decision and nothing else. Only
// for a server that advertises item_field_append (the Pad of August 2026
// ignores both members and answers 200 having written nothing); the
// server gives the entry its id and time. key is sent where the server
// honours keys, so that the same append sent again is answered by the
// first; agent, when set, names the agent that wrote the entry
// (X-Pad-Agent), which the server records as its author.
func (c *Client) AppendToItem(ctx context.Context, ws, ref string, in api.ItemUpdate, key, agent string) (*api.Item, error) {
	in.ExpectedSeq, in.ExpectedUpdatedAt = nil, "" // a keyed append carries nothing else, and needs no guard
	in.OpKey = c.keyed(key)
	var h http.Header
	if agent != "" {
		h = http.Header{"X-Pad-Agent": {agent}}
	}
	var out api.Item
	if _, err := c.send(ctx, &request{method: "PATCH", path: itemPath(ws, ref), body: in, out: &out, opKey: in.OpKey, header: h}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ArchiveItem soft-deletes an item (Pad's DELETE).
func (c *Client) ArchiveItem(ctx context.Context, ws, ref string) error {
	_, err := c.do(ctx, "DELETE", itemPath(ws, ref), nil, nil, nil)
	return err
}

// RestoreItem brings an archived item back.
func (c *Client) RestoreItem(ctx context.Context, ws, ref string) (*api.Item, error) {
	var out api.Item
	if _, err := c.do(ctx, "POST", itemPath(ws, ref)+"/restore", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MoveItem moves an item to another collection; its ref changes.
func (c *Client) MoveItem(ctx context.Context, ws, ref, targetCollection string) (*api.Item, error) {
	var out api.Item
	if _, err := c.do(ctx, "POST", itemPath(ws, ref)+"/move", nil, api.ItemMove{TargetCollection: targetCollection}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Search runs a full-text search (paced by Pad's search bucket too).
// q.Workspace names the remote workspace.
func (c *Client) Search(ctx context.Context, q api.SearchQuery) (*api.SearchResponse, error) {
	var out api.SearchResponse
	if _, err := c.do(ctx, "GET", "/search", q.Values(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
