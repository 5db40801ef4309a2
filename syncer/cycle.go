package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// cycle is one round of a worker: settle a create whose outcome is
// unknown, finish a bootstrap, pull what the remote said changed, push
// the outbox.
func (w *worker) cycle(ctx context.Context, link *storage.RemoteLink) error {
	c, err := w.clientFor(link)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.setState(storage.LinkTokenRefused, "padd has no token for this link: give it one with `padctl sync link`")
			return errStopped
		}
		return err
	}
	if w.caps == nil {
		caps, err := c.Probe(ctx)
		if err != nil {
			return err
		}
		w.mu.Lock()
		w.caps = caps
		w.mu.Unlock()
		if err := w.m.sync.UpdateSyncLink(w.wsID, func(l *storage.RemoteLink) error {
			if len(caps.Raw) <= storage.MaxProbeBytes && json.Valid(caps.Raw) {
				l.LastProbe = caps.Raw
			}
			l.LastProbeAt = time.Now().UTC()
			return nil
		}); err != nil {
			return err
		}
	}
	if link.Bootstrap == storage.BootstrapClone {
		w.setPhase(api.SyncPulling)
		if err := w.cloneAll(ctx, c, link); err != nil {
			return err
		}
		link.Bootstrap = ""
	}
	// waiting: a create whose answer was lost waits for its settle
	// time; the pull goes on meanwhile, holding back what may be the
	// create's (lost.go), and the push waits.
	var waiting error
	if err := w.settleInFlight(ctx, c, link); err != nil {
		if _, ok := errors.AsType[errRetryAt](err); !ok || link.Bootstrap == storage.BootstrapPush {
			return err
		}
		f, ferr := w.m.sync.SyncInFlight(w.wsID)
		if ferr != nil || f == nil {
			return firstErr(ferr, err)
		}
		h, ok, herr := w.holdForLost(f)
		if herr != nil || !ok {
			return firstErr(herr, err)
		}
		w.held, waiting = h, err
		defer func() { w.held = held{} }()
	}
	if link.Bootstrap == storage.BootstrapPush {
		w.setPhase(api.SyncPushing)
		if err := w.pushAll(ctx, c, link); err != nil {
			return err
		}
		link.Bootstrap = ""
	}

	w.mu.Lock()
	streaming := w.streaming // a pull from here on covers what the stream may have missed
	want := w.want.take()
	want.export = want.export || !w.exportRead.IsZero() && time.Since(w.exportRead) >= w.m.exportPeriod()
	w.mu.Unlock()
	err = w.pull(ctx, c, link, want.items, want.colls, want.catchUp, want.threads)
	if err == nil && want.resync {
		err = w.resyncGone(ctx, c, link)
	}
	if err == nil && want.stars {
		err = w.pullStars(ctx, c, link)
	}
	if err == nil && want.export {
		err = w.reconcileExport(ctx, c, link)
		switch {
		case err == nil && w.held.files:
			// An upload whose answer was lost may be among them: read
			// once it is settled.
			w.mu.Lock()
			w.want.export = true
			w.mu.Unlock()
		case err == nil:
			// No signal for them either; a remote whose list padd cannot
			// read is set aside, and the rest flows.
			err = w.asideIfRefused(w.pullAttachments(ctx, c, link, ""), "the remote's attachments")
		}
	}
	if err == nil {
		err = w.retryWaitingLinks()
	}
	if err == nil {
		// Relation values whose items arrived; at a full read, the items
		// still missing are read by themselves.
		err = w.resolveWaiting(ctx, c, link, want.export)
	}
	if err == nil && (want.items || want.export) {
		err = w.defaultsArrived(ctx, c, link)
	}
	if err == nil && !w.held.files {
		err = w.pullNamedAttachments(ctx, c, link)
	}
	if err != nil {
		w.mu.Lock()
		w.want.add(want)
		w.mu.Unlock()
		if waiting != nil && errors.Is(err, errLostCreateAhead) {
			return waiting
		}
		return err
	}
	if waiting != nil && !w.held.settled {
		return waiting // the pull did not meet the create
	}
	if err := w.drain(ctx, c, link); err != nil {
		return err
	}
	w.mu.Lock()
	w.live = streaming && w.streaming && !w.want.items
	w.mu.Unlock()
	w.exchanged()
	return nil
}

