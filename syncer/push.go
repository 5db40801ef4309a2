package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/remote/merge"
	"github.com/padd/padd/storage"
)

// Pushing: the outbox is drained in order. An entry names an entity that
// changed; the engine sends the entity's current state against its base,
// so ten offline edits of one item are one PATCH, and acknowledges the
// entry in the same transaction as the new base.

// outboxPage is how many outbox entries one read takes.
const outboxPage = 100

// drain pushes the outbox until it is empty.
func (w *worker) drain(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	for {
		entries, err := w.m.sync.Outbox(w.wsID, 0, outboxPage)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			break
		}
		w.setPhase(api.SyncPushing) // status counts what is pending
		var idle int64              // the last entry that needed no write of its own
		flush := func() error {
			if idle == 0 {
				return nil
			}
			err := w.m.sync.AckOutbox(w.wsID, idle)
			idle = 0
			return err
		}
		for _, ch := range entries {
			acked, err := w.pushChange(ctx, c, link, ch)
			if err != nil && isRefusal(err) {
				err = w.setAsideChange(ch, err)
				acked = err == nil
			}
			if err != nil {
				return firstErr(flush(), err)
			}
			if acked {
				idle = 0
			} else {
				idle = ch.Seq
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
	w.mu.Lock()
	again := w.pushAgain
	w.pushAgain = map[string]bool{}
	w.mu.Unlock()
	if err := w.relationPushes(again); err != nil {
		return err
	}
	for id := range again {
		_, err := w.pushItem(ctx, c, link, id, 0, 0)
		if err := refused(err); err != nil && isRefusal(err) {
			// As in the outbox: the remote's refusal is set aside, the
			// rest flows.
			if err := w.setAside(storage.SyncConflict{ItemID: id, Reason: "item updated: " + err.Error()}); err != nil {
				return err
			}
			delete(again, id)
			continue
		}
		if err != nil {
			w.mu.Lock()
			for id := range again {
				w.pushAgain[id] = true
			}
			w.mu.Unlock()
			return err
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// setAsideChange records an outbox entry the remote (or padd) refused,
// and acknowledges it so the rest can flow.
func (w *worker) setAsideChange(ch model.Change, why error) error {
	item := ch.ItemID
	if ch.Entity == model.EntityItem {
		item = ch.ID
	}
	w.m.log.Warn("sync: a local change was set aside", "workspace", w.slug, "entity", ch.Entity, "op", ch.Op, "reason", why)
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		if _, err := t.AddConflict(storage.SyncConflict{Kind: storage.EntrySetAside, ItemID: item, OutboxSeq: ch.Seq,
			Reason: fmt.Sprintf("%s %s: %v", ch.Entity, ch.Op, why)}); err != nil {
			return err
		}
		return t.AckOutbox(ch.Seq)
	})
}

// pushChange pushes one outbox entry. acked says it was acknowledged in
// a write of its own; otherwise it needed nothing and the caller acks it
// with the next.
func (w *worker) pushChange(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	var acked bool
	var err error
	switch ch.Entity {
	case model.EntityItem:
		acked, err = w.pushItem(ctx, c, link, ch.ID, ch.Seq, 0)
	case model.EntityComment:
		acked, err = w.pushComment(ctx, c, link, ch)
	case model.EntityLink:
		acked, err = w.pushLink(ctx, c, link, ch)
	case model.EntityCollection:
		acked, err = w.pushCollection(ctx, c, link, ch)
	case model.EntityStar:
		err = w.pushStar(ctx, c, link, ch)
	case model.EntityAttachment:
		acked, err = w.pushAttachment(ctx, c, link, ch)
	case model.EntityReaction:
		acked, err = w.pushReactions(ctx, c, link, ch)
	default:
		return false, nil // roles, leases, reminders stay local
	}
	return acked, refused(err)
}

// refused turns the remote's refusal of a change (400, 404 of an item,
// 422, an answer padd cannot read) into a model error, so the drain sets
// the change aside; other errors stay as they are.
func refused(err error) error {
	if err == nil {
		return nil
	}
	if remote.IsRefused(err) || remote.IsBadAnswer(err) || (remote.IsNotFound(err) && !remote.IsWorkspaceGone(err)) {
		return model.Invalid("the remote refused it: %v", err).With("reason", "remote_refused")
	}
	return err
}

// opKey is the idempotency key of a create: stable across restarts,
// unique per entity.
func opKey(localID string) string { return "padd-" + localID }

// pushItem brings one local item to the remote: a create when the remote
// does not have it yet, else the difference from its base.
func (w *worker) pushItem(ctx context.Context, c *remote.Client, link *storage.RemoteLink, itemID string, seq int64, depth int) (bool, error) {
	v, err := w.m.views.GetItem(w.wsID, itemID)
	if model.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, v.ID)
	if err != nil {
		return false, err
	}
	if !mapped {
		return true, w.createRemote(ctx, c, link, v, seq, depth)
	}
	return w.updateRemote(ctx, c, link, v, rid, seq, depth)
}

// remoteParent is the remote id of a local parent, pushing the parent
// first when the remote does not have it; "" when it cannot be had.
func (w *worker) remoteParent(ctx context.Context, c *remote.Client, link *storage.RemoteLink, parent string, depth int) (string, error) {
	if parent == "" {
		return "", nil
	}
	rp, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, parent)
	if err != nil || ok {
		return rp, err
	}
	if depth >= maxParentDepth {
		return "", nil
	}
	if _, err := w.pushItem(ctx, c, link, parent, 0, depth+1); err != nil {
		return "", err
	}
	rp, _, err = w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, parent)
	return rp, err
}

