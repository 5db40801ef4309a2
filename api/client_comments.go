package api

import "context"

// ListComments answers GET /workspaces/{ws}/items/{ref}/comments: the
// item's comments, oldest first, replies carrying their parent_id.
func (c *Client) ListComments(ctx context.Context, ws, ref string) ([]Comment, error) {
	var out []Comment
	_, err := c.Do(ctx, "GET", itemPath(ws, ref)+"/comments", nil, nil, &out)
	return out, err
}

// AddComment sends POST /workspaces/{ws}/items/{ref}/comments; with
// ParentID set the comment is a reply.
func (c *Client) AddComment(ctx context.Context, ws, ref string, in CommentCreate) (*Comment, error) {
	var out Comment
	if _, err := c.Do(ctx, "POST", itemPath(ws, ref)+"/comments", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