// pull does the pull part of a cycle; comments names the remote items
// whose comments and links to read (it grows with the catch-up).
func (w *worker) pull(ctx context.Context, c *remote.Client, link *storage.RemoteLink, items, colls, catchUp bool, comments map[string]bool) error {
	if colls {
		if err := w.pullCollections(ctx, c, link); err != nil {
			return err
		}
	}
	if items {
		w.setPhase(api.SyncPulling)
		start := time.Now()
		if err := w.pullItems(ctx, c, link); err != nil {
			return err
		}
		w.feedRead(start)
	}
	var mark *storage.SyncCursors
	if catchUp {
		var err error
		if mark, err = w.catchUpActivity(ctx, c, link, comments); err != nil {
			return err
		}
	}
	w.mu.Lock()
	for id := range w.want.threads { // items the pull just created
		comments[id] = true
	}
	w.want.threads = map[string]bool{}
	w.mu.Unlock()
	deferred := false
	for id := range comments {
		if id == w.held.commentsOf {
			// A comment whose answer was lost may be among them: read
			// once it is settled.
			deferred = true
			w.mu.Lock()
			w.want.thread(id)
			w.mu.Unlock()
			continue
		}
		if err := w.pullComments(ctx, c, link, id, outLinks); err != nil {
			if err := w.asideIfRefused(err, "the comments of the remote's item "+id); err != nil {
				return err
			}
		}
		delete(comments, id)
	}
	if err := w.relink(ctx, c, link); err != nil {
		return err
	}
	if mark == nil || deferred {
		return nil
	}
	// The activity mark moves on only now that the comments it named are
	// read: a padd stopped before this reads them again.
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.SetCursors(*mark) })
}

// exchanged records a successful exchange: in memory at once, in the
// link record at most once a minute (a write per cycle would double the
// cost of every local write while online).
func (w *worker) exchanged() {
	now := time.Now().UTC()
	w.mu.Lock()
	w.lastExchange = now
	due := now.Sub(w.storedExchange) >= time.Minute
	if due {
		w.storedExchange = now
	}
	w.mu.Unlock()
	if due {
		if err := w.m.sync.UpdateSyncLink(w.wsID, func(l *storage.RemoteLink) error { l.LastExchange = now; return nil }); err != nil {
			w.m.log.Warn("sync: the last exchange could not be recorded", "workspace", w.slug, "err", err)
		}
	}
}

// unknownOutcome turns a create whose outcome is unknown into a wait: on
// a server with idempotency keys the next cycle resends with the same
// key at once; on one without, settleInFlight reads whether it landed
// once the server's handler has surely finished.
func (w *worker) unknownOutcome(err error) error {
	if w.caps != nil && w.caps.OpKeys {
		return err
	}
	return w.settleLater(err)
}

// settleLater records when the server has surely finished with the
// in-flight create whose outcome err made unknown, and waits until then.
func (w *worker) settleLater(err error) error {
	f, ferr := w.m.sync.SyncInFlight(w.wsID)
	if ferr != nil || f == nil {
		return err
	}
	f.SettleAt = f.SentAt.Add(w.m.cfg.Settle)
	if !slowFailure(err) {
		f.SettleAt = minTime(f.SettleAt, time.Now().UTC().Add(min(quickSettle, w.m.cfg.Settle)))
	}
	if err := w.inFlight(*f); err != nil {
		return err
	}
	return errRetryAt{at: f.SettleAt, why: waitingFor(f)}
}

// opKeyLifetime is how long a server keeps an idempotency key's answer
// (padd as a remote: storage.IdemTTL). A create sent longer ago than
// that (a laptop closed for a weekend) is not sent again with its key,
// which the server may have forgotten and would make it twice: it is
// looked for first, as on a server without keys.
const opKeyLifetime = 24 * time.Hour