// parentField says a parent goes out as fields' "parent" (on a create)
// or fields_patch's (on an update; "" clears it), the way Pad's own
// clients set it: Pad keeps a child's parent as an item link of type
// parent, set that way, while a top-level parent_id sets only a legacy
// column that its UI does not show (and parent_id "" fails there); padd
// takes the field alike. A collection that declares its own parent or
// plan field keeps that key as a plain field on both, so there the
// parent goes as top-level parent_id and clear_parent, which padd takes.
func (w *worker) parentField(coll string) (bool, error) {
	c, err := w.m.views.GetCollectionAnyState(w.wsID, coll)
	if err != nil {
		return false, err
	}
	return !c.Schema.Declares("parent") && !c.Schema.Declares("plan"), nil
}

// withParent is fields with the parent key set to parent (fields is
// not changed).
func withParent(fields map[string]any, parent string) map[string]any {
	out := make(map[string]any, len(fields)+1)
	for k, v := range fields {
		out[k] = v
	}
	out["parent"] = parent
	return out
}

func flex(v any) api.Flex {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return api.Flex(b)
}

// createRemote creates a local item on the remote. The in-flight record
// is committed first, so that a padd killed while the request is out
// resolves its outcome before anything is sent again (settleInFlight).
func (w *worker) createRemote(ctx context.Context, c *remote.Client, link *storage.RemoteLink, v *storage.ItemView, seq int64, depth int) error {
	coll, err := w.remoteCollection(ctx, c, link, v.CollectionID)
	if err != nil {
		return err
	}
	sent := localSide(v)
	sent.Archived = false
	sent.Fields = withoutEntries(sent.Fields) // notes and decisions follow the create on their own (notes.go)
	// A relation naming an item the remote has not got goes once it has.
	if _, err := w.withhold(sent, nil, nil); err != nil {
		return err
	}
	rp, err := w.remoteParent(ctx, c, link, v.ParentID, depth)
	if err != nil {
		return err
	}
	out, err := w.relationsOut(v.CollectionID, sent.Fields)
	if err != nil {
		return err
	}
	fields := nonNil(w.outFields(out))
	in := api.ItemCreate{Title: v.Title, Content: w.outText(v.Content), Tags: flex(nonNilTags(v.Tags)), Pinned: v.Pinned}
	if rp != "" {
		asField, err := w.parentField(v.CollectionID)
		if err != nil {
			return err
		}
		if asField {
			fields = withParent(fields, rp)
		} else {
			in.ParentID = &rp
		}
	} else {
		sent.Parent = ""
	}
	in.Fields = flex(fields)
	cur, err := w.m.sync.SyncCursors(w.wsID)
	if err != nil {
		return err
	}
	key := opKey(v.ID)
	req, err := json.Marshal(sentCreate{Coll: coll, Item: &in, Side: sent})
	if err != nil {
		return err
	}
	if err := w.inFlight(storage.SyncInFlight{OutboxSeq: seq, OpKey: key, Entity: model.EntityItem,
		LocalID: v.ID, SentAt: time.Now().UTC(), ServerSentAt: c.ServerNow(), CursorBefore: cur.ItemsChangesSeq,
		Title: v.Title, Fingerprint: fingerprint(v.Content, v.Tags), Request: req}); err != nil {
		return err
	}
	it, err := c.CreateItem(ctx, link.RemoteWorkspaceID, coll, in, key)
	if rp != "" && archivedUnder(err) {
		// The remote may have archived the parent under the child: the
		// child keeps it alive there, as a comment does (keepAlive).
		if err := w.keepAlive(ctx, c, link, v.ParentID); err != nil {
			return err
		}
		it, err = c.CreateItem(ctx, link.RemoteWorkspaceID, coll, in, key)
	}
	if err != nil {
		return w.createFailed(err)
	}
	return w.adoptCreated(v.ID, sent, it, seq)
}

