package syncer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Attachments over sync (docs/SYNC.md, "Attachments"). An attachment
// pulled from the remote keeps the remote's id here, so that the
// pad-attachment:<id> references in the remote's text hold here as they
// are; one uploaded from here gets an id from the remote, and the id map
// translates references to it in item content, fields and comment bodies
// on the way out and back. Pad gives no signal for an upload, so the
// remote's attachments are read when its links are (reconcileExport: sync
// now, resume, a resync, a stream that connects) and, for one item, when
// a pulled item names an attachment padd does not have.

// attachState is what the worker knows of the remote's attachments.
type attachState int

const (
	attachUnknown attachState = iota // not probed yet
	attachOn                         // the remote keeps attachments
	attachOff                        // it has no attachment routes, or has them turned off
)

// blobs is the blob store the engine writes pulled attachments to: the
// one beside the store's database, opened on first use.
func (m *Manager) blobs() (*blobstore.Store, error) {
	m.blobOnce.Do(func() {
		m.blobStore, m.blobErr = blobstore.Open(filepath.Join(filepath.Dir(m.store.Path()), blobstore.DirName))
	})
	return m.blobStore, m.blobErr
}

// attachmentsOn says whether the remote keeps attachments, probing it
// once per worker.
func (w *worker) attachmentsOn(ctx context.Context, c *remote.Client, link *storage.RemoteLink) (bool, error) {
	w.mu.Lock()
	st := w.attach
	w.mu.Unlock()
	if st != attachUnknown {
		return st == attachOn, nil
	}
	on, err := c.HasAttachments(ctx, link.RemoteWorkspaceID)
	if err != nil {
		return false, err
	}
	w.mu.Lock()
	w.attach = attachOff
	if on {
		w.attach = attachOn
	}
	w.mu.Unlock()
	return on, nil
}

// Reference translation. Text going out names the remote's ids, text
// coming in padd's; an id the map does not have stays as it is.

// outID is the remote's id of attachment id, where the map has one.
func (w *worker) outID(id string) (string, bool) {
	rid, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncAttachment, id)
	return rid, ok && err == nil
}

// inIDs maps the remote's attachment ids in text from remote item
// remoteItem ("" for none known) to padd's; an attachment padd has under
// no id is noted, so the cycle reads that item's attachments.
func (w *worker) inIDs(remoteItem string) func(string) (string, bool) {
	return func(id string) (string, bool) {
		local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncAttachment, id)
		if err != nil {
			return "", false
		}
		if !ok && remoteItem != "" {
			if _, gerr := w.m.views.GetAttachment(w.wsID, id); model.IsNotFound(gerr) {
				w.mu.Lock()
				w.attachItems[remoteItem] = true
				w.mu.Unlock()
			}
		}
		return local, ok
	}
}

func (w *worker) outText(s string) string { return storage.RewriteAttachmentRefs(s, w.outID) }

func (w *worker) outFields(fields map[string]any) map[string]any {
	return storage.RewriteAttachmentRefsFields(fields, w.outID)
}