// quickSettle is how long after a create failed fast (its connection
// closed or reset, a 500 or 502: the server either never had it or has
// answered) padd waits before it looks for what it made and, not
// finding it, sends it again: long enough for a server that did take it
// to have finished, as Pad's handlers do within milliseconds, and short
// enough that a laptop back after a short outage pushes within seconds.
// A create that failed slowly (a timeout, a 504: the server may still be
// at it) waits the whole settle time.
const quickSettle = 4 * time.Second

// slowFailure says a create's unknown outcome came from waiting on the
// server (padd's timeout, a gateway's 504): it may still be working.
func slowFailure(err error) bool {
	var e *remote.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &e) && e.Status == http.StatusGatewayTimeout
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// settleAt is when the server has surely finished with in-flight create f.
func (w *worker) settleAt(f *storage.SyncInFlight) time.Time {
	if !f.SettleAt.IsZero() {
		return f.SettleAt
	}
	return f.SentAt.Add(w.m.cfg.Settle)
}

// waitingFor says in words what an in-flight create holds the push for.
func waitingFor(f *storage.SyncInFlight) string {
	what := map[string]string{model.EntityItem: "an item", model.EntityComment: "a comment",
		model.EntityAttachment: "an upload"}[f.Entity]
	if what == "" {
		what = "a create"
	}
	return what + " sent when the connection failed: padd looks for it on the remote before sending it again"
}

// settleInFlight resolves a create that was sent (or about to be) when
// its outcome became unknown: a timeout, a dropped connection, padd
// killed mid-request. With idempotency keys it is simply sent again with
// its key. Without, it is never sent again blindly: once the server has
// surely finished with it, the engine looks for it on the remote and
// adopts it when found, else clears the record so it is sent again.
func (w *worker) settleInFlight(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	f, err := w.m.sync.SyncInFlight(w.wsID)
	if err != nil || f == nil {
		return err
	}
	if w.caps.OpKeys && f.Entity != model.EntityAttachment && time.Since(f.SentAt) < opKeyLifetime { // an upload takes no key
		return w.resend(ctx, c, link, f)
	}
	at := w.settleAt(f)
	if time.Now().Before(at) {
		if f.Entity == model.EntityComment {
			// Its answer may be all that was lost: found now, it need not
			// wait (an item the pull meets is adopted as it goes, metLost).
			rc, req, err := w.lostComment(ctx, c, link, f)
			if err != nil {
				return err
			}
			if rc != nil {
				return w.adoptLostComment(f, rc, req)
			}
		}
		return errRetryAt{at: at, why: waitingFor(f)}
	}
	switch f.Entity {
	case model.EntityAttachment:
		return w.settleAttachment(ctx, c, link, f)
	case model.EntityItem:
		l, err := w.lostCreateOf(f)
		if err != nil || l == nil {
			return firstErr(err, w.clearInFlight()) // nil: gone here since
		}
		it, err := w.findCreatedItem(ctx, c, link, l)
		if err != nil {
			return err // looked for again next time: the record stays
		}
		if it == nil {
			return w.clearInFlight()
		}
		rem, err := w.mapped(it)
		if err != nil {
			return err
		}
		return w.adoptLost(l, rem)
	case model.EntityComment:
		rc, req, err := w.lostComment(ctx, c, link, f)
		if err != nil {
			return err
		}
		if rc == nil {
			return w.clearInFlight()
		}
		return w.adoptLostComment(f, rc, req)
	}
	return w.clearInFlight()
}

// lostComment looks for what in-flight comment create f made on the
// remote (nil: not there), and answers the request as it went (nil: a
// record from before requests were kept).
func (w *worker) lostComment(ctx context.Context, c *remote.Client, link *storage.RemoteLink, f *storage.SyncInFlight) (*api.Comment, *sentCreate, error) {
	req, kept := sentRequest(f)
	sentBody := ""
	if kept {
		sentBody = req.Body
	}
	rc, err := w.findCreatedComment(ctx, c, link, f, sentBody)
	if !kept {
		return rc, nil, err
	}
	return rc, &req, err
}

