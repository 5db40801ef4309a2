package remote

import (
	"context"
	"net/url"
	"strconv"
)

// Stars are the token's user's personal pins. Pad keeps them per user,
// so the remote's are this padd user's own.

// maxStarredPages bounds the starred walk: a remote that says "more"
// forever is not followed past it.
const maxStarredPages = 100

// StarredIDs reads the ids of every item the user has starred, done and
// abandoned ones too.
func (c *Client) StarredIDs(ctx context.Context, ws string) ([]string, error) {
	var ids []string
	for page, offset := 0, 0; page < maxStarredPages; page++ {
		q := url.Values{"include_terminal": {"true"}, "summary": {"true"},
			"limit": {strconv.Itoa(maxListLimit)}, "offset": {strconv.Itoa(offset)}}
		var items []struct {
			ID string `json:"id"`
		}
		h, err := c.do(ctx, "GET", wsPath(ws)+"/starred", q, nil, &items)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		offset += len(items)
		more := h.Get("X-Pad-Has-More")
		if more == "false" || (more == "" && len(items) < maxListLimit) || len(items) == 0 {
			break
		}
	}
	return ids, nil
}

// SetStar stars or unstars an item (by ref, slug or id). Unstarring an
// item that is not starred is not an error: the outcome is the same.
func (c *Client) SetStar(ctx context.Context, ws, ref string, star bool) error {
	method := "POST"
	if !star {
		method = "DELETE"
	}
	_, err := c.do(ctx, method, itemPath(ws, ref)+"/star", nil, nil, nil)
	if !star && IsNotFound(err) && !IsWorkspaceGone(err) {
		// Pad's "Item is not starred" (or an item gone: no star either).
		return nil
	}
	return err
}