// pushAttachment pushes an attachment's outbox entry: an upload when the
// remote does not have it, a bind when it was attached here after its
// upload, a delete when it is gone here.
func (w *worker) pushAttachment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	on, err := w.attachmentsOn(ctx, c, link)
	if err != nil || !on {
		return false, err // a remote without attachments: they stay here (sync status says so)
	}
	rws := link.RemoteWorkspaceID
	rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncAttachment, ch.ID)
	if err != nil {
		return false, err
	}
	a, err := w.m.views.GetAttachment(w.wsID, ch.ID)
	if model.IsNotFound(err) {
		if !mapped {
			return false, nil
		}
		if err := c.DeleteAttachment(ctx, rws, rid); err != nil {
			return false, err
		}
		return true, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			return firstErr(t.UnmapID(storage.SyncAttachment, ch.ID), t.AckOutbox(ch.Seq))
		})
	}
	if err != nil {
		return false, err
	}
	if !mapped {
		return true, w.uploadAttachment(ctx, c, link, a, ch.Seq)
	}
	if ch.Op != model.OpUpdated || a.ItemID == "" {
		return false, nil
	}
	// Attached here after it was uploaded unattached.
	ritem, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, a.ItemID)
	if err != nil || !ok {
		return false, err
	}
	if w.caps != nil && w.caps.Has("attachment_attach") {
		err := c.AttachAttachment(ctx, rws, rid, ritem)
		if e := (*remote.Error)(nil); errors.As(err, &e) && e.Status == http.StatusConflict {
			err = nil // attached there already (attach is never a move)
		}
		return false, err
	}
	// A remote without attach takes the file again, on the item. The
	// unattached copy stays there: text there may name it (its id keeps
	// naming this file here, storage's mapID), and Pad's sweep removes it
	// after 30 days when nothing does.
	return true, w.uploadAttachment(ctx, c, link, a, ch.Seq)
}

// uploadAttachment sends a local attachment's bytes to the remote, on
// its item's remote twin. A Pad upload takes no idempotency key, so the
// in-flight record is written first whatever the server advertises: an
// upload whose outcome is unknown is looked for on the remote before it
// is sent again (settleAttachment).
func (w *worker) uploadAttachment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, a *storage.Attachment, seq int64) error {
	ritem := ""
	if a.ItemID != "" {
		var ok bool
		var err error
		ritem, ok, err = w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, a.ItemID)
		if err != nil {
			return err
		}
		if !ok {
			return model.Invalid("its item %s is not on the remote", a.ItemRef).With("reason", "item_not_synced")
		}
	}
	blobs, err := w.m.blobs()
	if err != nil {
		return err
	}
	f, err := blobs.Open(a.Hash)
	if err != nil {
		return model.Invalid("its bytes are missing here: %v", err).With("reason", "blob_missing")
	}
	defer f.Close()
	send := func() (*api.AttachmentUpload, error) {
		if err := w.m.sync.SetSyncInFlight(w.wsID, storage.SyncInFlight{OutboxSeq: seq, OpKey: opKey(a.ID),
			Entity: model.EntityAttachment, LocalID: a.ID, RemoteItem: ritem, SentAt: time.Now().UTC(),
			ServerSentAt: c.ServerNow()}); err != nil {
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return c.UploadAttachment(ctx, link.RemoteWorkspaceID, ritem, a.Filename, a.Size, f)
	}
	up, err := send()
	if ritem != "" && archivedUnder(err) {
		// The remote may have archived the item under the file: the file
		// keeps it alive there, as a comment does (keepAlive). The refusal
		// landed nothing, so the record goes before keepAlive, whose own
		// creates (a parent the remote lacks) keep records of their own.
		if err := w.clearInFlight(); err != nil {
			return err
		}
		if err := w.keepAlive(ctx, c, link, a.ItemID); err != nil {
			return err
		}
		up, err = send()
	}
	if err != nil {
		if remote.IsOutcomeUnknown(err) {
			return w.settleLater(err) // an upload takes no key
		}
		return firstErr(w.clearInFlight(), err)
	}
	return w.adoptAttachment(a.ID, up.ID, seq)
}

// adoptAttachment records an upload the remote answered (or one found
// there after an unknown outcome).
func (w *worker) adoptAttachment(localID, remoteID string, seq int64) error {
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		if err := firstErr(t.MapID(storage.SyncAttachment, localID, remoteID), t.ClearInFlight()); err != nil {
			return err
		}
		if seq > 0 {
			return t.AckOutbox(seq)
		}
		return nil
	})
}

