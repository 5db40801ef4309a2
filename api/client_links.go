package api

import "context"

// ListLinks answers GET /workspaces/{ws}/items/{ref}/links: the item's
// links in both directions, each in its stored direction.
func (c *Client) ListLinks(ctx context.Context, ws, ref string) ([]ItemLink, error) {
	var out []ItemLink
	_, err := c.Do(ctx, "GET", itemPath(ws, ref)+"/links", nil, nil, &out)
	return out, err
}

// AddLink sends POST /workspaces/{ws}/items/{ref}/links: ref is the
// source; a duplicate is refused with 409 conflict.
func (c *Client) AddLink(ctx context.Context, ws, ref string, in ItemLinkCreate) (*ItemLink, error) {
	var out ItemLink
	if _, err := c.Do(ctx, "POST", itemPath(ws, ref)+"/links", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteLink sends DELETE /workspaces/{ws}/links/{id}.
func (c *Client) DeleteLink(ctx context.Context, ws, id string) error {
	_, err := c.Do(ctx, "DELETE", wsPath(ws)+"/links/"+PathEscape(id), nil, nil, nil)
	return err
}
