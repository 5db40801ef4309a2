package remote

import (
	"context"
	"net/url"

	"github.com/padd/padd/api"
)

func commentPath(ws, id string) string { return wsPath(ws) + "/comments/" + url.PathEscape(id) }

// ListComments reads an item's comments, replies included, oldest first.
func (c *Client) ListComments(ctx context.Context, ws, ref string) ([]api.Comment, error) {
	var out []api.Comment
	if _, err := c.do(ctx, "GET", itemPath(ws, ref)+"/comments", nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateComment comments on an item; key as in CreateItem.
func (c *Client) CreateComment(ctx context.Context, ws, ref, body, key string) (*api.Comment, error) {
	return c.postComment(ctx, itemPath(ws, ref)+"/comments", body, key)
}

// Reply answers a comment; key as in CreateItem.
func (c *Client) Reply(ctx context.Context, ws, commentID, body, key string) (*api.Comment, error) {
	return c.postComment(ctx, commentPath(ws, commentID)+"/replies", body, key)
}

func (c *Client) postComment(ctx context.Context, path, body, key string) (*api.Comment, error) {
	in := api.CommentCreate{Body: body, OpKey: c.keyed(key)}
	var out api.Comment
	if _, err := c.send(ctx, &request{method: "POST", path: path, body: in, out: &out, opKey: in.OpKey}); err != nil {
		return nil, err
	}
	return &out, nil
}

// EditComment replaces a comment's body.
func (c *Client) EditComment(ctx context.Context, ws, commentID, body string) (*api.Comment, error) {
	var out api.Comment
	if _, err := c.do(ctx, "PATCH", commentPath(ws, commentID), nil, api.CommentEdit{Body: &body}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteComment deletes a comment (a tombstone where it has replies).
func (c *Client) DeleteComment(ctx context.Context, ws, commentID string) error {
	_, err := c.do(ctx, "DELETE", commentPath(ws, commentID), nil, nil, nil)
	return err
}

// AddReaction reacts to a comment with emoji as the token's user. Pad
// keeps one per user and emoji: the same one again answers the one
// there, so a retry never makes two.
func (c *Client) AddReaction(ctx context.Context, ws, commentID, emoji string) (*api.Reaction, error) {
	var out api.Reaction
	if _, err := c.do(ctx, "POST", commentPath(ws, commentID)+"/reactions", nil, api.ReactionCreate{Emoji: emoji}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveReaction takes back the token's user's emoji reaction.
func (c *Client) RemoveReaction(ctx context.Context, ws, commentID, emoji string) error {
	_, err := c.do(ctx, "DELETE", commentPath(ws, commentID)+"/reactions/"+url.PathEscape(emoji), nil, nil, nil)
	return err
}
