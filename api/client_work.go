package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/padd/padd/model"
)

// Working an item: leases, reminders, exact-text patches, the work
// brief, and the reads around an item (history, backlinks, deps,
// children, progress, stars).

// NewWorkerID mints a worker id: "wk_" and 128 random bits in hex, the
// form padd checks (model.ValidWorkerID). A client mints one per
// session (or keeps one per user) and sends it as X-Pad-Worker, so its
// leases are told apart from other sessions under the same name.
func NewWorkerID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "wk_" + hex.EncodeToString(b[:])
}

// Claim is the body of a claim or release. Without WorkerID padd takes
// the X-Pad-Worker header (Client.Worker); without Holder, the caller's
// name.
type Claim struct {
	Holder   string `json:"holder,omitempty"`
	WorkerID string `json:"worker_id,omitempty"`
	// TTLSeconds is a claim's lease in whole seconds, empty for padd's
	// default (900); a number as sent, so that padd can refuse 1.5 by
	// name (Seconds makes one).
	TTLSeconds json.Number `json:"ttl_seconds,omitempty"`
}

// Seconds is n as Claim's TTLSeconds: empty for 0, padd's default.
func Seconds(n int64) json.Number {
	if n == 0 {
		return ""
	}
	return json.Number(strconv.FormatInt(n, 10))
}