// settleAttachment resolves an upload whose outcome was unknown, once
// the server has surely finished with it: the remote's attachment with
// the same bytes on the same item, not yet mapped, is it; with none, the
// record is dropped and the outbox sends it again.
func (w *worker) settleAttachment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, f *storage.SyncInFlight) error {
	a, err := w.m.views.GetAttachment(w.wsID, f.LocalID)
	if model.IsNotFound(err) {
		return w.clearInFlight()
	}
	if err != nil {
		return err
	}
	found := ""
	err = w.eachRemoteAttachment(ctx, c, link, f.RemoteItem, func(ra *api.Attachment) error {
		if found != "" || !strings.EqualFold(ra.ContentHash, a.Hash) || ra.SizeBytes != a.Size {
			return nil
		}
		if at, err := time.Parse(time.RFC3339Nano, ra.CreatedAt); err == nil && !madeSince(f, at) {
			return nil // the same bytes, uploaded before this upload was sent
		}
		if (ra.ItemID == nil) != (f.RemoteItem == "") {
			return nil
		}
		if _, taken, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncAttachment, ra.ID); err != nil || taken {
			return err
		}
		found = ra.ID
		return nil
	})
	if err != nil {
		return err
	}
	if found == "" {
		return w.clearInFlight()
	}
	return w.adoptAttachment(f.LocalID, found, f.OutboxSeq)
}

// maxRemoteAttachments bounds one walk of the remote's attachments: a
// server that pages on and on is not followed past it.
const maxRemoteAttachments = 200_000

// eachRemoteAttachment walks the remote's attachments, all or one item's,
// oldest first.
func (w *worker) eachRemoteAttachment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, item string, fn func(*api.Attachment) error) error {
	for offset := 0; ; {
		if offset >= maxRemoteAttachments {
			return &remote.Error{Kind: remote.KindBadAnswer, Method: "GET", Path: "attachments",
				Err: fmt.Errorf("the remote lists more than %d attachments", maxRemoteAttachments)}
		}
		page, err := c.ListAttachments(ctx, link.RemoteWorkspaceID, item, offset)
		if err != nil {
			return err
		}
		for i := range page.Attachments {
			if err := fn(&page.Attachments[i]); err != nil {
				return err
			}
		}
		offset += len(page.Attachments)
		if len(page.Attachments) < remote.AttachmentPage || (page.Total > 0 && offset >= page.Total) {
			return nil
		}
	}
}

// pullAttachments brings here the remote's attachments padd lacks (all,
// or those of one remote item), binds those attached there since, and,
// after a whole walk, deletes here those the remote deleted.
func (w *worker) pullAttachments(ctx context.Context, c *remote.Client, link *storage.RemoteLink, item string) error {
	on, err := w.attachmentsOn(ctx, c, link)
	if err != nil || !on {
		return err
	}
	if item == "" {
		// The whole list notes afresh which items' attachments wait.
		w.mu.Lock()
		w.attachWaiting = map[string]bool{}
		w.mu.Unlock()
	}
	there := map[string]bool{}
	if err := w.eachRemoteAttachment(ctx, c, link, item, func(ra *api.Attachment) error {
		there[ra.ID] = true
		return w.pullAttachment(ctx, c, link, ra)
	}); err != nil {
		return err
	}
	if item != "" {
		return nil
	}
	mapped, err := w.m.sync.SyncMapped(w.wsID, storage.SyncAttachment)
	if err != nil {
		return err
	}
	for local, rid := range mapped {
		if there[rid] {
			continue
		}
		if pending, err := w.m.sync.OutboxHolds(w.wsID, model.EntityAttachment, local); err != nil || pending {
			return err
		}
		if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			if _, err := t.DeleteAttachment(local); err != nil && !model.IsNotFound(err) {
				return err
			}
			return t.UnmapID(storage.SyncAttachment, local)
		}); err != nil {
			return err
		}
	}
	return nil
}

