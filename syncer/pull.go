package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/remote/merge"
	"github.com/padd/padd/storage"
)

// Pulling: the remote's changes reach the local workspace. Every applied
// change commits with its id map entries and base (storage.SyncApply);
// the feed's cursor commits with the page it covers.

// feedPage is how many rows of the seq feed one request asks for.
const feedPage = 1000

// maxParentDepth bounds how far a pull follows unmapped parents.
const maxParentDepth = 8

// pullItems reads the seq feed from the stored cursor and applies each
// changed item.
func (w *worker) pullItems(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	cur, err := w.m.sync.SyncCursors(w.wsID)
	if err != nil {
		return err
	}
	for {
		page, err := c.ItemsChanges(ctx, link.RemoteWorkspaceID, remote.Seq(cur.ItemsChangesSeq), feedPage)
		if remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) {
			return w.pullByTime(ctx, c, link, cur) // a server without the seq feed
		}
		if err != nil {
			return err
		}
		for i := range page.Changes {
			row := &page.Changes[i]
			if w.echo(row) {
				continue
			}
			if err := w.pullItem(ctx, c, link, row.ID, 0); err != nil {
				if err := w.asideIfRefused(err, "the remote's item "+row.Ref); err != nil {
					return err
				}
			}
		}
		if int64(page.Cursor) != cur.ItemsChangesSeq {
			cur.ItemsChangesSeq = int64(page.Cursor)
			if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.SetCursors(cur) }); err != nil {
				return err
			}
		}
		if len(page.Changes) < feedPage {
			return nil
		}
	}
}

// pullByTime is the pull from Pad's time feed, for a server without the
// seq feed: every item updated at or after the last server time seen
// (less a second: the Pad of August 2026 cuts since to whole seconds),
// page by page where the server pages. Rows repeat across walks; a
// version already applied is an echo. since moves on only once a walk
// has ended, so a padd killed mid-walk walks it again.
func (w *worker) pullByTime(ctx context.Context, c *remote.Client, link *storage.RemoteLink, cur storage.SyncCursors) error {
	since, _ := strconv.ParseInt(cur.ChangesSince, 10, 64)
	q := remote.ChangesQuery{Since: max(since-1000, 0), Cursor: cur.ChangesCursor, Limit: feedPage}
	for {
		page, err := c.Changes(ctx, link.RemoteWorkspaceID, q)
		if err != nil {
			return err
		}
		for i := range page.Items {
			it := &page.Items[i]
			if w.echo(&api.SyncItem{Item: *it}) {
				continue
			}
			whole, err := w.parentUnseen(it)
			if err == nil && whole {
				err = w.pullItem(ctx, c, link, it.ID, 0)
			} else if err == nil {
				err = w.applyRemote(ctx, c, link, it, 0)
			}
			if err != nil {
				if err := w.asideIfRefused(err, "the remote's item "+it.Ref); err != nil {
					return err
				}
			}
		}
		for _, id := range page.Deleted {
			if _, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, id); err != nil || !ok {
				continue
			}
			if err := w.pullItem(ctx, c, link, id, 0); err != nil {
				if err := w.asideIfRefused(err, "the remote's item "+id); err != nil {
					return err
				}
			}
		}
		if page.HasMore && page.NextCursor != "" {
			cur.ChangesCursor = page.NextCursor
			q = remote.ChangesQuery{Cursor: page.NextCursor, Limit: feedPage}
		} else {
			cur.ChangesCursor, cur.ChangesSince = "", strconv.FormatInt(page.ServerTime, 10)
		}
		if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.SetCursors(cur) }); err != nil {
			return err
		}
		if cur.ChangesCursor == "" {
			return nil
		}
	}
}

// parentUnseen says a /changes row may not show its item's parent:
// Pad's rows are not enriched with the parent link (remoteParentOf), so
// a row naming no link is read whole when the item is new here or its
// parent_id is not the base's parent (a parent changed there, or Pad's
// legacy column).
func (w *worker) parentUnseen(it *api.Item) (bool, error) {
	if it.ParentLinkID != "" || it.ParentRef != "" {
		return false, nil
	}
	local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, it.ID)
	if err != nil || !ok {
		return err == nil, err
	}
	b, err := w.m.sync.SyncBase(w.wsID, local)
	if err != nil || b == nil {
		return err == nil, err
	}
	parent := ""
	if it.ParentID != nil && *it.ParentID != "" {
		if parent, ok, err = w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, *it.ParentID); err != nil || !ok {
			return err == nil, err
		}
	}
	return parent != b.ParentID, nil
}

// syncActor is the engine's own writes' actor (cursors, bases).
var syncActor = model.UserActor(model.SourceSync)