// inFlight commits the in-flight record of a create about to be sent.
// Without idempotency keys it says what to look for on the remote; with
// them it holds the request to send again with the same key (the server
// answers a key only for the request it first came with, and the item
// or comment may be edited here before the answer is known).
func (w *worker) inFlight(f storage.SyncInFlight) error {
	return w.m.sync.SetSyncInFlight(w.wsID, f)
}

// sentCreate is a create as it went out (SyncInFlight.Request).
type sentCreate struct {
	// An item's: the remote collection, the request, and what of the
	// local item it sent (local ids), the base once it is answered.
	Coll string          `json:"coll,omitempty"`
	Item *api.ItemCreate `json:"item,omitempty"`
	Side *merge.Item     `json:"side,omitempty"`
	// A comment's: its body as sent (remote ids) and as written here,
	// and the remote comment it replies to.
	Body   string `json:"body,omitempty"`
	Local  string `json:"local,omitempty"`
	Parent string `json:"parent,omitempty"`
}

// createFailed says what a failed create means: an outcome unknown
// waits for settleInFlight; a create the remote surely did not make (a
// refusal, or on a server without keys one never sent or turned away by
// its rate limiter) drops the in-flight record, so that a refusal can be
// set aside and the next try sends it at once instead of looking for it
// first.
func (w *worker) createFailed(err error) error {
	if w.caps != nil && w.caps.OpKeys {
		// With keys only a refusal proves the create was not made: any
		// other failure may answer the transport's own resend of a keyed
		// request whose first attempt landed and lost its answer (Go
		// resends one when a reused connection drops), so the record
		// stays and the next try resends it with its key, or looks for it
		// first once the key may be forgotten.
		return w.resendFailed(err)
	}
	if remote.IsOutcomeUnknown(err) {
		return w.unknownOutcome(err)
	}
	if refused(err) != err || remote.NotDone(err) {
		if cerr := w.clearInFlight(); cerr != nil {
			return cerr
		}
	}
	return err
}

func (w *worker) clearInFlight() error {
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.ClearInFlight() })
}

// adoptCreated records a create the remote answered: the id map, the
// remote's number as the item's ref, the remote's version merged (it may
// have added defaults) and made the base, the outbox entry acknowledged.
func (w *worker) adoptCreated(localID string, sent *merge.Item, it *api.Item, seq int64) error {
	rem, err := w.answered(it, sent)
	if err != nil {
		return err
	}
	return w.adopt(localID, sent, rem, seq)
}

