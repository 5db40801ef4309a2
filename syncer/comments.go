package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Comments and links: pushed from the outbox like items; pulled per item,
// when the remote's events (or its activity feed, after time offline)
// say an item's comments or links changed. Pad of August 2026 does not
// bump an item's seq for a comment, so the seq feed never says so.

// pushComment pushes one comment change: a create (in flight first,
// like an item's), an edit of its body, or a delete.
func (w *worker) pushComment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	lc, err := w.m.views.GetComment(w.wsID, ch.ID)
	if model.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncComment, lc.ID)
	if err != nil {
		return false, err
	}
	rws := link.RemoteWorkspaceID
	switch {
	case !mapped && lc.DeletedAt == nil:
		return true, w.createComment(ctx, c, link, lc, ch.Seq)
	case mapped && lc.DeletedAt != nil:
		if err := c.DeleteComment(ctx, rws, rid); err != nil && !remote.IsNotFound(err) {
			return false, err
		}
	case mapped && ch.Op == model.OpUpdated:
		if _, err := c.EditComment(ctx, rws, rid, w.outText(lc.Body)); err != nil {
			return false, err
		}
		return true, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			return firstErr(t.SetCommentBase(lc.ID, lc.Body), t.AckOutbox(ch.Seq))
		})
	}
	return false, nil
}

func (w *worker) createComment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, lc *model.Comment, seq int64) error {
	ritem, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, lc.ItemID)
	if err == nil && !ok {
		if _, err = w.pushItem(ctx, c, link, lc.ItemID, 0, 0); err == nil {
			ritem, ok, err = w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, lc.ItemID)
		}
	}
	if err != nil {
		return err
	}
	if !ok {
		return model.Conflict("its item is not on the remote").With("reason", "item_not_pushed")
	}
	var rparent string
	if lc.ParentID != "" {
		if rparent, ok, err = w.m.sync.SyncRemoteID(w.wsID, storage.SyncComment, lc.ParentID); err != nil {
			return err
		} else if !ok {
			return model.Conflict("the comment it replies to is not on the remote").With("reason", "parent_not_pushed")
		}
	}
	key := opKey(lc.ID)
	body := w.outText(lc.Body)
	req, err := json.Marshal(sentCreate{Body: body, Local: lc.Body, Parent: rparent})
	if err != nil {
		return err
	}
	if err := w.inFlight(storage.SyncInFlight{OutboxSeq: seq, OpKey: key, Entity: model.EntityComment,
		LocalID: lc.ID, RemoteItem: ritem, SentAt: time.Now().UTC(), ServerSentAt: c.ServerNow(),
		RemoteUser: w.remoteUser(ctx, c), Request: req}); err != nil {
		return err
	}
	var rc *api.Comment
	for attempt := 0; ; attempt++ {
		rc, err = sendComment(ctx, c, link.RemoteWorkspaceID, ritem, rparent, body, key)
		if err == nil || attempt > 0 || !archivedUnder(err) {
			break
		}
		if err := w.keepAlive(ctx, c, link, lc.ItemID); err != nil {
			return err
		}
	}
	if err != nil {
		return w.createFailed(err)
	}
	return w.adoptComment(lc.ID, rc.ID, lc.Body, seq)
}

// sendComment creates a comment on remote item ritem, or a reply to
// remote comment rparent.
func sendComment(ctx context.Context, c *remote.Client, rws, ritem, rparent, body, key string) (*api.Comment, error) {
	if rparent != "" {
		return c.Reply(ctx, rws, rparent, body, key)
	}
	return c.CreateComment(ctx, rws, ritem, body, key)
}

// adoptComment records a comment create the remote answered (or that
// was found there): the id map, its body as the base, the outbox entry
// acknowledged.
func (w *worker) adoptComment(localID, remoteID, body string, seq int64) error {
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		if err := t.MapID(storage.SyncComment, localID, remoteID); err != nil {
			return err
		}
		if err := t.SetCommentBase(localID, body); err != nil {
			return err
		}
		if err := t.ClearInFlight(); err != nil {
			return err
		}
		if seq > 0 {
			return t.AckOutbox(seq)
		}
		return nil
	})
}

