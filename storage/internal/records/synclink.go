package records

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/padd/padd/model"
)

// A workspace's link to a remote Pad: the record the sync engine starts
// from. While it exists, every local mutation (not the engine's own, whose
// actor source is "sync") is queued in the outbox in its own transaction
// (storage/tx.go's stamp), and items made here get provisional numbers
// (storage/provisional.go).

// LinkState is what the sync engine may do for a linked workspace.
type LinkState string

const (
	LinkActive       LinkState = "active"        // syncing (or waiting for its next try)
	LinkPaused       LinkState = "paused"        // the user paused it
	LinkTokenRefused LinkState = "token_refused" // 401/403: stopped until the user acts
	LinkRemoteGone   LinkState = "remote_gone"   // the remote workspace is gone: stopped
)

func (s LinkState) valid() bool {
	switch s {
	case LinkActive, LinkPaused, LinkTokenRefused, LinkRemoteGone:
		return true
	}
	return false
}

// MaxProbeBytes bounds the remote's last probe answer kept in the link
// record: a hostile server cannot grow the database through it.
const MaxProbeBytes = 64 << 10

// RemoteLink is a workspace's link record. It names the token by the
// name it is saved under (remote.SaveToken), never the token itself.
type RemoteLink struct {
	BaseURL           string `json:"base_url"`
	RemoteWorkspaceID string `json:"remote_workspace_id"`
	RemoteSlug        string `json:"remote_slug"`
	TokenName         string `json:"token_name"`
	// InsecureHTTP: the user allowed plain http to a host that is not
	// loopback (--insecure-http).
	InsecureHTTP bool `json:"insecure_http,omitempty"`
	// Bootstrap is the first exchange still to finish: BootstrapClone
	// (pull the whole remote workspace) or BootstrapPush (push the whole
	// local one to an empty remote); "" once done.
	Bootstrap    string          `json:"bootstrap,omitempty"`
	State        LinkState       `json:"state"`
	LinkedAt     time.Time       `json:"linked_at"`
	LastProbe    json.RawMessage `json:"last_probe,omitempty"`
	LastProbeAt  time.Time       `json:"last_probe_at,omitzero"`
	LastExchange time.Time       `json:"last_exchange,omitzero"`
	NextTry      time.Time       `json:"next_try,omitzero"`
}

// Bootstraps of a new link.
const (
	BootstrapClone = "clone"
	BootstrapPush  = "push"
)

var kLink = []byte("link")

// Linked says whether the workspace is linked to a remote.
func Linked(b *Wsb) bool {
	s := b.Sync()
	return s != nil && s.Get(kLink) != nil
}

func GetRemoteLink(b *Wsb) (*RemoteLink, error) {
	s := b.Sync()
	if s == nil {
		return nil, nil
	}
	raw := s.Get(kLink)
	if raw == nil {
		return nil, nil
	}
	var l RemoteLink
	if err := Decode(raw, &l); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored sync link of workspace %s is unreadable: %v", b.ID, err)
	}
	return &l, nil
}

func PutRemoteLink(b *Wsb, l *RemoteLink) error {
	if err := l.check(); err != nil {
		return err
	}
	raw, err := Encode(l)
	if err != nil {
		return err
	}
	return b.Sync().Put(kLink, raw)
}

// check refuses a record the engine must never store: no remote, a
// token where its name belongs, a state it does not know, a probe over
// MaxProbeBytes or that is not JSON.
func (l *RemoteLink) check() error {
	if strings.TrimSpace(l.BaseURL) == "" {
		return model.Invalid("a sync link needs the remote's base URL").With("field", "base_url")
	}
	if strings.TrimSpace(l.RemoteWorkspaceID) == "" && strings.TrimSpace(l.RemoteSlug) == "" {
		return model.Invalid("a sync link needs the remote workspace").With("field", "remote_workspace")
	}
	if strings.HasPrefix(l.TokenName, "pad_") || strings.ContainsAny(l.TokenName, "/\\") {
		return model.Invalid("token_name names the saved token; it is not the token or a path").With("field", "token_name")
	}
	if l.Bootstrap != "" && l.Bootstrap != BootstrapClone && l.Bootstrap != BootstrapPush {
		return model.Invalid("unknown sync bootstrap %q", l.Bootstrap).With("field", "bootstrap")
	}
	if !l.State.valid() {
		return model.Invalid("unknown sync link state %q", l.State).With("field", "state")
	}
	if len(l.LastProbe) > MaxProbeBytes {
		return model.Invalid("the remote's probe answer is over %d bytes", MaxProbeBytes).With("field", "last_probe")
	}
	if len(l.LastProbe) > 0 && !json.Valid(l.LastProbe) {
		return model.Invalid("the remote's probe answer is not JSON").With("field", "last_probe")
	}
	return nil
}

func UpdateLink(b *Wsb, fn func(*RemoteLink) error) error {
	l, err := GetRemoteLink(b)
	if err != nil {
		return err
	}
	if l == nil {
		return model.Conflict("workspace is not linked to a remote")
	}
	if err := fn(l); err != nil {
		return err
	}
	return PutRemoteLink(b, l)
}

// ClearBucket deletes every key of bk. A cursor that deletes the key it
// is on may skip the next one when it moves on, so it starts over from
// the first key after each delete.
func ClearBucket(bk *Bucket) error {
	c := bk.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}