// pullAttachment brings one remote attachment here: its bytes to a blob
// (checked against the hash the remote lists), then its row, under the
// remote's id. One already here is bound to its item if the remote
// attached it since. One on an item padd does not have yet waits for
// that item.
func (w *worker) pullAttachment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ra *api.Attachment) error {
	litem := ""
	if ra.ItemID != nil && *ra.ItemID != "" {
		var ok bool
		var err error
		litem, ok, err = w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, *ra.ItemID)
		if err != nil || !ok {
			if err == nil {
				// Heard of before its item was pulled: read again once it is.
				w.mu.Lock()
				w.attachWaiting[*ra.ItemID] = true
				w.mu.Unlock()
				w.m.log.Debug("sync: an attachment waits for its item", "workspace", w.slug, "attachment", ra.ID, "remote_item", *ra.ItemID)
			}
			return err
		}
	}
	local, mapped, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncAttachment, ra.ID)
	if err != nil {
		return err
	}
	if mapped {
		a, err := w.m.views.GetAttachment(w.wsID, local)
		if err != nil || a.ItemID != "" || litem == "" {
			return ignoreNotFound(err)
		}
		return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			_, err := t.AttachAttachment(local, litem)
			return err
		})
	}
	if ra.SizeBytes > api.MaxAttachmentBytes {
		return w.setAside(storage.SyncConflict{Kind: storage.EntrySetAside, ItemID: litem,
			Reason: fmt.Sprintf("attachment %s (%s, %d bytes) is over padd's %d-byte limit; it stays on the remote", ra.ID, ra.Filename, ra.SizeBytes, int64(api.MaxAttachmentBytes))})
	}
	blobs, err := w.m.blobs()
	if err != nil {
		return err
	}
	body, err := c.OpenAttachment(ctx, link.RemoteWorkspaceID, ra.ID, ra.SizeBytes)
	if remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) {
		return nil // deleted since it was listed
	}
	if err != nil {
		return err
	}
	st, err := blobs.Stage(body, api.MaxAttachmentBytes)
	body.Close()
	if errors.Is(err, blobstore.ErrTooLarge) {
		return w.setAside(storage.SyncConflict{Kind: storage.EntrySetAside, ItemID: litem,
			Reason: fmt.Sprintf("attachment %s (%s) is over padd's %d-byte limit; it stays on the remote", ra.ID, ra.Filename, int64(api.MaxAttachmentBytes))})
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &remote.Error{Kind: remote.KindUnreachable, Method: "GET", Path: "attachments/" + ra.ID, Err: err}
	}
	defer st.Discard()
	if (ra.SizeBytes > 0 && st.Size != ra.SizeBytes) || (blobstore.ValidHash(strings.ToLower(ra.ContentHash)) && !strings.EqualFold(st.Hash, ra.ContentHash)) {
		return w.setAside(storage.SyncConflict{Kind: storage.EntrySetAside, ItemID: litem,
			Reason: fmt.Sprintf("attachment %s (%s) arrived as %d bytes hashing to %s, not the %d bytes and %s the remote lists; it was not kept", ra.ID, ra.Filename, st.Size, st.Hash, ra.SizeBytes, ra.ContentHash)})
	}
	sniffed := http.DetectContentType(st.Head)
	if _, err := st.Commit(); err != nil {
		return err
	}
	in := storage.NewAttachment{ItemRef: litem, Filename: ra.Filename, MIME: sniffed, Size: st.Size, Hash: st.Hash}
	if ra.Width != nil && ra.Height != nil {
		in.Width, in.Height = *ra.Width, *ra.Height
	}
	if at, err := time.Parse(time.RFC3339Nano, ra.CreatedAt); err == nil {
		in.CreatedAt = at
	}
	return w.asideIfRefused(w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		a, err := t.CreateAttachment(ra.ID, in)
		if model.IsCode(err, model.CodeValidation) || model.IsCode(err, model.CodeConflict) {
			// The remote's id is not one padd can use, or is taken here.
			a, err = t.CreateAttachment("", in)
		}
		if err != nil {
			return err
		}
		w.m.log.Debug("sync: attachment pulled", "workspace", w.slug, "attachment", ra.ID, "item", litem)
		return t.MapID(storage.SyncAttachment, a.ID, ra.ID)
	}), "attachment "+ra.ID)
}

