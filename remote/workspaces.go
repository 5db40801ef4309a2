package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/padd/padd/api"
)

// ListWorkspaces reads the workspaces the token's user can see.
func (c *Client) ListWorkspaces(ctx context.Context) ([]api.Workspace, error) {
	var out []api.Workspace
	if _, err := c.do(ctx, "GET", "/workspaces", nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetWorkspace reads one workspace by slug or id.
func (c *Client) GetWorkspace(ctx context.Context, ws string) (*api.Workspace, error) {
	var out api.Workspace
	if _, err := c.do(ctx, "GET", wsPath(ws), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListCollections reads a workspace's collections; schema and settings
// are JSON text, as Pad sends them.
func (c *Client) ListCollections(ctx context.Context, ws string) ([]api.Collection, error) {
	var out []api.Collection
	if _, err := c.do(ctx, "GET", wsPath(ws)+"/collections", nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateCollection creates a collection. Schema and settings go as JSON
// text (asText).
func (c *Client) CreateCollection(ctx context.Context, ws string, in api.CollectionCreate) (*api.Collection, error) {
	in.Schema, in.Settings = asText(in.Schema), asText(in.Settings)
	var out api.Collection
	if _, err := c.do(ctx, "POST", wsPath(ws)+"/collections", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateCollection patches a collection (its schema, settings, ...)
// made on the collection's updated_at base (zero: no guard). Schema and
// settings go as JSON text (asText). A stale base is a 409 (AsConflict):
// Pad's collection tokens are below the second, so the base is sent as
// the server wrote it.
func (c *Client) UpdateCollection(ctx context.Context, ws, coll string, in api.CollectionUpdate, base time.Time) (*api.Collection, error) {
	in.Schema, in.Settings = asText(in.Schema), asText(in.Settings)
	in.ExpectedUpdatedAt = ""
	if !base.IsZero() {
		in.ExpectedUpdatedAt = base.UTC().Format(time.RFC3339Nano)
	}
	var out api.Collection
	if _, err := c.do(ctx, "PATCH", wsPath(ws)+"/collections/"+url.PathEscape(coll), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// asText is a request member as JSON text: Pad reads a collection's
// schema only as a JSON-encoded string (an object is 400 bad_request)
// and takes settings either way, so both go as text. Text, null and an
// absent member stay as they are.
func asText(f api.Flex) api.Flex {
	if !f.Present() || bytes.TrimSpace(f)[0] == '"' {
		return f
	}
	b, err := json.Marshal(string(f))
	if err != nil {
		return f
	}
	return api.Flex(b)
}