// adoptLostComment records remote comment rc as what in-flight create f
// made (req: the request as it went, or nil).
func (w *worker) adoptLostComment(f *storage.SyncInFlight, rc *api.Comment, req *sentCreate) error {
	if req != nil {
		// Its body as sent is the base: the next read of the item's
		// comments brings an edit made there since.
		w.mu.Lock()
		w.want.thread(f.RemoteItem)
		w.mu.Unlock()
		return w.adoptComment(f.LocalID, rc.ID, req.Local, f.OutboxSeq)
	}
	return w.adoptComment(f.LocalID, rc.ID, rc.Body, f.OutboxSeq)
}

// resend sends an in-flight create again with its key, as it first
// went out. A refusal means the first never landed (a refused write
// records nothing): the record goes, and the outbox sends the entity as
// it is now.
func (w *worker) resend(ctx context.Context, c *remote.Client, link *storage.RemoteLink, f *storage.SyncInFlight) error {
	req, kept := sentRequest(f)
	if !kept {
		return w.resendAsNow(ctx, c, link, f) // a record from before requests were kept
	}
	rws := link.RemoteWorkspaceID
	switch {
	case f.Entity == model.EntityItem && req.Item != nil && req.Side != nil:
		it, err := c.CreateItem(ctx, rws, req.Coll, *req.Item, f.OpKey)
		if err != nil {
			return w.resendFailed(err)
		}
		if _, err := w.m.views.GetItem(w.wsID, f.LocalID); model.IsNotFound(err) {
			return w.clearInFlight() // gone here since: the remote's copy comes back as new
		}
		return w.adoptCreated(f.LocalID, req.Side, it, f.OutboxSeq)
	case f.Entity == model.EntityComment:
		rc, err := sendComment(ctx, c, rws, f.RemoteItem, req.Parent, req.Body, f.OpKey)
		if err != nil {
			return w.resendFailed(err)
		}
		if _, err := w.m.views.GetComment(w.wsID, f.LocalID); model.IsNotFound(err) {
			return w.clearInFlight()
		}
		return w.adoptComment(f.LocalID, rc.ID, req.Local, f.OutboxSeq)
	}
	return w.resendAsNow(ctx, c, link, f)
}

// sentRequest is the create an in-flight record kept as it went out;
// false for a record from before requests were kept.
func sentRequest(f *storage.SyncInFlight) (sentCreate, bool) {
	var req sentCreate
	if f.Request == nil || json.Unmarshal(f.Request, &req) != nil {
		return sentCreate{}, false
	}
	return req, true
}

// resendFailed: an outcome still unknown waits for the next try; a
// refusal clears the record (the first never landed).
func (w *worker) resendFailed(err error) error {
	if !remote.IsOutcomeUnknown(err) && (refused(err) != err || remote.IsRefused(err)) {
		return w.clearInFlight()
	}
	return err
}

// resendAsNow pushes an in-flight create's entity as it is now, with its
// key: for a record that kept no request.
func (w *worker) resendAsNow(ctx context.Context, c *remote.Client, link *storage.RemoteLink, f *storage.SyncInFlight) error {
	switch f.Entity {
	case model.EntityItem:
		_, err := w.pushItem(ctx, c, link, f.LocalID, f.OutboxSeq, 0)
		return err
	case model.EntityComment:
		lc, err := w.m.views.GetComment(w.wsID, f.LocalID)
		if model.IsNotFound(err) {
			return w.clearInFlight()
		}
		if err != nil {
			return err
		}
		return w.createComment(ctx, c, link, lc, f.OutboxSeq)
	}
	return w.clearInFlight()
}

// activityPage is how many activity rows one read of a catch-up asks
// for; maxCatchUpRows bounds a catch-up: an absence longer than that is
// reconciled from the export instead (reconcileExport).
const (
	activityPage   = 200
	maxCatchUpRows = 20_000
)

