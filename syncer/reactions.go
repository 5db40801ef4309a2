package syncer

import (
	"context"
	"fmt"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Comment reactions. Pad keeps one reaction per user, emoji and comment,
// and answers the same one again with the one it has, so a push sends
// this padd's person's reactions as they stand rather than a list of
// operations: each reaction the remote is not known to have (not Synced)
// is posted, each taken back here that the remote had (ReactionsGone) is
// deleted there. A retry, or a push cut short, sends the same again and
// the remote still holds one of each: nothing doubles, nothing made here
// is dropped. A pull reads them with the item's comments (Pad sends
// reaction_added/removed with the item's id, and lists reactions in the
// comments' JSON; its export and activity feed carry none).

// pushReactions pushes comment ch.ID's reactions. A remote that refuses
// one (a Pad without the reaction routes, or a comment gone there) has
// the change set aside with that reason; the reaction stays here.
func (w *worker) pushReactions(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	lc, err := w.m.views.GetComment(w.wsID, ch.ID)
	if model.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if lc.DeletedAt != nil {
		return false, nil // a tombstone keeps none, and its delete takes the remote's
	}
	rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncComment, lc.ID)
	if err != nil {
		return false, err
	}
	if !mapped {
		return false, model.Conflict("its comment is not on the remote").With("reason", "comment_not_pushed")
	}
	rws := link.RemoteWorkspaceID
	var posted, removed []string
	err = func() error {
		for _, r := range lc.Reactions {
			if r.UserID != "" || r.Synced {
				continue
			}
			if _, err := c.AddReaction(ctx, rws, rid, r.Emoji); err != nil {
				if remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) || remote.IsRefused(err) {
					return model.Invalid("the remote took no reaction %q: it has no comment reactions (a Pad before them) or no longer has the comment (%v)", r.Emoji, err).
						With("reason", "reaction_refused")
				}
				return err
			}
			posted = append(posted, r.Emoji)
		}
		for _, e := range lc.ReactionsGone {
			if err := c.RemoveReaction(ctx, rws, rid, e); err != nil && !(remote.IsNotFound(err) && !remote.IsWorkspaceGone(err)) {
				return err
			}
			removed = append(removed, e)
		}
		return nil
	}()
	if err != nil {
		// What the remote took is recorded, so a retry sends only the rest.
		if len(posted)+len(removed) > 0 {
			if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
				return t.ReactionsPushed(lc.ID, posted, removed)
			}); err != nil {
				return false, err
			}
		}
		return false, err
	}
	return true, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		return firstErr(t.ReactionsPushed(lc.ID, posted, removed), t.AckOutbox(ch.Seq))
	})
}

// reactionsMine tells the remote reactions of the user padd syncs as;
// nil when that user is not known, and then a pull leaves reactions as
// they are (it could not tell this padd's person's from others').
func (w *worker) reactionsMine(ctx context.Context, c *remote.Client) func(model.Reaction) bool {
	me := w.remoteUser(ctx, c)
	if me == "" {
		return nil
	}
	return func(r model.Reaction) bool { return r.UserID == me }
}

// applyReactions makes the reactions of item litem's comments what the
// remote lists (rcs: the item's comments as the remote's list answers
// them, reactions included). A reaction padd refuses is set aside.
func (w *worker) applyReactions(litem string, rcs []api.Comment, mineOf func(model.Reaction) bool) error {
	var refusedAll []error
	err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		refusedAll = nil
		for i := range rcs {
			rc := &rcs[i]
			if rc.Deleted {
				continue
			}
			lid, ok := t.LocalID(storage.SyncComment, rc.ID)
			if !ok {
				continue
			}
			refused, err := t.MergeReactions(lid, modelReactions(rc.Reactions), mineOf)
			if isRefusal(err) {
				continue // a comment padd holds as a tombstone, or on an item it cannot take it on
			}
			if err != nil {
				return err
			}
			refusedAll = append(refusedAll, refused...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(refusedAll) == 0 {
		return nil
	}
	// One record for the item's refusals, however many the remote sent.
	return w.setAside(storage.SyncConflict{ItemID: litem,
		Reason: fmt.Sprintf("padd refused %d remote reaction(s), the first: %v", len(refusedAll), refusedAll[0])})
}

// modelReactions are a remote comment's reactions as padd holds them,
// each with its maker as the actor.
func modelReactions(rs []api.Reaction) []model.Reaction {
	out := make([]model.Reaction, 0, len(rs))
	for _, r := range rs {
		out = append(out, model.Reaction{Emoji: r.Emoji, UserID: r.UserID, Actor: actorOf(r.Actor, r.ActorName, ""),
			CreatedAt: r.CreatedAt.UTC()})
	}
	return out
}
