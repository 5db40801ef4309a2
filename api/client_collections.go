package api

import (
	"context"
	"time"
)

// ArchivedCollection is one row of GET .../archived-collections.
type ArchivedCollection struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Slug       string     `json:"slug"`
	Prefix     string     `json:"prefix"`
	Icon       string     `json:"icon"`
	ItemCount  int        `json:"item_count"`
	ArchivedAt *time.Time `json:"archived_at"`
}

// ListCollections answers GET /workspaces/{ws}/collections.
func (c *Client) ListCollections(ctx context.Context, ws string) ([]Collection, error) {
	var out []Collection
	_, err := c.Do(ctx, "GET", wsPath(ws)+"/collections", nil, nil, &out)
	return out, err
}

// GetCollection answers GET /workspaces/{ws}/collections/{coll}; coll is
// a slug, id or alias (padd resolves "task" to "tasks").
func (c *Client) GetCollection(ctx context.Context, ws, coll string) (*Collection, error) {
	var out Collection
	if _, err := c.Do(ctx, "GET", collPath(ws, coll), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateCollection sends POST /workspaces/{ws}/collections.
func (c *Client) CreateCollection(ctx context.Context, ws string, in CollectionCreate) (*Collection, error) {
	var out Collection
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/collections", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateCollection sends PATCH /workspaces/{ws}/collections/{coll}. The
// answer may carry warnings (values orphaned by a schema change).
func (c *Client) UpdateCollection(ctx context.Context, ws, coll string, in CollectionUpdate) (*Collection, error) {
	var out Collection
	if _, err := c.Do(ctx, "PATCH", collPath(ws, coll), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ArchiveCollection sends DELETE /workspaces/{ws}/collections/{coll}: the
// collection and its items are hidden until restored.
func (c *Client) ArchiveCollection(ctx context.Context, ws, coll string) error {
	_, err := c.Do(ctx, "DELETE", collPath(ws, coll), nil, nil, nil)
	return err
}

// ListArchivedCollections answers GET /workspaces/{ws}/archived-collections.
func (c *Client) ListArchivedCollections(ctx context.Context, ws string) ([]ArchivedCollection, error) {
	var out []ArchivedCollection
	_, err := c.Do(ctx, "GET", wsPath(ws)+"/archived-collections", nil, nil, &out)
	return out, err
}

// RestoreCollection sends POST .../archived-collections/{coll}/restore.
func (c *Client) RestoreCollection(ctx context.Context, ws, coll string) (*Collection, error) {
	var out Collection
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/archived-collections/"+PathEscape(coll)+"/restore", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func collPath(ws, coll string) string { return wsPath(ws) + "/collections/" + PathEscape(coll) }