// pushLink pushes a link created or deleted here.
func (w *worker) pushLink(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	rws := link.RemoteWorkspaceID
	rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncLink, ch.ID)
	if err != nil {
		return false, err
	}
	if ch.Op == model.OpDeleted {
		if !mapped {
			return false, nil
		}
		if err := c.DeleteLink(ctx, rws, rid); err != nil && !remote.IsNotFound(err) {
			return false, err
		}
		return true, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			return firstErr(t.UnmapID(storage.SyncLink, ch.ID), t.AckOutbox(ch.Seq))
		})
	}
	if mapped {
		return false, nil
	}
	l, err := w.localLink(ch.ItemID, ch.ID)
	if err != nil || l == nil {
		return false, err
	}
	src, err := w.remoteParent(ctx, c, link, l.SourceID, 0)
	if err != nil {
		return false, err
	}
	dst, err := w.remoteParent(ctx, c, link, l.TargetID, 0)
	if err != nil {
		return false, err
	}
	if src == "" || dst == "" {
		return false, model.Conflict("an item it links is not on the remote").With("reason", "item_not_pushed")
	}
	rl, err := c.CreateLink(ctx, rws, src, dst, l.Type)
	if archivedUnder(err) {
		if err := w.keepAlive(ctx, c, link, l.SourceID, l.TargetID); err != nil {
			return false, err
		}
		rl, err = c.CreateLink(ctx, rws, src, dst, l.Type)
	}
	if remote.IsDuplicate(err) || remote.IsOutcomeUnknown(err) {
		// Already there (a retry after an unknown outcome, or the same
		// link made there meanwhile): find its id. A 409 for another
		// reason, with no such link, stays a refusal.
		refusal := err
		rl, err = findRemoteLink(ctx, c, rws, src, dst, l.Type)
		if err == nil && rl == nil && remote.IsDuplicate(refusal) {
			return false, refusal
		}
	}
	if err != nil {
		return false, err
	}
	if rl == nil {
		return false, errRetryAt{at: time.Now().Add(time.Second)}
	}
	return true, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		return firstErr(t.MapID(storage.SyncLink, ch.ID, rl.ID), t.AckOutbox(ch.Seq))
	})
}

// archivedUnder reports a refusal of a comment or link that may mean the
// remote archived its item under it: 409 archived (padd), a 404 (Pad
// hides an archived item from these routes) or another refusal (a link
// to an archived target).
func archivedUnder(err error) bool {
	if remote.IsDuplicate(err) {
		return false // the server holds it already
	}
	return remote.IsArchived(err) || remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) || remote.IsRefused(err)
}

// keepAlive settles items (local ids) that the remote may have archived
// under a comment or link padd is sending. That comment or link is work
// on the item, so it keeps the item alive there as an edit does (merge's
// Touched; docs/SYNC.md, "Archive against edit"): the item is pulled,
// merged and its restore pushed, and then the write is sent again. One
// archived here too is restored there for the write only (reopened).
func (w *worker) keepAlive(ctx context.Context, c *remote.Client, link *storage.RemoteLink, items ...string) error {
	for _, id := range items {
		rid, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := w.reconcile(ctx, c, link, rid); err != nil {
			return err
		}
		if _, err := w.pushItem(ctx, c, link, id, 0, 0); err != nil {
			return err
		}
		// Archived on both sides: it is restored there for the caller's
		// write and archived again by this drain (pushAgain).
		b, err := w.m.sync.SyncBase(w.wsID, id)
		if err != nil || b == nil || !b.Archived {
			if err != nil {
				return err
			}
			continue
		}
		if _, err := c.RestoreItem(ctx, link.RemoteWorkspaceID, rid); err != nil {
			return err
		}
		if err := w.reopened(b); err != nil {
			return err
		}
		w.mu.Lock()
		w.pushAgain[id] = true
		w.mu.Unlock()
	}
	return nil
}

// localLink finds a link of an item by id (nil: gone since).
func (w *worker) localLink(itemID, linkID string) (*model.Link, error) {
	views, err := w.m.views.ListLinks(w.wsID, itemID)
	if model.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		if v.Link.ID == linkID {
			l := v.Link
			return &l, nil
		}
	}
	return nil, nil
}