// echo says a feed row is a version the local side already has: its seq
// is not above the item's base (our own push, or a pull already
// applied).
func (w *worker) echo(row *api.SyncItem) bool {
	local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, row.ID)
	if err != nil || !ok {
		return false
	}
	b, err := w.m.sync.SyncBase(w.wsID, local)
	return err == nil && b != nil && row.Seq > 0 && row.Seq <= b.RemoteSeq
}

// pullItem fetches one remote item whole and applies it.
func (w *worker) pullItem(ctx context.Context, c *remote.Client, link *storage.RemoteLink, remoteID string, depth int) error {
	it, err := c.GetItem(ctx, link.RemoteWorkspaceID, remoteID)
	switch {
	case remote.IsNotFound(err) && !remote.IsWorkspaceGone(err):
		return w.remoteGone(remoteID)
	case err != nil:
		return w.slowRead(ctx, err, remoteID)
	}
	w.mu.Lock()
	delete(w.slowReads, remoteID)
	w.mu.Unlock()
	return w.applyRemote(ctx, c, link, it, depth)
}

// slowReadStrikes is how many cycles in a row a remote item's read may
// end at its timeout, while the remote answers the rest, before padd
// goes on without that version of the item.
const slowReadStrikes = 3

// slowRead counts a read of a remote item that ended at its timeout (the
// remote answered the feed that named it, but not this read in time):
// until its slowReadStrikes-th cycle in a row the error stands, and the
// cycle is tried again as for any failure; then the version is set aside
// with the reason, so one item the remote cannot serve in time does not
// hold the pull and the push for good. It is read again when the remote
// next changes it. Any other error is returned as it is.
func (w *worker) slowRead(ctx context.Context, err error, remoteID string) error {
	if ctx.Err() != nil || !remote.IsUnreachable(err) || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	w.mu.Lock()
	w.slowReads[remoteID]++
	n := w.slowReads[remoteID]
	if n >= slowReadStrikes {
		delete(w.slowReads, remoteID)
	}
	w.mu.Unlock()
	if n < slowReadStrikes {
		return err
	}
	local, _, lerr := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, remoteID)
	if lerr != nil {
		return lerr
	}
	return w.setAside(storage.SyncConflict{ItemID: local, Reason: fmt.Sprintf("the remote did not finish answering the read of its item %s in time, %d times in a row: "+
		"padd goes on without this version of it, and reads it again when the remote next changes it (%v)", remoteID, n, err)})
}

// applyRemote maps a remote item's collection and parent (pulling them
// first when they are new here) and merges it into the local workspace.
// A remote item padd cannot take (its JSON is broken, or it fails the
// local schema) is set aside with the reason; the rest goes on.
func (w *worker) applyRemote(ctx context.Context, c *remote.Client, link *storage.RemoteLink, it *api.Item, depth int) error {
	rem, err := w.decode(it)
	if err != nil {
		return w.setAside(storage.SyncConflict{Reason: "the remote sent an item padd cannot read: " + err.Error()})
	}
	coll, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncCollection, it.CollectionID)
	if err == nil && !ok {
		if err = w.pullCollections(ctx, c, link); err == nil {
			coll, ok, err = w.m.sync.SyncLocalID(w.wsID, storage.SyncCollection, it.CollectionID)
		}
	}
	if err != nil {
		return err
	}
	if !ok {
		return w.setAside(storage.SyncConflict{Reason: fmt.Sprintf("the remote item %s is in a collection (%s) the remote does not list", it.Ref, it.CollectionID)})
	}
	rem.side.Collection = coll
	if err := w.pinParent(ctx, c, link, rem); err != nil {
		return err
	}
	if rem.hasParent() {
		p, ok, err := w.localParent(rem)
		if err != nil {
			return err
		}
		if !ok && depth < maxParentDepth {
			if err := w.pullItem(ctx, c, link, rem.parentKey(), depth+1); err != nil {
				return err
			}
			p, ok, err = w.localParent(rem)
			if err != nil {
				return err
			}
		}
		if ok {
			rem.side.Parent = p
		}
	}
	if err := w.relationsOf(ctx, c, link, rem, depth); err != nil {
		return err
	}
	if w.held.lost != nil {
		if took, err := w.metLost(it, rem); took || err != nil {
			return err
		}
	}
	created := false
	err = w.m.store.SyncApply(w.wsID, actorOf(it.LastModifiedBy, it.CreatedByName, it.Source), func(t *storage.SyncTx) error {
		var err error
		created, err = w.applyItem(t, rem)
		return err
	})
	if isRefusal(err) {
		return w.setAside(storage.SyncConflict{Reason: "padd refused the remote's version of " + it.Ref + ": " + err.Error()})
	}
	if err == nil && created {
		w.mu.Lock()
		w.want.thread(it.ID) // a new item's comments and links come with it
		if w.attachWaiting[it.ID] {
			// and the attachments heard of before it (pullAttachment)
			delete(w.attachWaiting, it.ID)
			w.attachItems[it.ID] = true
		}
		w.mu.Unlock()
	}
	return err
}