// adopt records local item localID as remote item rem, created from
// sent (local ids): sent is merge's base, so that what either side
// changed since is kept, and rem becomes the item's base.
func (w *worker) adopt(localID string, sent *merge.Item, rem *remoteItem, seq int64) error {
	it := rem.api
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		if err := t.MapID(storage.SyncItem, localID, it.ID); err != nil {
			return err
		}
		if n := numberOf(it); n > 0 {
			if _, err := t.AdoptRef(localID, n); err != nil {
				return err
			}
		}
		if err := w.settle(t, localID, sent, rem); err != nil {
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

// updateRemote sends what changed since the base: restore, move, the
// patch (with the base's token, so the remote refuses it over a change
// padd has not seen), archive. A refusal for that reason is merged
// (the remote's version against the base) and tried again.
func (w *worker) updateRemote(ctx context.Context, c *remote.Client, link *storage.RemoteLink, v *storage.ItemView, rid string, seq int64, depth int) (bool, error) {
	for attempt := 0; ; attempt++ {
		b, err := w.m.sync.SyncBase(w.wsID, v.ID)
		if err != nil {
			return false, err
		}
		local := localSide(v)
		holdBack(local, baseSide(b), b) // a part past padd's limits there is not sent over it
		held, err := w.withhold(local, baseSide(b), b)
		if err != nil {
			return false, err
		}
		if b != nil && sameItem(baseSide(b), local) && len(b.Released) == 0 {
			return false, w.keepWaiting(v.ID, len(held) > 0)
		}
		if b != nil && w.m.log.Enabled(ctx, slog.LevelDebug) {
			w.m.log.Debug("sync: pushing an update", "workspace", w.slug, "item", v.ID, "remote_item", rid, "attempt", attempt,
				"collection", baseSide(b).Collection+" -> "+local.Collection,
				"archived", strconv.FormatBool(b.Archived)+" -> "+strconv.FormatBool(local.Archived), "base_seq", b.RemoteSeq, "base_updated_at", b.RemoteUpdatedAt)
		}
		it, sent, err := w.sendUpdate(ctx, c, link, rid, b, local, depth)
		if u, ok := errors.AsType[*unseenVersion](err); ok && attempt < 3 {
			// The remote holds a version padd has not merged: merge it
			// first, then send what is still ours on it.
			if err := w.applyRemote(ctx, c, link, u.it, depth); err != nil {
				return false, err
			}
			if v, err = w.m.views.GetItem(w.wsID, v.ID); err != nil {
				return false, err
			}
			continue
		}
		if _, ok := errors.AsType[*unseenVersion](err); ok {
			// Still a version padd has not merged after three merges:
			// one padd cannot take (set aside as it was pulled), or one
			// that keeps changing. The change is set aside, not wedged.
			return false, model.Invalid("%v, and padd could not merge it", err)
		}
		if _, conflict := remote.AsConflict(err); (conflict || remote.IsArchived(err)) && attempt < 3 {
			// The remote moved on under the write (or archived the item):
			// merge its version in, then send what is still ours.
			if err := w.reconcile(ctx, c, link, rid); err != nil {
				return false, err
			}
			if v, err = w.m.views.GetItem(w.wsID, v.ID); err != nil {
				return false, err
			}
			continue
		}
		if remote.IsOutcomeUnknown(err) && attempt < 3 {
			// Reading the item back tells whether it landed; the merge
			// against the base does the rest.
			if err := w.reconcile(ctx, c, link, rid); err != nil {
				return false, err
			}
			if v, err = w.m.views.GetItem(w.wsID, v.ID); err != nil {
				return false, err
			}
			continue
		}
		if err != nil {
			return false, err
		}
		rem, err := w.answered(it, sent)
		if err != nil {
			return false, err
		}
		return true, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			if err := w.settle(t, v.ID, sent, rem); err != nil {
				return err
			}
			if seq > 0 {
				return t.AckOutbox(seq)
			}
			return nil
		})
	}
}