// ClaimAnswer answers a claim: the lease, with the full worker id (the
// only answer that carries it) and its short display form.
type ClaimAnswer struct {
	Ref        string    `json:"ref"`
	ItemID     string    `json:"item_id"`
	Holder     string    `json:"holder"`
	WorkerID   string    `json:"worker_id,omitempty"`
	Worker     string    `json:"worker,omitempty"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	// Renewed says the caller already held the lease: its expiry moved,
	// acquired_at did not.
	Renewed bool `json:"renewed"`
}

// ReleaseAnswer answers a release; Released is false when there was no
// live lease.
type ReleaseAnswer struct {
	Ref      string `json:"ref"`
	ItemID   string `json:"item_id"`
	Released bool   `json:"released"`
}

// ClaimItem sends POST .../items/{ref}/claim. A live lease of another
// claimant is refused with 409 lease_held.
func (c *Client) ClaimItem(ctx context.Context, ws, ref string, in Claim) (*ClaimAnswer, error) {
	return call[ClaimAnswer](ctx, c, "POST", itemPath(ws, ref)+"/claim", nil, in)
}

// ReleaseItem sends POST .../items/{ref}/release.
func (c *Client) ReleaseItem(ctx context.Context, ws, ref string, in Claim) (*ReleaseAnswer, error) {
	in.TTLSeconds = ""
	return call[ReleaseAnswer](ctx, c, "POST", itemPath(ws, ref)+"/release", nil, in)
}

// ReminderWrite is the body of a reminder write; a nil RemindAt on a
// re-arm keeps the time.
type ReminderWrite struct {
	RemindAt *string `json:"remind_at,omitempty"`
}

// AddReminder sends POST .../items/{ref}/reminders; at is an RFC 3339
// instant.
func (c *Client) AddReminder(ctx context.Context, ws, ref, at string) (*ReminderView, error) {
	return call[ReminderView](ctx, c, "POST", itemPath(ws, ref)+"/reminders", nil, ReminderWrite{&at})
}

// ListReminders answers GET .../items/{ref}/reminders, every state.
func (c *Client) ListReminders(ctx context.Context, ws, ref string) ([]ReminderView, error) {
	var out []ReminderView
	_, err := c.Do(ctx, "GET", itemPath(ws, ref)+"/reminders", nil, nil, &out)
	return out, err
}

// AckReminder sends POST /workspaces/{ws}/reminders/{id}/ack.
func (c *Client) AckReminder(ctx context.Context, ws, id string) (*ReminderView, error) {
	return call[ReminderView](ctx, c, "POST", reminderPath(ws, id)+"/ack", nil, nil)
}

// RearmReminder sends PATCH /workspaces/{ws}/reminders/{id}: both fire
// marks are cleared, and the reminder moves to at when at is not nil.
func (c *Client) RearmReminder(ctx context.Context, ws, id string, at *string) (*ReminderView, error) {
	return call[ReminderView](ctx, c, "PATCH", reminderPath(ws, id), nil, ReminderWrite{at})
}

// RemoveReminder sends DELETE /workspaces/{ws}/reminders/{id}.
func (c *Client) RemoveReminder(ctx context.Context, ws, id string) error {
	_, err := c.Do(ctx, "DELETE", reminderPath(ws, id), nil, nil, nil)
	return err
}

func reminderPath(ws, id string) string { return wsPath(ws) + "/reminders/" + PathEscape(id) }

// Patch is the body of POST .../items/{ref}/patch: exact-text edits of
// the body, or Undo naming an earlier patch.
type Patch struct {
	Edits       []model.PatchEdit `json:"edits,omitempty"`
	Undo        string            `json:"undo,omitempty"`
	ExpectedSeq *int64            `json:"expected_seq,omitempty"`
	// OpKey is Pad's idempotency key in the body (Idempotency-Key in a
	// header does the same).
	OpKey string `json:"op_key,omitempty"`
}

// PatchItem sends POST .../items/{ref}/patch; the answer carries the
// unified diff of the change.
func (c *Client) PatchItem(ctx context.Context, ws, ref string, in Patch) (*model.PatchReply, error) {
	return call[model.PatchReply](ctx, c, "POST", itemPath(ws, ref)+"/patch", nil, in)
}

// ContextQuery is the parameters of an item's work brief: the intent
// conventions are matched on (commit, review, ...), a role slug, and a
// size budget in characters (0 = padd's default).
type ContextQuery struct {
	Intent string
	Role   string
	Budget int
}

// ItemContext answers GET .../items/{ref}/context.
func (c *Client) ItemContext(ctx context.Context, ws, ref string, q ContextQuery) (*model.ContextBrief, error) {
	v := url.Values{}
	setStr(v, "intent", q.Intent)
	setStr(v, "role", q.Role)
	setInt(v, "budget", q.Budget)
	return call[model.ContextBrief](ctx, c, "GET", itemPath(ws, ref)+"/context", v, nil)
}

// ListVersions answers GET .../items/{ref}/versions, newest first;
// limit 0 is every version (padd clamps at 500); summary leaves out the
// bodies.
func (c *Client) ListVersions(ctx context.Context, ws, ref string, limit int, summary bool) ([]ItemVersion, error) {
	v := url.Values{}
	setInt(v, "limit", limit)
	if summary {
		v.Set("summary", "true")
	}
	var out []ItemVersion
	_, err := c.Do(ctx, "GET", itemPath(ws, ref)+"/versions", v, nil, &out)
	return out, err
}

// Backlinks answers GET .../items/{ref}/backlinks: the items whose text
// mentions this one ([[...]]).
func (c *Client) Backlinks(ctx context.Context, ws, ref string, limit, offset int) ([]Backlink, Page, error) {
	var out []Backlink
	r, err := c.Do(ctx, "GET", itemPath(ws, ref)+"/backlinks", pageValues(limit, offset), nil, &out)
	return out, pageOf(r), err
}

// Deps answers GET .../items/{ref}/deps: the blocking graph both ways.
func (c *Client) Deps(ctx context.Context, ws, ref string) (*Deps, error) {
	return call[Deps](ctx, c, "GET", itemPath(ws, ref)+"/deps", nil, nil)
}

// Children answers GET .../items/{ref}/children, in manual order.
func (c *Client) Children(ctx context.Context, ws, ref string, limit, offset int) ([]Item, Page, error) {
	var out []Item
	r, err := c.Do(ctx, "GET", itemPath(ws, ref)+"/children", pageValues(limit, offset), nil, &out)
	return out, pageOf(r), err
}

// Progress answers GET .../items/{ref}/progress: its work children done.
func (c *Client) Progress(ctx context.Context, ws, ref string) (*Progress, error) {
	return call[Progress](ctx, c, "GET", itemPath(ws, ref)+"/progress", nil, nil)
}

// Star sends POST .../items/{ref}/star (starring twice is not an error).
func (c *Client) Star(ctx context.Context, ws, ref string) (*StarState, error) {
	return call[StarState](ctx, c, "POST", itemPath(ws, ref)+"/star", nil, nil)
}

// Unstar sends DELETE .../items/{ref}/star; an item that is not starred
// is refused with 404.
func (c *Client) Unstar(ctx context.Context, ws, ref string) (*StarState, error) {
	return call[StarState](ctx, c, "DELETE", itemPath(ws, ref)+"/star", nil, nil)
}

// Starred answers GET /workspaces/{ws}/starred, newest star first;
// closed items too with includeTerminal.
func (c *Client) Starred(ctx context.Context, ws string, includeTerminal bool, limit, offset int) ([]Item, Page, error) {
	v := pageValues(limit, offset)
	if includeTerminal {
		v.Set("include_terminal", "true")
	}
	var out []Item
	r, err := c.Do(ctx, "GET", wsPath(ws)+"/starred", v, nil, &out)
	return out, pageOf(r), err
}

func pageValues(limit, offset int) url.Values {
	v := url.Values{}
	setInt(v, "limit", limit)
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	}
	return v
}