// catchUpActivity reads the remote's activity back to the last row seen
// and adds each item with a comment or link action to comments: the
// changes Pad's seq feed does not carry, made while padd was not
// listening. It reads page after page until it reaches the mark (by
// keyset where the server pages so, as padd does, else by offset, as
// Pad does; rows that newer ones pushed down a page are read twice, none
// is skipped), and returns the cursors with the new mark (nil: none),
// for the caller to commit once it has read those comments. A mark it
// cannot reach (a long absence, a server that pages neither way) stays
// where it is, and the export reconciles every item's comments instead.
func (w *worker) catchUpActivity(ctx context.Context, c *remote.Client, link *storage.RemoteLink, comments map[string]bool) (*storage.SyncCursors, error) {
	cur, err := w.m.sync.SyncCursors(w.wsID)
	if err != nil {
		return nil, err
	}
	first := cur.ActivityID == "" && cur.ActivityAt.IsZero()
	older := func(row *api.Activity) bool { // at or past the mark: read before
		if !cur.ActivityAt.IsZero() {
			return row.CreatedAt.Before(cur.ActivityAt) // the mark's second is read again: Pad orders ties as it likes
		}
		return row.ID == cur.ActivityID
	}
	var newest *api.Activity
	seen := map[string]bool{}
	q := remote.ActivityQuery{Limit: activityPage}
	byOffset := false
	for read := 0; ; {
		rows, err := c.Activity(ctx, link.RemoteWorkspaceID, q)
		if err != nil {
			return nil, err
		}
		if newest == nil && len(rows) > 0 {
			newest = &rows[0]
		}
		reached := first || len(rows) == 0 // the feed's end: every row is read
		fresh := 0
		for i := range rows {
			row := &rows[i]
			if seen[row.ID] {
				continue
			}
			seen[row.ID] = true
			fresh++
			if older(row) {
				reached = true
				break
			}
			if first {
				break // no mark yet: the clone read everything, the mark starts here
			}
			if a := row.Action; (strings.Contains(a, "comment") || strings.Contains(a, "link")) && row.DocumentID != "" {
				comments[row.DocumentID] = true
			}
		}
		if reached {
			break
		}
		if fresh == 0 && !byOffset && read > 0 {
			byOffset = true // the server ignored the keyset and answered the first page again
		} else if fresh == 0 || read+len(rows) >= maxCatchUpRows {
			w.m.log.Info("sync: the remote's activity does not reach back to padd's mark; its export is read for the comments made meanwhile",
				"workspace", w.slug, "rows", len(seen))
			w.mu.Lock()
			w.want.export = true
			w.mu.Unlock()
			return nil, nil
		} else {
			read += len(rows)
		}
		last := rows[len(rows)-1]
		q = remote.ActivityQuery{Limit: activityPage}
		if byOffset {
			q.Offset = read
		} else {
			q.Before, q.BeforeID = last.CreatedAt, last.ID
		}
	}
	if newest == nil || cur.ActivityID == newest.ID {
		return nil, nil
	}
	cur.ActivityID, cur.ActivityAt = newest.ID, newest.CreatedAt
	return &cur, nil
}

// resyncGone finds the items deleted for good on the remote while padd
// was not told (its event stream said sync_required): every mapped item
// the remote's index no longer lists is read, and handled as gone.
func (w *worker) resyncGone(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	idx, err := c.ItemsIndex(ctx, link.RemoteWorkspaceID)
	if remote.IsNotFound(err) && !remote.IsWorkspaceGone(err) {
		return nil // no index on this server: the time feed has to do
	}
	if err != nil {
		return err
	}
	listed := make(map[string]bool, len(idx.Items))
	for i := range idx.Items {
		listed[idx.Items[i].ID] = true
	}
	mapped, err := w.m.sync.SyncMapped(w.wsID, storage.SyncItem)
	if err != nil {
		return err
	}
	for _, rid := range mapped {
		if listed[rid] {
			continue
		}
		if err := w.pullItem(ctx, c, link, rid, 0); err != nil {
			if err := w.asideIfRefused(err, "the remote's item "+rid); err != nil {
				return err
			}
		}
	}
	return nil
}