// reconcile reads a remote item and merges it in (the conflict path).
func (w *worker) reconcile(ctx context.Context, c *remote.Client, link *storage.RemoteLink, rid string) error {
	return w.pullItem(ctx, c, link, rid, 0)
}

// sendUpdate sends base -> local to the remote item rid and returns the
// remote's item after it and what was asked of it.
func (w *worker) sendUpdate(ctx context.Context, c *remote.Client, link *storage.RemoteLink, rid string, b *storage.SyncBase, local *merge.Item, depth int) (*api.Item, *merge.Item, error) {
	base := baseSide(b)
	if base == nil {
		base = &merge.Item{}
	}
	sent := *local
	// Notes and decisions go on their own, after the patch (notes.go).
	entries := planEntries(base.Fields, local.Fields)
	sent.Fields = entries.sentFields(local.Fields, base.Fields)
	if len(entries.changed) > 0 && b != nil {
		if err := w.setAsideEntries(b.ItemID, entries, base.Fields, local.Fields); err != nil {
			return nil, nil, err
		}
	}
	rws := link.RemoteWorkspaceID
	guard := remote.Base{}
	if b != nil {
		guard = remote.Base{Seq: b.RemoteSeq, UpdatedAt: remoteBaseTime(b)}
	}
	var it *api.Item
	// took makes a write's answer the version the next write is made
	// on. Restore and move carry no guard, and their answer is the whole
	// item: one that holds an edit padd has not merged is merged before
	// the patch is sent on it.
	took := func(x *api.Item) error {
		it = x
		guard = remote.Base{Seq: x.Seq, UpdatedAt: x.UpdatedAt}
		unseen, err := w.holdsMore(x, base, local)
		if err == nil && unseen {
			err = &unseenVersion{x}
		}
		return err
	}
	// readFirst reads the item before a write its base cannot guard (a
	// move or an archive, which no server guards; a patch guarded only
	// by a whole second) when padd holds no answer from this push yet:
	// a version padd has not merged (the remote moved the item, say) is
	// merged first, so that the write does not undo it unseen.
	readFirst := func() error {
		if it != nil || b == nil {
			return nil
		}
		x, err := c.GetItem(ctx, rws, rid)
		if err != nil {
			return err
		}
		if moved, err := w.movedSince(x, base); err != nil || moved || newer(x, b) {
			return firstErr(err, &unseenVersion{x})
		}
		it, guard = x, remote.Base{Seq: x.Seq, UpdatedAt: x.UpdatedAt}
		return nil
	}
	// An item archived on both sides with edits here is restored for
	// them and archived again: Pad takes no change to an archived item.
	edited := *local
	edited.Archived = base.Archived
	reopen := base.Archived && local.Archived && !sameItem(base, &edited)
	if base.Archived && (!local.Archived || reopen) {
		x, err := c.RestoreItem(ctx, rws, rid)
		if err != nil {
			return nil, nil, err
		}
		if !reopen {
			w.backToLife(rid)
			if err := took(x); err != nil {
				return nil, nil, err
			}
		} else {
			more, err := w.holdsMore(x, base, local)
			if err != nil {
				return nil, nil, err
			}
			if more {
				// Another's edit came with it: it is merged as the
				// archived item it was, and the restore is made again.
				was := *x
				at := x.UpdatedAt
				was.DeletedAt = &at
				return nil, nil, &unseenVersion{&was}
			}
			if err := w.reopened(b); err != nil {
				return nil, nil, err
			}
			base.Archived = false
			it, guard = x, remote.Base{Seq: x.Seq, UpdatedAt: x.UpdatedAt}
		}
	}
	if base.Collection != local.Collection {
		coll, err := w.remoteCollection(ctx, c, link, local.Collection)
		if err != nil {
			return nil, nil, err
		}
		if err := readFirst(); err != nil {
			return nil, nil, err
		}
		x, err := c.MoveItem(ctx, rws, rid, coll)
		if remote.IsRefused(err) {
			x, err = w.movedThere(ctx, c, rws, rid, local.Collection, err)
		}
		if err != nil {
			return nil, nil, err
		}
		if err := took(x); err != nil {
			return nil, nil, err
		}
	}
	var u api.ItemUpdate
	patch := false
	var parentPatch *string // the parent as fields_patch carries it (parentField)
	if local.Parent != base.Parent {
		rp, err := w.remoteParent(ctx, c, link, local.Parent, depth)
		if err != nil {
			return nil, nil, err
		}
		asField, err := w.parentField(local.Collection)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case local.Parent != "" && rp == "":
			sent.Parent = base.Parent // the parent cannot reach the remote yet
		case asField:
			parentPatch, patch = &rp, true
		case local.Parent == "":
			u.ClearParent, patch = true, true
		default:
			u.ParentID, patch = &rp, true
		}
	}
	if local.Title != base.Title {
		u.Title, patch = &sent.Title, true
	}
	if local.Content != base.Content {
		content := w.outText(sent.Content)
		u.Content, patch = &content, true
	}
	fp := withoutEntries(fieldsPatch(base.Fields, local.Fields))
	if b != nil {
		// A held part the user released goes as the item has it, over
		// the remote's, whatever the base holds (held.go).
		for _, part := range b.Released {
			switch k, field := strings.CutPrefix(part, "fields."); {
			case part == "title":
				u.Title, patch = &sent.Title, true
			case part == "content":
				content := w.outText(sent.Content)
				u.Content, patch = &content, true
			case part == "tags":
				u.Tags, patch = flex(nonNilTags(local.Tags)), true
			case field && !model.IsReservedField(k):
				if fp == nil {
					fp = map[string]any{}
				}
				fp[k] = local.Fields[k] // nil: the remote's is removed
			}
		}
	}
	p, err := w.relationsOut(local.Collection, fp)
	if err != nil {
		return nil, nil, err
	}
	if p := w.outFields(p); len(p) > 0 || parentPatch != nil {
		if parentPatch != nil {
			p = withParent(p, *parentPatch)
		}
		u.FieldsPatch, patch = flex(p), true
	}
	if !sameSet(base.Tags, local.Tags) {
		u.Tags, patch = flex(nonNilTags(local.Tags)), true
	}
	if local.Pinned != base.Pinned {
		u.Pinned, patch = &sent.Pinned, true
	}
	if patch && b != nil && !c.Capabilities().ExpectedSeq && !w.covered(b) {
		// Without expected_seq the guard is the base's updated_at, which
		// the Pad of August 2026 compares in whole seconds: a write made
		// there in the base's second would pass it. Unless a read of the
		// feed has covered that second since (covered), the item is read
		// first, and a version padd has not merged is merged before the
		// patch goes (a write between this read and the patch, in the
		// same second, is the one this server cannot refuse).
		if err := readFirst(); err != nil {
			return nil, nil, err
		}
	}
	if patch {
		u.Force = true // the open-children guard held where the edit was made
		x, err := c.UpdateItem(ctx, rws, rid, u, guard)
		if err != nil {
			return nil, nil, err
		}
		it, guard = x, remote.Base{Seq: x.Seq, UpdatedAt: x.UpdatedAt}
	}
	if len(entries.added) > 0 {
		// Compared with the remote's latest version first: an entry it
		// holds already is not sent again.
		if err := readFirst(); err != nil {
			return nil, nil, err
		}
		if it == nil {
			x, err := c.GetItem(ctx, rws, rid)
			if err != nil {
				return nil, nil, err
			}
			it = x
		}
		x, err := w.pushEntries(ctx, c, rws, rid, it, base.Fields, entries.added)
		if err != nil {
			return nil, nil, err
		}
		it, guard = x, remote.Base{Seq: x.Seq, UpdatedAt: x.UpdatedAt}
	}
	if local.Archived && !base.Archived {
		if err := readFirst(); err != nil {
			return nil, nil, err
		}
		if err := c.ArchiveItem(ctx, rws, rid); err != nil {
			return nil, nil, err
		}
		it = nil
	}
	if it == nil {
		x, err := c.GetItem(ctx, rws, rid)
		if err != nil {
			return nil, nil, err
		}
		it = x
	}
	return it, &sent, nil
}