func findRemoteLink(ctx context.Context, c *remote.Client, rws, src, dst, typ string) (*api.ItemLink, error) {
	ls, err := c.ListLinks(ctx, rws, src)
	if err != nil {
		return nil, err
	}
	for i := range ls {
		if ls[i].SourceID == src && ls[i].TargetID == dst && (model.NormalizeLinkType(ls[i].LinkType) == model.NormalizeLinkType(typ) || typ == "") {
			return &ls[i], nil
		}
	}
	return nil, nil
}

// pullComments brings one remote item's comments (and links) here:
// new ones are added, edited ones take the remote's body, deleted ones
// are deleted. Each comment is written with its author as the actor.
func (w *worker) pullComments(ctx context.Context, c *remote.Client, link *storage.RemoteLink, remoteItem string, links linkPull) error {
	litem, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, remoteItem)
	if err != nil || !ok {
		return err // an item not here yet brings its comments when it comes
	}
	rcs, err := c.ListComments(ctx, link.RemoteWorkspaceID, remoteItem)
	if remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := w.applyComments(litem, rcs); err != nil {
		return err
	}
	if mine := w.reactionsMine(ctx, c); mine != nil {
		if err := w.applyReactions(litem, rcs, mine); err != nil {
			return err
		}
	}
	if links == noLinks {
		return nil
	}
	return w.pullLinks(ctx, c, link, remoteItem, litem, links == allLinks)
}

// backToLife notes that remote item rid came back from the archive
// there (restored by padd, or pulled restored): Pad lists and exports no
// link of an archived item, so one made to it that padd has not read
// shows only now. Its links are read both ways by the next pull.
func (w *worker) backToLife(rid string) {
	w.mu.Lock()
	w.relinkItems[rid] = true
	w.mu.Unlock()
	w.poke()
}

// relink reads the links (and comments) of the items backToLife named.
func (w *worker) relink(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	w.mu.Lock()
	items := w.relinkItems
	w.relinkItems = map[string]bool{}
	w.mu.Unlock()
	for id := range items {
		if err := w.asideIfRefused(w.pullComments(ctx, c, link, id, allLinks), "the links of the remote's item "+id); err != nil {
			w.mu.Lock()
			for id := range items {
				w.relinkItems[id] = true
			}
			w.mu.Unlock()
			return err
		}
		delete(items, id)
	}
	return nil
}

// linkPull says which of an item's links pullComments reads with its
// comments.
type linkPull int

const (
	outLinks linkPull = iota // the item's outgoing links (the other end reads the rest)
	allLinks                 // both ways (a clone: a link to an archived item is in no export of padd's)
	noLinks                  // none (a clone that has them from the export)
)

