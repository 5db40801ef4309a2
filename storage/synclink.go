package storage

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// A workspace's link to a remote Pad: the record the sync engine starts
// from. While it exists, every local mutation (not the engine's own, whose
// actor source is "sync") is queued in the outbox in its own transaction
// (tx.go's stamp), and items made here get provisional numbers
// (provisional.go).

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

// LinkedWorkspace is one linked workspace and its link.
type LinkedWorkspace struct {
	WorkspaceID string
	Slug        string
	Link        RemoteLink
}

var kLink = []byte("link")

// linkedWS says whether the workspace is linked to a remote.
func linkedWS(b *records.Wsb) bool {
	s := b.Sync()
	return s != nil && s.Get(kLink) != nil
}

func getRemoteLink(b *records.Wsb) (*RemoteLink, error) {
	s := b.Sync()
	if s == nil {
		return nil, nil
	}
	raw := s.Get(kLink)
	if raw == nil {
		return nil, nil
	}
	var l RemoteLink
	if err := records.Decode(raw, &l); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored sync link of workspace %s is unreadable: %v", b.ID, err)
	}
	return &l, nil
}

func putRemoteLink(b *records.Wsb, l *RemoteLink) error {
	if err := l.check(); err != nil {
		return err
	}
	raw, err := records.Encode(l)
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

// LinkSync links a workspace to a remote Pad. A workspace already linked
// is refused (unlink it first): its id map and bases belong to the other
// link. From the next write on, its local mutations are queued for push.
func (s *Store) LinkSync(ws string, l RemoteLink) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		if linkedWS(b) {
			return model.Conflict("workspace %q is already linked to a remote; unlink it first", rec.Slug)
		}
		if l.State == "" {
			l.State = LinkActive
		}
		if l.LinkedAt.IsZero() {
			l.LinkedAt = s.base.Clock().UTC()
		}
		return putRemoteLink(b, &l)
	})
}

// SyncLink reads a workspace's link; nil when it is not linked.
func (s *Store) SyncLink(ws string) (*RemoteLink, error) {
	var out *RemoteLink
	err := s.base.Read(ws, func(r *records.Rtx) (err error) {
		out, err = getRemoteLink(r.WS)
		return err
	})
	return out, err
}

// UpdateSyncLink changes a linked workspace's link record in one
// transaction: fn gets the stored record and changes it in place.
func (s *Store) UpdateSyncLink(ws string, fn func(*RemoteLink) error) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return updateLink(records.OpenWS(tx, rec.ID), fn)
	})
}

func updateLink(b *records.Wsb, fn func(*RemoteLink) error) error {
	l, err := getRemoteLink(b)
	if err != nil {
		return err
	}
	if l == nil {
		return model.Conflict("workspace is not linked to a remote")
	}
	if err := fn(l); err != nil {
		return err
	}
	return putRemoteLink(b, l)
}

// UnlinkSync ends a workspace's link. The local data stays as it is
// (items keep their refs, provisional ones included, and every ref they
// had keeps resolving); the outbox and all sync state (id map, bases,
// cursors, in-flight record, conflicts) are dropped.
func (s *Store) UnlinkSync(ws string) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		for _, bk := range []*records.Bucket{b.Outbox(), b.Sync(), b.SyncIDs(), b.SyncBase(), b.SyncConfl()} {
			if err := clearBucket(bk); err != nil {
				return err
			}
		}
		return nil
	})
}

// clearBucket deletes every key of bk. A cursor that deletes the key it
// is on may skip the next one when it moves on, so it starts over from
// the first key after each delete.
func clearBucket(bk *records.Bucket) error {
	c := bk.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// LinkedWorkspaces lists the live workspaces linked to a remote, with
// their links: what the sync engine starts a worker for.
func (s *Store) LinkedWorkspaces() ([]LinkedWorkspace, error) {
	var out []LinkedWorkspace
	err := s.base.View(func(tx *records.Txn) error {
		return tx.Bucket(records.BWorkspaces).ForEach(func(k, _ []byte) error {
			rec, err := records.GetWorkspace(tx, k)
			if err != nil {
				return err
			}
			if rec.DeletedAt != nil {
				return nil
			}
			b := records.OpenWS(tx, rec.ID)
			if b == nil {
				return nil
			}
			l, err := getRemoteLink(b)
			if err != nil || l == nil {
				return err
			}
			out = append(out, LinkedWorkspace{WorkspaceID: rec.ID, Slug: rec.Slug, Link: *l})
			return nil
		})
	})
	return out, err
}

// kSyncLinkedV5 is layout 5's link flag in a workspace's root bucket.
var kSyncLinkedV5 = []byte("sync_linked")

// migrateSyncState (layout 5 -> 6) adds the sync buckets to every
// workspace. Layout 5's link flag named no remote, so nothing could ever
// push the outbox it kept: the flag and that outbox go, and the
// workspace is unlinked with its local data as it was.
func migrateSyncState(tx *records.Txn) error {
	if err := ensureWSSubBuckets(tx); err != nil {
		return err
	}
	root := tx.Bucket(records.BWS)
	return root.ForEachBucket(func(k []byte) error {
		ws := root.Bucket(k)
		if ws.Get(kSyncLinkedV5) == nil {
			return nil
		}
		if err := clearBucket(ws.Bucket(records.BOutbox)); err != nil {
			return err
		}
		return ws.Delete(kSyncLinkedV5)
	})
}
