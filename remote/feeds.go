package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/padd/padd/api"
)

// The sync feeds. /items-index and /items-changes follow a workspace by
// its seq (skinny rows: no bodies); /changes by time, with bodies.
// Comments bump no seq on the Pad of August 2026: they come through the
// event stream, /activity and the comment lists.

// Seq is a cursor of the seq feeds. Pad sends it as a decimal string;
// a number is read too.
type Seq int64

// UnmarshalJSON reads "12", 12 or "" (0).
func (s *Seq) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var t string
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		b = []byte(t)
	}
	if len(b) == 0 || string(b) == "null" {
		*s = 0
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("cursor %q is not a seq", b)
	}
	*s = Seq(n)
	return nil
}

// ItemsIndex answers /items-index: every item of the workspace, skinny,
// and the seq to follow with ItemsChanges (taken before the list, so no
// change falls between). remote's own type: api's has the cursor as text.
type ItemsIndex struct {
	Items  []api.SyncItem `json:"items"`
	Total  int            `json:"total"`
	Cursor Seq            `json:"cursor"`
}

// ItemsChanges answers /items-changes: the items changed after a seq, in
// seq order, each once, skinny, with deleted. Cursor is the next since
// (the since given when the page is empty).
type ItemsChanges struct {
	Changes []api.SyncItem `json:"changes"`
	Cursor  Seq            `json:"cursor"`
}

// ItemsIndex reads the bootstrap list, archived items included. It is
// one answer for the whole workspace, hence the larger cap.
func (c *Client) ItemsIndex(ctx context.Context, ws string) (*ItemsIndex, error) {
	var out ItemsIndex
	_, err := c.send(ctx, &request{method: "GET", path: wsPath(ws) + "/items-index",
		query: url.Values{"include_archived": {"true"}}, out: &out, limit: MaxWholeAnswerBytes})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ItemsChanges reads one page of the seq feed after since; limit 0
// leaves the server's default.
func (c *Client) ItemsChanges(ctx context.Context, ws string, since Seq, limit int) (*ItemsChanges, error) {
	q := url.Values{"since": {strconv.FormatInt(int64(since), 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out ItemsChanges
	if _, err := c.do(ctx, "GET", wsPath(ws)+"/items-changes", q, nil, &out); err != nil {
		return nil, err
	}
	if out.Cursor < since {
		return nil, &Error{Kind: KindBadAnswer, Method: "GET", Path: wsPath(ws) + "/items-changes", Status: 200,
			Err: fmt.Errorf("cursor %d went back before since %d", out.Cursor, since)}
	}
	return &out, nil
}

// ChangesQuery asks one page of /changes: Since (unix ms) starts a walk,
// Cursor continues one (sent alone), Limit (0: the server's) sizes it.
type ChangesQuery struct {
	Since  int64
	Cursor string
	Limit  int
}

// Changes reads one page of the time feed: full items changed at or
// after since (the bound is inclusive and whole seconds on the Pad of
// August 2026, so rows repeat). Items holds them under either name Pad
// used (items, updated). A server without paging answers everything at
// once, hence the larger cap; HasMore says another page follows.
func (c *Client) Changes(ctx context.Context, ws string, in ChangesQuery) (*api.Changes, error) {
	q := url.Values{}
	if in.Cursor != "" {
		q.Set("cursor", in.Cursor)
	} else {
		q.Set("since", strconv.FormatInt(in.Since, 10))
	}
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	var out api.Changes
	if _, err := c.send(ctx, &request{method: "GET", path: wsPath(ws) + "/changes", query: q, out: &out, limit: MaxWholeAnswerBytes}); err != nil {
		return nil, err
	}
	if len(out.Items) == 0 {
		out.Items = out.Updated
	}
	out.Updated = nil
	return &out, nil
}

// ActivityQuery asks a page of the activity feed, newest first. Limit
// 0 leaves the server's default. Before and BeforeID continue below the
// last row held (its created_at and id); Pad servers before that keyset
// ignore them and answer the newest rows again.
type ActivityQuery struct {
	Limit int
	// Before and BeforeID are the keyset of the last row read (padd pages
	// so); Offset is how many rows were read (Pad pages so).
	Before   time.Time
	BeforeID string
	Offset   int
}

// Activity reads a page of the workspace's activity. After time offline,
// the comment rows there say which items' comment lists to read.
func (c *Client) Activity(ctx context.Context, ws string, in ActivityQuery) ([]api.Activity, error) {
	q := url.Values{}
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	if !in.Before.IsZero() && in.BeforeID != "" {
		q.Set("before", in.Before.UTC().Format(time.RFC3339Nano))
		q.Set("before_id", in.BeforeID)
	}
	if in.Offset > 0 {
		q.Set("offset", strconv.Itoa(in.Offset))
	}
	var out []api.Activity
	if _, err := c.do(ctx, "GET", wsPath(ws)+"/activity", q, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