func ignoreNotFound(err error) error {
	if model.IsNotFound(err) {
		return nil
	}
	return err
}

// pullNamedAttachments reads the attachments of the remote items whose
// pulled text named one padd lacks.
func (w *worker) pullNamedAttachments(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	w.mu.Lock()
	items := w.attachItems
	w.attachItems = map[string]bool{}
	w.mu.Unlock()
	for item := range items {
		if err := w.asideIfRefused(w.pullAttachments(ctx, c, link, item), "the attachments of remote item "+item); err != nil {
			w.mu.Lock()
			for item := range items {
				w.attachItems[item] = true
			}
			w.mu.Unlock()
			return err
		}
	}
	return nil
}

// pushAllAttachments uploads every local attachment the remote does not
// have (a link to an empty remote), then sends again the text of each
// item that names one: the items went first, with padd's ids in it.
func (w *worker) pushAllAttachments(ctx context.Context, c *remote.Client, link *storage.RemoteLink, items []*storage.ItemView) error {
	if on, err := w.attachmentsOn(ctx, c, link); err != nil || !on {
		return err
	}
	for offset := 0; ; {
		page, err := w.m.views.ListAttachments(w.wsID, storage.AttachmentFilter{Sort: "created_at", Limit: storage.MaxAttachmentPage, Offset: offset})
		if err != nil {
			return err
		}
		for i := range page.Attachments {
			a := &page.Attachments[i]
			if _, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncAttachment, a.ID); err != nil || ok {
				if err != nil {
					return err
				}
				continue
			}
			if err := w.uploadAttachment(ctx, c, link, a, 0); err != nil {
				if err := refusedOr(w, refused(err)); err != nil {
					return err
				}
			}
		}
		offset += len(page.Attachments)
		if len(page.Attachments) == 0 || offset >= page.Total {
			break
		}
	}
	for _, v := range items {
		if err := w.resendRefs(ctx, c, link, v.ID); err != nil {
			if err := refusedOr(w, refused(err)); err != nil {
				return err
			}
		}
	}
	return nil
}

// resendRefs sends item id's content and fields again where they name
// an attachment by padd's id that the remote knows by another.
func (w *worker) resendRefs(ctx context.Context, c *remote.Client, link *storage.RemoteLink, id string) error {
	v, err := w.m.views.GetItem(w.wsID, id)
	if err != nil {
		return ignoreNotFound(err)
	}
	rid, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, id)
	if err != nil || !ok {
		return err
	}
	var u api.ItemUpdate
	if out := w.outText(v.Content); out != v.Content {
		u.Content = &out
	}
	patch := map[string]any{}
	for k, val := range v.Fields {
		if nv, changed := storage.RewriteAttachmentRefsValue(val, w.outID); changed {
			patch[k] = nv
		}
	}
	if len(patch) > 0 {
		u.FieldsPatch = flex(patch)
	}
	if u.Content == nil && u.FieldsPatch == nil {
		return nil
	}
	b, err := w.m.sync.SyncBase(w.wsID, id)
	if err != nil {
		return err
	}
	guard := remote.Base{}
	if b != nil {
		guard = remote.Base{Seq: b.RemoteSeq, UpdatedAt: remoteBaseTime(b)}
	}
	u.Force = true
	it, err := c.UpdateItem(ctx, link.RemoteWorkspaceID, rid, u, guard)
	if err != nil {
		return err
	}
	sent := localSide(v)
	rem, err := w.answered(it, sent)
	if err != nil {
		return err
	}
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return w.settle(t, id, sent, rem) })
}