// isRefusal says a local write failed on the data (validation, a
// conflict with local state), not on the store: set the change aside.
func isRefusal(err error) bool {
	var me *model.Error
	if !errors.As(err, &me) {
		return false
	}
	switch me.Code {
	case model.CodeStoredStateUnreadable, model.CodeInsufficientStorage, model.CodeServerError, model.CodeUnavailable:
		return false
	}
	return true
}

// applyItem writes a remote item locally: a new one is created with the
// remote's number; a known one is merged with the local side against
// the base. It reports whether the item is new here.
func (w *worker) applyItem(t *storage.SyncTx, rem *remoteItem) (bool, error) {
	localID, mapped := t.LocalID(storage.SyncItem, rem.api.ID)
	if mapped {
		return false, w.settle(t, localID, nil, rem)
	}
	res, err := t.CreateItem(storage.ItemCreate{Collection: rem.side.Collection, Title: rem.side.Title,
		Content: rem.side.Content, Fields: rem.side.Fields, Tags: rem.side.Tags, Parent: rem.side.Parent,
		Pinned: rem.side.Pinned}, numberOf(rem.api))
	if err != nil {
		return false, err
	}
	id := res.Item.ID
	if rem.side.Archived {
		if _, err := t.SetArchived(id, true); err != nil {
			return false, err
		}
	}
	if err := t.MapID(storage.SyncItem, id, rem.api.ID); err != nil {
		return false, err
	}
	if rem.api.Ref != "" {
		if err := t.MapRemoteRef(rem.api.Ref, id); err != nil {
			return false, err
		}
	}
	return true, firstErr(t.SetBase(baseOf(id, rem)), noteWaits(t, id, rem.waiting, rem.side.Collection, rem.side.Fields),
		droppedRelations(t, id, rem), heldEntries(t, id, rem, nil))
}

// numberOf is a remote item's number: item_number, else the digits of
// its ref.
func numberOf(it *api.Item) int64 {
	if it.ItemNumber != nil && *it.ItemNumber > 0 {
		return *it.ItemNumber
	}
	if r, ok := model.ParseRef(it.Ref); ok {
		return r.Number
	}
	return 0
}

// settle merges the remote's version of a mapped item with the local one
// against base (nil: the stored base), writes the result locally, keeps
// each conflict's local value, and makes the remote's version the new
// base. What the remote still lacks is pushed by the next drain.
func (w *worker) settle(t *storage.SyncTx, localID string, base *merge.Item, rem *remoteItem) error {
	v, err := t.Item(localID)
	if err != nil {
		return err
	}
	stored, err := t.Base(localID)
	if err != nil {
		return err
	}
	if base == nil {
		base = baseSide(stored)
	}
	rem.holdWaiting(base)
	rem.keepReleased(stored)
	rem.holdOver(base)
	ls := localSide(v)
	if ls != nil && base != nil && rem.side.Archived && !base.Archived && !ls.Archived {
		if ls.Touched, err = t.Annotated(localID); err != nil {
			return err
		}
	}
	if base != nil && base.Archived && !rem.side.Archived {
		w.backToLife(rem.api.ID)
	}
	res := merge.Merge(base, ls, &rem.side)
	if res.Merged != nil && w.m.log.Enabled(context.Background(), slog.LevelDebug) {
		w.m.log.Debug("sync: merged", "workspace", w.slug, "item", localID, "remote_item", rem.api.ID,
			"collection", mergeTrace(base, ls, &rem.side, res.Merged, func(x *merge.Item) string { return x.Collection }),
			"archived", mergeTrace(base, ls, &rem.side, res.Merged, func(x *merge.Item) string { return strconv.FormatBool(x.Archived) }),
			"write_local", res.WriteLocal, "conflicts", len(res.Conflicts))
	}
	if res.Merged != nil && res.WriteLocal {
		if err := applyLocal(t, v, res.Merged); err != nil {
			return err
		}
	}
	for _, cf := range res.Conflicts {
		part := cf.What
		if cf.What == merge.WhatField {
			part = "fields." + cf.Key
		}
		if _, err := t.AddConflict(storage.SyncConflict{Kind: storage.EntryConflict, ItemID: localID, Part: part,
			Base: rawJSON(cf.Base), Local: rawJSON(cf.Local), Remote: rawJSON(cf.Remote)}); err != nil {
			return err
		}
	}
	if v.Number < 0 {
		if n := numberOf(rem.api); n > 0 {
			if _, err := t.AdoptRef(localID, n); err != nil {
				return err
			}
		}
	}
	if rem.api.Ref != "" {
		if err := t.MapRemoteRef(rem.api.Ref, localID); err != nil {
			return err
		}
	}
	if len(res.Conflicts) > 0 {
		w.noteConflicts(len(res.Conflicts))
	}
	if res.Push {
		w.mu.Lock()
		w.pushAgain[localID] = true
		w.mu.Unlock()
	}
	now := ls // the local item as this write leaves it
	if res.Merged != nil && res.WriteLocal {
		now = res.Merged
	}
	var coll string
	var fields map[string]any
	if now != nil {
		coll, fields = now.Collection, now.Fields
	}
	var prev []string
	if stored != nil {
		prev = stored.Held
	}
	return firstErr(t.SetBase(baseOf(localID, rem)), noteWaits(t, localID, rem.waiting, coll, fields),
		droppedRelations(t, localID, rem), heldEntries(t, localID, rem, prev), releasedWaits(t, localID, rem))
}

