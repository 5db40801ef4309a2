package api

import (
	"context"
	"time"
)

// Watch is Pad's watch (EVT-02): the local user's durable subscription
// to an item, with the item's names as GET /watches lists it.
type Watch struct {
	ID            string    `json:"id"`
	WorkspaceID   string    `json:"workspace_id"`
	UserID        string    `json:"user_id"`
	ItemID        string    `json:"item_id"`
	Predicate     string    `json:"predicate,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	ItemRef       string    `json:"item_ref,omitempty"`
	ItemTitle     string    `json:"item_title,omitempty"`
	ItemSlug      string    `json:"item_slug,omitempty"`
	WorkspaceSlug string    `json:"workspace_slug,omitempty"`
}

// WatchCreate is the body of POST .../items/{ref}/watch; no body is an
// unconditional watch.
type WatchCreate struct {
	Predicate string `json:"predicate,omitempty"`
}

// Unwatched answers DELETE .../items/{ref}/watch.
type Unwatched struct {
	Ref     string `json:"ref"`
	Watched bool   `json:"watched"`
}

// WatchNotification is the data of a "notification" event on
// /events/stream, Pad's shape: kind is status-change, assignment or
// comment, or push (EVT-03: an instruction the user sent to their own
// armed sessions, its summary the message, its push_id one per push, so
// a watcher that hears a push twice can tell); ts is unix milliseconds;
// actor a name (else the actor's kind).
type WatchNotification struct {
	ID        int64  `json:"id"`
	Ts        int64  `json:"ts"`
	Workspace string `json:"workspace"`
	ItemRef   string `json:"item_ref"`
	Kind      string `json:"kind"`
	Actor     string `json:"actor"`
	Summary   string `json:"summary"`
	PushID    string `json:"push_id,omitempty"`
}

// LiveSession is one open /events/stream connection, as its client
// announced itself (X-Pad-Session-Label, X-Pad-Session-Pid, ?armed=true).
type LiveSession struct {
	ID          string    `json:"id"`
	Label       string    `json:"label,omitempty"`
	PID         int       `json:"pid,omitempty"`
	Armed       bool      `json:"armed"`
	ConnectedAt time.Time `json:"connected_at"`
}

// Sessions answers GET /api/v1/sessions.
type Sessions struct {
	Sessions []LiveSession `json:"sessions"`
	Count    int           `json:"count"`
}

// Watch sends POST .../items/{ref}/watch; predicate "" watches every
// status change, assignment and comment, "field=value" only the status
// change to that value.
func (c *Client) Watch(ctx context.Context, ws, ref, predicate string) (*Watch, error) {
	var body any
	if predicate != "" {
		body = WatchCreate{Predicate: predicate}
	}
	return call[Watch](ctx, c, "POST", itemPath(ws, ref)+"/watch", nil, body)
}

// Unwatch sends DELETE .../items/{ref}/watch; an item not watched is
// refused with 404.
func (c *Client) Unwatch(ctx context.Context, ws, ref string) (*Unwatched, error) {
	return call[Unwatched](ctx, c, "DELETE", itemPath(ws, ref)+"/watch", nil, nil)
}

// Watches answers GET /api/v1/watches: every watch, newest first.
func (c *Client) Watches(ctx context.Context) ([]Watch, error) {
	out, err := call[[]Watch](ctx, c, "GET", "/watches", nil, nil)
	if err != nil {
		return nil, err
	}
	return *out, nil
}
