package syncer

import (
	"context"

	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Stars are the user's personal pins, the same user on both sides (the
// token's). A star carries no version: the side that changed it last
// wins, which the order of the cycle gives. The pull makes the local
// stars the remote's, except for an item whose star was changed here and
// is still in the outbox; the push that follows sends those.

// pullStars reads the remote's stars and applies the difference.
func (w *worker) pullStars(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	remoteIDs, err := c.StarredIDs(ctx, link.RemoteWorkspaceID)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, rid := range remoteIDs {
		if lid, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, rid); err != nil {
			return err
		} else if ok {
			want[lid] = true
		}
	}
	local, err := w.m.views.StarredIDs(w.wsID)
	if err != nil {
		return err
	}
	change := map[string]bool{} // local item id -> starred
	for _, id := range local {
		if !want[id] {
			// Starred here, not there: unstar it only if the remote
			// knows the item (one not pushed yet keeps its star).
			if _, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, id); err != nil {
				return err
			} else if mapped {
				change[id] = false
			}
		}
		delete(want, id)
	}
	for id := range want {
		change[id] = true
	}
	for id, on := range change {
		pending, err := w.m.sync.OutboxHolds(w.wsID, model.EntityStar, id)
		if err != nil {
			return err
		}
		if pending {
			continue
		}
		err = w.m.store.SyncApply(w.wsID, model.UserActor(model.SourceSync), func(t *storage.SyncTx) error {
			_, err := t.SetStar(id, on)
			return err
		})
		if model.IsNotFound(err) {
			continue // an item gone meanwhile: no star to keep
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pushStar sends an item's current star state. An item the remote does
// not know has nothing to send: its create, when it is pushed, comes
// before this entry, and one set aside takes its star with it.
func (w *worker) pushStar(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) error {
	rid, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, ch.ItemID)
	if err != nil || !ok {
		return err
	}
	on, err := w.m.views.IsStarred(w.wsID, ch.ItemID)
	if model.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.SetStar(ctx, link.RemoteWorkspaceID, rid, on)
}