// applyLocal makes local item v hold m: restore, move, update, archive,
// in that order (an archived item takes no update, so one that stays
// archived is restored for it and archived again).
func applyLocal(t *storage.SyncTx, v *storage.ItemView, m *merge.Item) error {
	id := v.ID
	archived := v.DeletedAt != nil
	u := localUpdate(v, m)
	if archived && (!m.Archived || u != nil || m.Collection != v.CollectionID) {
		if _, err := t.SetArchived(id, false); err != nil {
			return err
		}
		archived = false
	}
	if m.Collection != v.CollectionID {
		if _, err := t.MoveItem(id, storage.MoveInput{Target: m.Collection, Force: true}); err != nil {
			return err
		}
		nv, err := t.Item(id)
		if err != nil {
			return err
		}
		u = localUpdate(nv, m)
	}
	if u != nil {
		if _, err := t.UpdateItem(id, *u); err != nil {
			return err
		}
	}
	if m.Archived && !archived {
		if _, err := t.SetArchived(id, true); err != nil {
			return err
		}
	}
	return nil
}

// remoteGone handles an item the remote no longer has at all: deleted
// for good there. Untouched here, it is archived (padd keeps what it
// archives) and forgotten by the map; changed here, it lives on, is
// created on the remote again by the next push, and the user is told.
func (w *worker) remoteGone(remoteID string) error {
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		localID, ok := t.LocalID(storage.SyncItem, remoteID)
		if !ok {
			return nil
		}
		v, err := t.Item(localID)
		if err != nil {
			return err
		}
		b, err := t.Base(localID)
		if err != nil {
			return err
		}
		res := merge.Merge(baseSide(b), localSide(v), nil)
		if err := t.UnmapID(storage.SyncItem, localID); err != nil {
			return err
		}
		if res.Merged == nil {
			_, err := t.SetArchived(localID, true)
			return err
		}
		w.mu.Lock()
		w.pushAgain[localID] = true
		w.mu.Unlock()
		w.noteConflicts(1)
		_, err = t.AddConflict(storage.SyncConflict{Kind: storage.EntryConflict, ItemID: localID, Part: merge.WhatDeleted,
			Base: json.RawMessage("false"), Local: json.RawMessage("false"), Remote: json.RawMessage("true")})
		return err
	})
}

// setAside records a change that cannot be applied, with its reason, so
// the rest keeps flowing.
func (w *worker) setAside(c storage.SyncConflict) error {
	c.Kind = storage.EntrySetAside
	w.m.log.Warn("sync: a change was set aside", "workspace", w.slug, "reason", c.Reason)
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		_, err := t.AddConflict(c)
		return err
	})
}

// asideIfRefused sets aside a pulled change the remote answered with
// something padd cannot take (an answer it cannot read, a refusal), so
// one broken item does not wedge the feed; other errors are returned.
func (w *worker) asideIfRefused(err error, what string) error {
	if !isRefusal(refused(err)) {
		return err
	}
	return w.setAside(storage.SyncConflict{Reason: fmt.Sprintf("%s: %v", what, err)})
}

// noteConflicts tells the status that conflicts were recorded.
func (w *worker) noteConflicts(n int) {
	if n > 0 {
		w.m.log.Info("sync: conflicts recorded; the remote's values are in the items", "workspace", w.slug, "count", n)
	}
}

// mergeTrace is one part of a merge for the debug log: base, local,
// remote and the result (a side padd has not got is "-").
func mergeTrace(base, local, remote, merged *merge.Item, part func(*merge.Item) string) string {
	out := make([]string, 0, 4)
	for _, x := range []*merge.Item{base, local, remote, merged} {
		if x == nil {
			out = append(out, "-")
			continue
		}
		out = append(out, part(x))
	}
	return strings.Join(out, " / ")
}
