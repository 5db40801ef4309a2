package syncstate

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// LinkedWorkspace is one linked workspace and its link.
type LinkedWorkspace struct {
	WorkspaceID string
	Slug        string
	Link        storage.RemoteLink
}

// LinkSync links a workspace to a remote Pad. A workspace already linked
// is refused (unlink it first): its id map and bases belong to the other
// link. From the next write on, its local mutations are queued for push.
func (s *State) LinkSync(ws string, l storage.RemoteLink) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		if records.Linked(b) {
			return model.Conflict("workspace %q is already linked to a remote; unlink it first", rec.Slug)
		}
		if l.State == "" {
			l.State = storage.LinkActive
		}
		if l.LinkedAt.IsZero() {
			l.LinkedAt = s.base.Clock().UTC()
		}
		return records.PutRemoteLink(b, &l)
	})
}

// SyncLink reads a workspace's link; nil when it is not linked.
func (s *State) SyncLink(ws string) (*storage.RemoteLink, error) {
	var out *storage.RemoteLink
	err := s.base.Read(ws, func(r *records.Rtx) (err error) {
		out, err = records.GetRemoteLink(r.WS)
		return err
	})
	return out, err
}

// UpdateSyncLink changes a linked workspace's link record in one
// transaction: fn gets the stored record and changes it in place.
func (s *State) UpdateSyncLink(ws string, fn func(*storage.RemoteLink) error) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return records.UpdateLink(records.OpenWS(tx, rec.ID), fn)
	})
}

// UnlinkSync ends a workspace's link. The local data stays as it is
// (items keep their refs, provisional ones included, and every ref they
// had keeps resolving); the outbox and all sync state (id map, bases,
// cursors, in-flight record, conflicts) are dropped.
func (s *State) UnlinkSync(ws string) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		for _, bk := range []*records.Bucket{b.Outbox(), b.Sync(), b.SyncIDs(), b.SyncBase(), b.SyncConfl()} {
			if err := records.ClearBucket(bk); err != nil {
				return err
			}
		}
		return nil
	})
}

// LinkedWorkspaces lists the live workspaces linked to a remote, with
// their links: what the sync engine starts a worker for.
func (s *State) LinkedWorkspaces() ([]LinkedWorkspace, error) {
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
			l, err := records.GetRemoteLink(b)
			if err != nil || l == nil {
				return err
			}
			out = append(out, LinkedWorkspace{WorkspaceID: rec.ID, Slug: rec.Slug, Link: *l})
			return nil
		})
	})
	return out, err
}