// applyComments makes local item litem's comments what the remote
// lists (rcs, the item's whole list, oldest first).
func (w *worker) applyComments(litem string, rcs []api.Comment) error {
	for i := range rcs {
		rcs[i].Body = storage.RewriteAttachmentRefs(rcs[i].Body, w.inIDs(""))
	}
	lcs, err := w.m.views.ListComments(w.wsID, litem)
	if err != nil {
		return err
	}
	local := map[string]*model.Comment{}
	for i := range lcs {
		local[lcs[i].ID] = &lcs[i]
	}
	// A comment whose body differs on the two sides: the comment's base
	// says who changed it. Only padd: keep it (its queued edit pushes
	// it). Only the remote: take the remote's. Both: the remote's wins
	// and padd's is kept as a conflict.
	edits := map[string]commentEdit{}
	for i := range rcs {
		rc := &rcs[i]
		lid, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncComment, rc.ID)
		if err != nil {
			return err
		}
		lc := local[lid]
		if !ok || lc == nil || lc.DeletedAt != nil || rc.Deleted || lc.Body == rc.Body {
			continue
		}
		remoteSame, known, err := w.m.sync.CommentBase(w.wsID, lid, rc.Body)
		if err != nil {
			return err
		}
		localSame, _, err := w.m.sync.CommentBase(w.wsID, lid, lc.Body)
		if err != nil {
			return err
		}
		if !known { // no base: a queued edit here says padd changed it
			held, err := w.m.sync.OutboxHolds(w.wsID, model.EntityComment, lid)
			if err != nil {
				return err
			}
			remoteSame, localSame = false, !held
		}
		switch {
		case remoteSame:
			edits[lid] = keepLocalBody
		case localSame:
			edits[lid] = takeRemoteBody
		default:
			edits[lid] = bothEdited
		}
	}
	// The item's comments are written in one transaction, each with its
	// author; when padd refuses one, they are written one by one so that
	// only that one is set aside.
	seen := map[string]bool{}
	err = w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		for i := range rcs {
			rc := &rcs[i]
			if err := t.As(actorOf(rc.CreatedBy, rc.Author, rc.Source), func() error {
				return applyComment(t, litem, rc, local, edits, seen)
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if isRefusal(err) {
		seen = map[string]bool{}
		for i := range rcs {
			rc := &rcs[i]
			err := w.m.store.SyncApply(w.wsID, actorOf(rc.CreatedBy, rc.Author, rc.Source), func(t *storage.SyncTx) error {
				return applyComment(t, litem, rc, local, edits, seen)
			})
			if isRefusal(err) {
				err = w.setAside(storage.SyncConflict{ItemID: litem, Reason: "padd refused a remote comment: " + err.Error()})
			}
			if err != nil {
				return err
			}
		}
	} else if err != nil {
		return err
	}
	// Mapped comments the remote no longer lists were deleted there.
	for i := range lcs {
		lc := &lcs[i]
		if seen[lc.ID] || lc.DeletedAt != nil {
			continue
		}
		if _, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncComment, lc.ID); err != nil || !mapped {
			continue
		}
		if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			_, err := t.DeleteComment(litem, lc.ID)
			return err
		}); err != nil && !isRefusal(err) {
			return err
		}
	}
	return nil
}

// applyComment writes one remote comment of item litem here: new ones
// are added (a reply under its mapped parent), edited ones take the
// remote's body (a conflict when edited here too), deleted ones are
// deleted. seen collects the local comments the remote still lists.
func applyComment(t *storage.SyncTx, litem string, rc *api.Comment, local map[string]*model.Comment, edits map[string]commentEdit, seen map[string]bool) error {
	lid, mapped := t.LocalID(storage.SyncComment, rc.ID)
	if mapped {
		seen[lid] = true
		lc := local[lid]
		switch {
		case lc == nil || lc.DeletedAt != nil:
		case rc.Deleted:
			_, err := t.DeleteComment(litem, lid)
			return err
		case lc.Body != rc.Body && edits[lid] != keepLocalBody:
			if edits[lid] == bothEdited {
				if _, err := t.AddConflict(storage.SyncConflict{Kind: storage.EntryConflict, ItemID: litem,
					Part: "comment:" + lid, Local: rawJSON(lc.Body), Remote: rawJSON(rc.Body)}); err != nil {
					return err
				}
			}
			if _, err := t.EditComment(litem, lid, rc.Body); err != nil {
				return err
			}
			return t.SetCommentBase(lid, rc.Body)
		}
		return nil
	}
	if rc.Deleted {
		return nil
	}
	in := storage.CommentCreate{Body: rc.Body}
	if rc.ParentID != "" {
		p, ok := t.LocalID(storage.SyncComment, rc.ParentID)
		if !ok {
			return nil // its thread is not here: the next read brings it
		}
		in.ReplyTo = p
	}
	nc, err := t.AddComment(litem, in)
	if err != nil {
		return err
	}
	seen[nc.ID] = true
	return firstErr(t.MapID(storage.SyncComment, nc.ID, rc.ID), t.SetCommentBase(nc.ID, rc.Body))
}

// commentEdit says which side changed a comment's body since the base.
type commentEdit int

const (
	takeRemoteBody commentEdit = iota // only the remote (or nothing to go by but that)
	keepLocalBody                     // only padd: its queued edit pushes it
	bothEdited                        // both: the remote's wins, padd's is a conflict
)

