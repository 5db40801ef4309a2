package records

import (
	"encoding/json"
	"time"

	"github.com/padd/padd/model"
)

// The sync engine's cursors and in-flight record, in the workspace's sync
// bucket. Cursors are committed with the pulled page they cover
// (storage's SyncTx), so a restart never pulls it again; the in-flight
// record is committed before a write is sent, so a padd killed
// mid-request finds it at start and treats that write's outcome as
// unknown.

// SyncCursors are where each of the remote's feeds was last read up to.
type SyncCursors struct {
	// ItemsChangesSeq is the items-changes feed's cursor.
	ItemsChangesSeq int64 `json:"items_changes_seq,omitempty"`
	// ChangesSince is /changes' since (the server_time it last answered
	// with has_more false); ChangesCursor its cursor within a walk.
	ChangesSince  string `json:"changes_since,omitempty"`
	ChangesCursor string `json:"changes_cursor,omitempty"`
	// EventID is the remote event stream's last event id.
	EventID string `json:"event_id,omitempty"`
	// ActivityID and ActivityAt are the newest activity row seen: the
	// high-water mark comments made while offline are found back to.
	ActivityID string    `json:"activity_id,omitempty"`
	ActivityAt time.Time `json:"activity_at,omitzero"`
}

// SyncInFlight is a create the engine sent or was about to send.
type SyncInFlight struct {
	// OutboxSeq is the outbox entry it pushes (0 for a bootstrap push).
	OutboxSeq int64  `json:"outbox_seq,omitempty"`
	OpKey     string `json:"op_key"`
	// Entity and LocalID name what is created (model.EntityItem or
	// model.EntityComment); RemoteItem is a comment's item on the remote.
	Entity     string `json:"entity,omitempty"`
	LocalID    string `json:"local_id,omitempty"`
	RemoteItem string `json:"remote_item,omitempty"`
	// SentAt is padd's own clock (time.Now, UTC) just before the request
	// went out: the settle delay counts from it. CursorBefore is the
	// items-changes cursor before it.
	SentAt       time.Time `json:"sent_at"`
	CursorBefore int64     `json:"cursor_before"`
	// ServerSentAt is the server's clock at the send, as padd estimates
	// it from the server's own Date headers (remote.Client.ServerNow; up
	// to a second behind): what the server made for this request has a
	// created_at no earlier than it, whatever the laptop's clock says.
	// Zero when no answer has told it (and in records from before).
	ServerSentAt time.Time `json:"server_sent_at,omitzero"`
	// SettleAt is when the server has surely finished with the request,
	// set when its outcome became unknown: soon after a failure that came
	// fast (a connection closed or refused on the way), the settle time
	// after one that came slowly (a timeout: the server may still be at
	// it). Zero: SentAt plus the settle time.
	SettleAt time.Time `json:"settle_at,omitzero"`
	// RemoteUser is the user padd writes as on the remote (its token's):
	// a comment another user wrote there is never taken for this one.
	RemoteUser string `json:"remote_user,omitempty"`
	// Title and Fingerprint are what an item create sent (its title, and
	// a hash of its content and tags): the created item is recognised by
	// either, since someone may edit the other before padd looks.
	Title       string `json:"title,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Request is the create as it went out, in the engine's encoding: a
	// server with idempotency keys answers a key again only for the same
	// request, so that is what is sent again, whatever was edited since.
	Request json.RawMessage `json:"request,omitempty"`
}

var (
	KCursors  = []byte("cursors")
	KInFlight = []byte("inflight")
)

// SyncRecord reads one JSON record of the sync bucket into v; false when
// there is none.
func SyncRecord(b *Wsb, key []byte, v any) (bool, error) {
	raw := b.Sync().Get(key)
	if raw == nil {
		return false, nil
	}
	if err := Decode(raw, v); err != nil {
		return false, model.Errorf(model.CodeStoredStateUnreadable, "stored sync %s of workspace %s is unreadable: %v", key, b.ID, err)
	}
	return true, nil
}

func PutSyncRecord(b *Wsb, key []byte, v any) error {
	if !Linked(b) {
		return model.Conflict("workspace is not linked to a remote")
	}
	raw, err := Encode(v)
	if err != nil {
		return err
	}
	return b.Sync().Put(key, raw)
}

func SetInFlight(b *Wsb, f SyncInFlight) error {
	if f.OpKey == "" || f.LocalID == "" {
		return model.Invalid("an in-flight record names its op key and the entity it creates")
	}
	return PutSyncRecord(b, KInFlight, f)
}

// AckOutbox deletes the queued changes up to through, starting from the
// first key after each delete (ClearBucket says why).
func AckOutbox(b *Wsb, through int64) error {
	c := b.Outbox().Cursor()
	for k, _ := c.First(); k != nil && int64(GetU64(k)) <= through; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}
