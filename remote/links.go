package remote

import (
	"context"
	"net/url"

	"github.com/padd/padd/api"
)

// ListLinks reads an item's links in both directions.
func (c *Client) ListLinks(ctx context.Context, ws, ref string) ([]api.ItemLink, error) {
	var out []api.ItemLink
	if _, err := c.do(ctx, "GET", itemPath(ws, ref)+"/links", nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateLink links ref (the source) to targetID with linkType ("blocks"
// when empty). The server refuses a duplicate with 409 conflict, which
// is how a retry after an unknown outcome learns the link exists.
func (c *Client) CreateLink(ctx context.Context, ws, ref, targetID, linkType string) (*api.ItemLink, error) {
	var out api.ItemLink
	in := api.ItemLinkCreate{TargetID: targetID, LinkType: linkType}
	if _, err := c.do(ctx, "POST", itemPath(ws, ref)+"/links", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteLink removes a link by id.
func (c *Client) DeleteLink(ctx context.Context, ws, id string) error {
	_, err := c.do(ctx, "DELETE", wsPath(ws)+"/links/"+url.PathEscape(id), nil, nil, nil)
	return err
}