// reconcileExport reads the remote workspace's export, and with it
// brings here what no feed of Pad's carries:
//
//   - every link: those padd lacks are added, and those the remote no
//     longer has are removed: a mapped link the export lacks while it
//     holds both ends (padd's export has links between live items only,
//     Pad's every link). The Pad of August 2026 sends no event for a
//     blocks or relates link and moves no feed for one;
//   - every comment: each item whose comments there differ from padd's
//     (one padd has not mapped, one mapped that is gone there, one edited
//     there since both sides agreed) has its comments read. Pad writes no
//     activity for a reply, an edit or a delete, and replays its events
//     for five minutes only, so this is how those made during a longer
//     absence reach padd; the activity mark moves to the remote's newest
//     row once they are read.
//
// It runs at `sync now`, `resume`, a resync, a start, and every
// exportEvery while online (docs/SYNC.md).
func (w *worker) reconcileExport(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	top, err := c.Activity(ctx, link.RemoteWorkspaceID, remote.ActivityQuery{Limit: 1})
	if err != nil && !remote.IsNotFound(err) || remote.IsWorkspaceGone(err) {
		return err
	}
	th, err := w.readExport(ctx, c, link, "links made on the remote reach padd with their items")
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.exportRead = time.Now() // refused (a member), it is not asked again before exportEvery
	w.mu.Unlock()
	if th == nil {
		return nil
	}
	if err := w.applyLinks(th.Links); err != nil {
		return err
	}
	mapped, err := w.m.sync.SyncMapped(w.wsID, storage.SyncLink)
	if err != nil {
		return err
	}
	there := make(map[string]bool, len(th.Links))
	for i := range th.Links {
		there[th.Links[i].ID] = true
	}
	for local, rid := range mapped {
		if there[rid] {
			continue
		}
		if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			l, err := t.Link(local)
			if err != nil || l == nil {
				return err
			}
			src, ok1 := t.RemoteID(storage.SyncItem, l.SourceID)
			dst, ok2 := t.RemoteID(storage.SyncItem, l.TargetID)
			if !ok1 || !ok2 || !th.Items[src] || !th.Items[dst] {
				return nil // an end the export does not hold: it cannot say
			}
			if _, err := t.RemoveLink(local); err != nil {
				return err
			}
			return t.UnmapID(storage.SyncLink, local)
		}); err != nil && !isRefusal(err) {
			return err
		}
	}
	if err := w.reconcileComments(ctx, c, link, th); err != nil {
		return err
	}
	if len(top) == 0 || w.held.commentsOf != "" {
		return nil
	}
	cur, err := w.m.sync.SyncCursors(w.wsID)
	if err != nil || cur.ActivityID == top[0].ID {
		return err
	}
	cur.ActivityID, cur.ActivityAt = top[0].ID, top[0].CreatedAt
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.SetCursors(cur) })
}

// reconcileComments reads the comments of every remote item whose
// comments in export th differ from padd's (reconcileExport).
func (w *worker) reconcileComments(ctx context.Context, c *remote.Client, link *storage.RemoteLink, th *remote.Threads) error {
	differ := map[string]bool{}
	there := map[string]bool{}
	for ritem, rcs := range th.Comments {
		for i := range rcs {
			rc := &rcs[i]
			there[rc.ID] = true
			if differ[ritem] {
				continue
			}
			lid, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncComment, rc.ID)
			if err != nil {
				return err
			}
			if !ok {
				differ[ritem] = true // made there, or a reply (Pad's export names no parent)
				continue
			}
			same, known, err := w.m.sync.CommentBase(w.wsID, lid, storage.RewriteAttachmentRefs(rc.Body, w.inIDs("")))
			if err != nil {
				return err
			}
			if known && !same {
				differ[ritem] = true // edited there since both sides agreed
			}
		}
	}
	mapped, err := w.m.sync.SyncMapped(w.wsID, storage.SyncComment)
	if err != nil {
		return err
	}
	for local, rid := range mapped {
		if there[rid] {
			continue
		}
		lc, err := w.m.views.GetComment(w.wsID, local)
		if model.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if ritem, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, lc.ItemID); err != nil {
			return err
		} else if ok && th.Items[ritem] && lc.DeletedAt == nil {
			differ[ritem] = true // deleted there
		}
	}
	for ritem := range differ {
		if ritem == w.held.commentsOf {
			w.mu.Lock()
			w.want.thread(ritem) // read once the comment in flight is settled
			w.mu.Unlock()
			continue
		}
		if err := w.pullComments(ctx, c, link, ritem, noLinks); err != nil {
			if err := w.asideIfRefused(err, "the comments of the remote's item "+ritem); err != nil {
				return err
			}
		}
	}
	return nil
}
