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

// AddReaction sends POST /workspaces/{ws}/comments/{id}/reactions: this
// user's emoji reaction on the comment (the one there already, if any).
func (c *Client) AddReaction(ctx context.Context, ws, commentID, emoji string) (*Reaction, error) {
	var out Reaction
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/comments/"+PathEscape(commentID)+"/reactions", nil, ReactionCreate{Emoji: emoji}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveReaction sends DELETE /workspaces/{ws}/comments/{id}/reactions/{emoji}.
func (c *Client) RemoveReaction(ctx context.Context, ws, commentID, emoji string) error {
	_, err := c.Do(ctx, "DELETE", wsPath(ws)+"/comments/"+PathEscape(commentID)+"/reactions/"+PathEscape(emoji), nil, nil, nil)
	return err
}