// movedThere answers a refused move (refusal) with the remote's item
// when it is already in the collection the move named (local id coll):
// both sides made the same move, and Pad refuses a move to the
// collection an item is in.
func (w *worker) movedThere(ctx context.Context, c *remote.Client, rws, rid, coll string, refusal error) (*api.Item, error) {
	x, err := c.GetItem(ctx, rws, rid)
	if err != nil {
		return nil, refusal
	}
	rem, err := w.mapped(x)
	if err != nil || rem.side.Collection != coll {
		return nil, refusal
	}
	return x, nil
}

// reopened records that padd restored on the remote an item archived on
// both sides (base b), to make a change Pad takes on a live item only;
// padd archives it again once the change is made. The base says alive
// with its old tokens: a padd killed before the archive reads the
// restore back from the feed, merges it (alive there, archived here)
// and pushes the archive.
func (w *worker) reopened(b *storage.SyncBase) error {
	nb := *b
	nb.Archived = false
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.SetBase(nb) })
}

// unseenVersion is a remote version of an item that padd has not
// merged, met while pushing an update on an older one.
type unseenVersion struct{ it *api.Item }

func (u *unseenVersion) Error() string {
	return "the remote's item " + u.it.ID + " changed since padd last read it"
}

// newer says remote item x is a later version than base b: by seq where
// both carry one, else by updated_at.
func newer(x *api.Item, b *storage.SyncBase) bool {
	if x.Seq > 0 && b.RemoteSeq > 0 {
		return x.Seq > b.RemoteSeq
	}
	return x.UpdatedAt.After(remoteBaseTime(b))
}

