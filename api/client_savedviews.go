package api

import "context"

func viewsPath(ws, coll string) string { return collPath(ws, coll) + "/views" }

// ListSavedViews answers GET .../collections/{coll}/views.
func (c *Client) ListSavedViews(ctx context.Context, ws, coll string) ([]SavedView, error) {
	var out []SavedView
	_, err := c.Do(ctx, "GET", viewsPath(ws, coll), nil, nil, &out)
	return out, err
}

// CreateSavedView sends POST .../collections/{coll}/views.
func (c *Client) CreateSavedView(ctx context.Context, ws, coll string, in SavedViewCreate) (*SavedView, error) {
	var out SavedView
	if _, err := c.Do(ctx, "POST", viewsPath(ws, coll), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateSavedView sends PATCH .../collections/{coll}/views/{id}.
func (c *Client) UpdateSavedView(ctx context.Context, ws, coll, id string, in SavedViewUpdate) (*SavedView, error) {
	var out SavedView
	if _, err := c.Do(ctx, "PATCH", viewsPath(ws, coll)+"/"+PathEscape(id), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteSavedView sends DELETE .../collections/{coll}/views/{id}.
func (c *Client) DeleteSavedView(ctx context.Context, ws, coll, id string) error {
	_, err := c.Do(ctx, "DELETE", viewsPath(ws, coll)+"/"+PathEscape(id), nil, nil, nil)
	return err
}
