package api

import "context"

// Tags sends GET /workspaces/{ws}/tags.
func (c *Client) Tags(ctx context.Context, ws string) ([]TagCount, error) {
	out, err := call[[]TagCount](ctx, c, "GET", wsPath(ws)+"/tags", nil, nil)
	if err != nil {
		return nil, err
	}
	return *out, nil
}