// movedSince says remote item x is in another collection than base
// (local ids): a move padd has not merged, which the Pad of August 2026
// may have made in the base's second, where updated_at cannot tell.
func (w *worker) movedSince(x *api.Item, base *merge.Item) (bool, error) {
	coll, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncCollection, x.CollectionID)
	return ok && coll != base.Collection, err
}

// feedRead notes a full read of the item feed that began at start. A
// base recorded a second or more before it cannot hide a write made in
// its updated_at's second (that second had ended when the read began,
// so the read saw the write and merged it, moving the base on): it is
// covered.
func (w *worker) feedRead(start time.Time) {
	w.mu.Lock()
	w.coveredTo = start.Add(-time.Second)
	w.mu.Unlock()
}

// covered says a read of the feed has covered base b (feedRead). A base
// with no recording time was written before this worker started.
func (w *worker) covered(b *storage.SyncBase) bool {
	at := b.RecordedAt
	if at.IsZero() {
		at = w.started
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.coveredTo.IsZero() && !at.After(w.coveredTo)
}

// holdsMore says the answer x to padd's own restore or move holds an
// edit the local side lacks: merged against base, it would change the
// local item's title, text, fields, tags or pin. (Its collection and
// archived state are what padd just asked for, fields a move migrated
// are migrated alike here, and a parent is settled by the merge of the
// patch's answer.)
func (w *worker) holdsMore(x *api.Item, base, local *merge.Item) (bool, error) {
	rem, err := w.decode(x)
	if err != nil {
		return false, err
	}
	rem.side.Collection = local.Collection
	if err := w.mapRelations(rem, nil); err != nil {
		return false, err
	}
	rem.holdWaiting(base)
	rem.holdOver(base)
	got := rem.side
	got.Collection, got.Archived, got.Parent = local.Collection, local.Archived, local.Parent
	return merge.Merge(base, local, &got).WriteLocal, nil
}

func sameItem(a, b *merge.Item) bool {
	return merge.Merge(a, b, a).Outcome == merge.Unchanged
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func nonNilTags(t []string) []string {
	if t == nil {
		return []string{}
	}
	return t
}