// applyLinks adds remote links here, cloneBatch to a transaction, but
// not one mapped already or one with an end that is not here. When padd
// refuses one, the batch is written link by link so that only that one
// is set aside.
func (w *worker) applyLinks(rls []api.ItemLink) error {
	for start := 0; start < len(rls); start += cloneBatch {
		batch := rls[start:min(start+cloneBatch, len(rls))]
		var waiting []api.ItemLink
		err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			waiting = waiting[:0]
			for i := range batch {
				if _, err := addLink(t, &batch[i]); errors.Is(err, errEndNotHere) {
					waiting = append(waiting, batch[i])
				} else if err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			w.linksWaiting(waiting)
		}
		if !isRefusal(err) {
			if err != nil {
				return err
			}
			continue
		}
		for i := range batch {
			var src string
			err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) (err error) {
				src, err = addLink(t, &batch[i])
				return err
			})
			if errors.Is(err, errEndNotHere) {
				w.linksWaiting(batch[i : i+1])
				continue
			}
			if isRefusal(err) {
				err = w.setAside(storage.SyncConflict{ItemID: src, Reason: "padd refused a remote link: " + err.Error()})
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// addLink adds remote link rl in t, and answers its local source.
// errEndNotHere says a remote link names an item padd does not have
// (yet): the link waits for it (linksWaiting).
var errEndNotHere = errors.New("an end of the link is not here yet")

func addLink(t *storage.SyncTx, rl *api.ItemLink) (string, error) {
	if _, mapped := t.LocalID(storage.SyncLink, rl.ID); mapped {
		return "", nil
	}
	if model.NormalizeLinkType(rl.LinkType) == model.LinkParent {
		return "", nil // the child's parent: padd holds it on the item, not as a link
	}
	src, ok := t.LocalID(storage.SyncItem, rl.SourceID)
	if !ok {
		return "", errEndNotHere
	}
	dst, ok := t.LocalID(storage.SyncItem, rl.TargetID)
	if !ok {
		return src, errEndNotHere
	}
	res, err := t.AddLink(src, dst, rl.LinkType)
	if err != nil {
		return src, err
	}
	return src, t.MapID(storage.SyncLink, res.Link.ID, rl.ID)
}

// pullLinks brings one remote item's outgoing links here, and its
// incoming ones when asked (a clone's archived items: a link to one may
// be in no export).
func (w *worker) pullLinks(ctx context.Context, c *remote.Client, link *storage.RemoteLink, remoteItem, litem string, incoming bool) error {
	rls, err := c.ListLinks(ctx, link.RemoteWorkspaceID, remoteItem)
	if remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	remoteIDs := map[string]bool{}
	for i := range rls {
		remoteIDs[rls[i].ID] = true
		if rls[i].SourceID != remoteItem && !incoming {
			continue // the other end's link: read with that item
		}
		if err := w.applyLinks(rls[i : i+1]); err != nil {
			return err
		}
	}
	views, err := w.m.views.ListLinks(w.wsID, litem)
	if err != nil {
		return err
	}
	for _, v := range views {
		if v.Link.SourceID != litem {
			continue
		}
		rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncLink, v.Link.ID)
		if err != nil || !mapped || remoteIDs[rid] {
			continue
		}
		id := v.Link.ID
		if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			if _, err := t.RemoveLink(id); err != nil {
				return err
			}
			return t.UnmapID(storage.SyncLink, id)
		}); err != nil && !isRefusal(err) {
			return err
		}
	}
	return nil
}

// maxWaitingLinks bounds the remote links kept until their ends arrive.
const maxWaitingLinks = 10_000

// linksWaiting keeps remote links whose ends padd does not have yet, so
// that they are written when those items arrive (retryWaitingLinks)
// rather than at the next read of every link. In memory only: a restart
// reads every link again when the stream connects.
func (w *worker) linksWaiting(rls []api.ItemLink) {
	if len(rls) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, rl := range rls {
		if len(w.waitingLinks) >= maxWaitingLinks {
			return
		}
		w.waitingLinks[rl.ID] = rl
	}
}

// retryWaitingLinks writes the waiting links whose ends have arrived.
func (w *worker) retryWaitingLinks() error {
	w.mu.Lock()
	if len(w.waitingLinks) == 0 {
		w.mu.Unlock()
		return nil
	}
	rls := make([]api.ItemLink, 0, len(w.waitingLinks))
	for _, rl := range w.waitingLinks {
		rls = append(rls, rl)
	}
	w.waitingLinks = map[string]api.ItemLink{}
	w.mu.Unlock()
	return w.applyLinks(rls)
}
