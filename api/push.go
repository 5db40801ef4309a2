package api

import "context"

// PushRequest is the body of POST .../items/{ref}/push (EVT-03): the
// instruction (white space collapsed to single spaces, at most
// MaxPushMessage characters after that), optionally narrowed to one
// session of GET /sessions, and an idempotency key.
type PushRequest struct {
	Message         string `json:"message"`
	TargetSessionID string `json:"target_session_id,omitempty"`
	OpKey           string `json:"op_key,omitempty"`
}

// PushKind is the kind of a push's notification.
const PushKind = "push"

// MaxPushMessage and MaxPushTargetSession are Pad's bounds, in
// characters: a longer message is refused, not cut.
const (
	MaxPushMessage       = 4096
	MaxPushTargetSession = 256
)

// PushResult answers a push, Pad's shape: the item's ref and workspace,
// the message as delivered, and how many armed sessions had it
// (padd counts the sessions whose stream wrote it, not a prediction).
// push_id is padd's addition: the id the notification carries.
type PushResult struct {
	Ref               string `json:"ref"`
	Workspace         string `json:"workspace"`
	Pushed            bool   `json:"pushed"`
	Message           string `json:"message"`
	DeliveredSessions *int   `json:"delivered_sessions"`
	PushID            string `json:"push_id,omitempty"`
}

// Push sends POST .../items/{ref}/push: the message goes to the user's
// armed sessions (those that opened /events/stream with ?armed=true) as
// a "push" notification. opKey, when set, makes a retry answer the
// first push again instead of sending it twice.
func (c *Client) Push(ctx context.Context, ws, ref, message, opKey string) (*PushResult, error) {
	return call[PushResult](ctx, c, "POST", itemPath(ws, ref)+"/push", nil, PushRequest{Message: message, OpKey: opKey})
}
