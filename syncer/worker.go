package syncer

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// worker syncs one linked workspace. It runs cycles (settle an unknown
// outcome, pull, push) when woken: by a local write, by the remote's
// event stream, by `sync now`, or by its backoff timer after a failure.
// While the remote is reachable and nothing changes it holds no timer:
// only the event stream's connection is open.
type worker struct {
	m      *Manager
	wsID   string
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{} // capacity 1: a wake-up is never lost, never doubled
	// lastWrite is when the last local write to the workspace committed
	// (unix nanoseconds): settleWrites holds a push while they come.
	lastWrite atomic.Int64

	mu sync.Mutex
	// want is what the next cycle must read beyond the push (reads.go).
	want        reads
	relinkItems map[string]bool // remote item ids back to life there: their links to read both ways
	exportRead  time.Time       // when reconcileExport last read them
	attachItems map[string]bool // remote item ids whose attachments to read (their text names one padd lacks)
	// attachWaiting are remote items not pulled yet that have an
	// attachment padd read of: attachItems once they are pulled.
	attachWaiting map[string]bool
	waitingLinks  map[string]api.ItemLink // remote links whose ends padd does not have yet, by id
	attach        attachState             // whether the remote keeps attachments
	resetBackoff  bool
	// what status shows
	slug         string
	phase        string // api.Sync* state while active
	lastErr      string
	waiting      string // what the push waits for until nextTry (errRetryAt)
	offlineSince time.Time
	nextTry      time.Time
	caps         *remote.Capabilities
	streaming    bool // the remote's event stream is connected
	live         bool // and a cycle has pulled since it connected
	// lastExchange is the last cycle that went through; storedExchange
	// when the link record last heard of one.
	lastExchange, storedExchange time.Time
	published                    string // the last status published, as JSON
	seenConflict                 int64  // the newest conflict published

	// cycling is held while a cycle runs; cycleCancel ends the one
	// running, so that Pause and Unlink take effect at once.
	cycling     sync.Mutex
	cycleCancel context.CancelFunc

	client     *remote.Client
	clientLink storage.RemoteLink // the link the client was made for
	// userID is the user padd writes as on the remote, once learned
	// (remoteUser).
	userID    string
	held      held            // during a cycle: what a lost create holds back from the pull
	pushAgain map[string]bool // local items a merge left differing from the remote
	// slowReads counts, by remote item id, the cycles in a row whose read
	// of the item ended at its timeout (pull.go, slowRead).
	slowReads map[string]int

	// For the whole-second guard (sendUpdate): when the worker started
	// (a base with no recording time is older), and the time up to which
	// a full read of the item feed has covered every base recorded.
	started   time.Time
	coveredTo time.Time
}

func newWorker(m *Manager, wsID, slug string) *worker {
	ctx, cancel := context.WithCancel(m.ctx)
	return &worker{m: m, wsID: wsID, slug: slug, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		wake: make(chan struct{}, 1), want: reads{items: true, colls: true, catchUp: true, stars: true, threads: map[string]bool{}},
		relinkItems: map[string]bool{}, attachItems: map[string]bool{}, attachWaiting: map[string]bool{}, waitingLinks: map[string]api.ItemLink{}, pushAgain: map[string]bool{}, slowReads: map[string]int{}, phase: api.SyncPulling,
		started: time.Now()}
}

// interrupt ends the cycle running, if any, and returns once it has:
// the next one reads the link's state first.
func (w *worker) interrupt() {
	w.mu.Lock()
	if w.cycleCancel != nil {
		w.cycleCancel()
	}
	w.mu.Unlock()
	w.cycling.Lock()
	w.cycling.Unlock() //nolint:staticcheck // a barrier: the cycle has ended
	w.poke()
}

// between runs fn between two cycles: the running one is ended (as
// Pause ends it) and the next waits until fn returns.
func (w *worker) between(fn func() error) error {
	w.mu.Lock()
	if w.cycleCancel != nil {
		w.cycleCancel()
	}
	w.mu.Unlock()
	w.cycling.Lock()
	defer func() {
		w.cycling.Unlock()
		w.poke()
	}()
	return fn()
}

func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// localWrite is a commit to the workspace: its outbox may have grown.
func (w *worker) localWrite() {
	w.lastWrite.Store(time.Now().UnixNano())
	w.poke()
}

// exportEvery is how often the remote's links, comments and attachments
// are read from its export while padd is online (sync now, resume, a
// start and the stream's sync_required read it at once). Pad sends no
// event for a link or an upload, nor for a reply or a comment's edit, so
// this is the longest a teammate's waits to reach padd. It is longer
// than Pad's event replay keeps events (five minutes): a stream away
// longer is told sync_required, and reads the export then.
const exportEvery = 10 * time.Minute

// exportPeriod is exportEvery, or a test's shorter period
// (SetExportEvery).
func (m *Manager) exportPeriod() time.Duration {
	if d := time.Duration(m.exportEvery.Load()); d > 0 {
		return d
	}
	return exportEvery
}

// exportDue is how long until the export is to be read again.
func (w *worker) exportDue() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.exportRead.IsZero() {
		return w.m.exportPeriod() // not read yet: the start's read is pending
	}
	return w.m.exportPeriod() - time.Since(w.exportRead)
}

// A burst of local writes is pushed once it pauses: a cycle woken while
// they come waits until none came for writeSettle, and at most
// maxWriteSettle in all (a steady stream still goes out). The burst's
// writes then do not share the cores and the disk with their own push,
// and the push sends them together.
const (
	writeSettle    = 2 * time.Millisecond
	maxWriteSettle = 50 * time.Millisecond
)

// settleWrites waits while local writes come in a burst (see writeSettle).
func (w *worker) settleWrites() {
	start := time.Now()
	for {
		last := time.Unix(0, w.lastWrite.Load())
		wait := min(time.Until(last.Add(writeSettle)), time.Until(start.Add(maxWriteSettle)))
		if wait <= 0 {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-w.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// now is `sync now`: try at once, pull too, and forget the backoff.
func (w *worker) now() {
	w.mu.Lock()
	w.want.add(allReads())
	w.resetBackoff = true
	w.mu.Unlock()
	w.poke()
}

// networkChanged is a change of the machine's network: a worker backing
// off an unreachable remote tries again at once, as after `sync now`
// (the remote may be reachable from the new network). A worker online
// has nothing to do: its event stream notices a dead connection.
func (w *worker) networkChanged() {
	w.mu.Lock()
	offline := !w.offlineSince.IsZero()
	w.mu.Unlock()
	if offline {
		w.now()
	}
}

func (w *worker) run() {
	defer close(w.done)
	defer w.closeClient()
	var stream sync.WaitGroup
	defer stream.Wait()
	streamCtx, stopStream := context.WithCancel(w.ctx)
	defer stopStream()
	streaming := false

	failures := 0
	var retry *time.Timer
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	for {
		w.cycling.Lock()
		link, err := w.m.sync.SyncLink(w.wsID)
		if err != nil || link == nil {
			w.cycling.Unlock()
			if err != nil {
				w.m.log.Error("sync: the workspace's link could not be read; its sync stops", "workspace", w.slug, "err", err)
			}
			return // unlinked or gone
		}
		var timer <-chan time.Time
		if link.State == storage.LinkActive {
			if !streaming {
				if c, err := w.clientFor(link); err == nil {
					streaming = true
					stream.Go(func() { w.follow(streamCtx, c, link.RemoteWorkspaceID) })
				}
			}
			ctx, cancel := context.WithCancel(w.ctx)
			w.mu.Lock()
			w.cycleCancel = cancel
			w.mu.Unlock()
			err = w.cycle(ctx, link)
			interrupted := ctx.Err() != nil // by Pause, or by the worker's end
			cancel()
			w.mu.Lock()
			w.cycleCancel = nil
			if w.resetBackoff {
				failures, w.resetBackoff = 0, false
			}
			w.mu.Unlock()
			if err == nil {
				failures = 0
				w.setOnline()
				// Back when the export is due: what Pad gives no signal
				// for arrives within exportEvery.
				if retry != nil {
					retry.Stop()
				}
				retry = time.NewTimer(max(w.exportDue(), time.Second))
				timer = retry.C
			} else if errors.Is(err, context.Canceled) && w.ctx.Err() != nil {
				w.cycling.Unlock()
				return
			} else if interrupted {
				// stopped by Pause: the loop reads the new state next
			} else if d, ok := w.failed(link, err, &failures); ok {
				if retry != nil {
					retry.Stop()
				}
				retry = time.NewTimer(d)
				timer = retry.C
			}
		}
		w.cycling.Unlock()
		w.publishStatus()
		select {
		case <-w.ctx.Done():
			return
		case <-w.wake:
			w.settleWrites()
		case <-timer:
		}
	}
}

// errRetryAt asks the loop to come back at a given time without it being
// a failure (an unknown outcome settling); why says what for, in words
// (status's Waiting; "" for a short pause nobody needs to read about).
type errRetryAt struct {
	at  time.Time
	why string
}

func (e errRetryAt) Error() string {
	if e.why != "" {
		return e.why + " (until " + e.at.Format(time.RFC3339) + ")"
	}
	return "waiting until " + e.at.Format(time.RFC3339)
}

// failed records a failed cycle and says when to try again (false: not
// until the user acts).
func (w *worker) failed(link *storage.RemoteLink, err error, failures *int) (time.Duration, bool) {
	if errors.Is(err, errStopped) {
		return 0, false
	}
	var retry errRetryAt
	if errors.As(err, &retry) {
		w.mu.Lock()
		w.nextTry = retry.at
		news := retry.why != "" && retry.why != w.waiting
		w.waiting = retry.why
		w.mu.Unlock()
		if news {
			w.m.log.Info("sync: the push waits", "workspace", w.slug, "for", retry.why, "until", retry.at.Format(time.RFC3339))
		}
		return max(time.Until(retry.at), 0), true
	}
	switch {
	case remote.IsTokenRefused(err):
		w.setState(storage.LinkTokenRefused, "the remote refused the token: give padd a new one with `padctl sync link` (or resume once it is fixed)")
		return 0, false
	case remote.IsWorkspaceGone(err):
		w.setState(storage.LinkRemoteGone, "the remote workspace is gone: unlink it to keep the local data")
		return 0, false
	}
	*failures++
	d := w.backoff(*failures)
	w.mu.Lock()
	if w.offlineSince.IsZero() {
		w.offlineSince = time.Now().UTC()
	}
	w.lastErr, w.waiting = err.Error(), ""
	w.nextTry = time.Now().Add(d).UTC()
	w.phase = api.SyncOffline
	w.mu.Unlock()
	if !remote.Retryable(err) && !remote.IsOutcomeUnknown(err) {
		w.m.log.Warn("sync: a cycle failed; retrying later", "workspace", w.slug, "err", err, "retry_in", d.Round(time.Second))
	}
	return d, true
}

// backoff is the wait after n failures in a row: 1 s doubling to
// MaxBackoff, with full jitter.
func (w *worker) backoff(n int) time.Duration {
	w.m.mu.Lock()
	f := w.m.backoffFn
	w.m.mu.Unlock()
	if f != nil {
		return f(n)
	}
	d := time.Second << min(n-1, 20)
	if d > w.m.cfg.MaxBackoff || d <= 0 {
		d = w.m.cfg.MaxBackoff
	}
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

func (w *worker) setOnline() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.offlineSince, w.nextTry, w.lastErr, w.waiting = time.Time{}, time.Time{}, "", ""
	w.phase = api.SyncSynced
}

// setState stores a state only the user leaves (token refused, remote
// gone).
func (w *worker) setState(s storage.LinkState, why string) {
	if err := w.m.sync.UpdateSyncLink(w.wsID, func(l *storage.RemoteLink) error { l.State = s; return nil }); err != nil {
		w.m.log.Error("sync: the link's state could not be stored", "workspace", w.slug, "err", err)
	}
	w.mu.Lock()
	w.lastErr = why
	w.mu.Unlock()
	w.m.log.Warn("sync stopped until the user acts", "workspace", w.slug, "why", why)
}

func (w *worker) setPhase(p string) {
	w.mu.Lock()
	changed := w.phase != p
	w.phase = p
	w.mu.Unlock()
	if changed {
		w.publishStatus()
	}
}

// clientFor is the remote client for the link (made once, remade when
// the link's remote changes).
func (w *worker) clientFor(link *storage.RemoteLink) (*remote.Client, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil && w.clientLink.BaseURL == link.BaseURL && w.clientLink.TokenName == link.TokenName && w.clientLink.InsecureHTTP == link.InsecureHTTP {
		return w.client, nil
	}
	if w.client != nil {
		w.client.Close()
		w.client = nil
	}
	token, err := remote.LoadToken(w.m.cfg.DataDir, link.TokenName)
	if err != nil {
		return nil, err
	}
	opts := w.m.cfg.Client
	opts.Insecure = link.InsecureHTTP
	c, err := remote.New(link.BaseURL, token, opts)
	if err != nil {
		return nil, err
	}
	if w.caps != nil {
		c.SetCapabilities(w.caps)
	}
	w.client, w.clientLink, w.userID = c, *link, ""
	return c, nil
}

func (w *worker) closeClient() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.client != nil {
		w.client.Close()
		w.client = nil
	}
}

// follow keeps the remote's event stream open while the worker runs and
// turns its events into work for the next cycle. It reconnects with
// backoff; the cycle's own backoff polls the seq feed meanwhile.
func (w *worker) follow(ctx context.Context, c *remote.Client, remoteWS string) {
	failures := 0
	lastID := "" // a reconnect resumes after it: the server replays what was missed, or says sync_required
	for {
		for ev, err := range c.Events(ctx, remoteWS, lastID) {
			if err != nil {
				break
			}
			lastID = ev.ID
			w.heard(ev)
			failures = 0
		}
		w.mu.Lock()
		w.streaming, w.live = false, false
		w.mu.Unlock()
		w.publishStatus()
		if ctx.Err() != nil {
			return
		}
		failures++
		t := time.NewTimer(w.backoff(failures))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// heard turns one remote event into work. The echo of padd's own push
// (an item event whose seq the item's base already has) is none.
func (w *worker) heard(ev *remote.Event) {
	star := ev.Name == "item_starred" || ev.Name == "item_unstarred"
	if strings.HasPrefix(ev.Name, "item_") && !star && w.known(ev.Data.ItemID, ev.Data.Seq) {
		return
	}
	w.mu.Lock()
	switch {
	case ev.Name == "connected":
		w.streaming = true
		w.want.items, w.want.catchUp, w.want.stars, w.resetBackoff = true, true, true, true
		// Links made there while the stream was down have no other way
		// here, and replies and comment edits none but the stream's
		// replay (reconcileExport); a stream that comes and goes reads
		// them at most every exportEvery, as one that stays does.
	case ev.SyncRequired():
		w.want.add(allReads())
		w.want.resync = true
	case star:
		w.want.stars = true
	case strings.HasPrefix(ev.Name, "item_"):
		w.want.items = true
	case strings.HasPrefix(ev.Name, "comment_"), strings.HasPrefix(ev.Name, "reaction_"):
		if ev.Data.ItemID != "" {
			w.want.thread(ev.Data.ItemID)
		} else {
			w.want.catchUp = true
		}
	case strings.HasPrefix(ev.Name, "collection_"):
		w.want.colls = true
	case strings.HasPrefix(ev.Name, "link_"):
		if ev.Data.ItemID != "" {
			w.want.thread(ev.Data.ItemID) // links are read with the item's comments
		}
	case strings.HasPrefix(ev.Name, "attachment_"):
		// A server that announces uploads (padd as a remote; Pad does
		// not, and its uploads arrive with the export): the item's
		// attachments are read, unless the upload is padd's own echo. A
		// delete, or one on no item, needs the whole list.
		switch {
		case ev.Data.Op == model.OpDeleted || ev.Data.ItemID == "":
			w.want.export = true
		case !w.knownAttachment(ev.Data.EntityID):
			w.attachItems[ev.Data.ItemID] = true
		}
		w.m.log.Debug("sync: heard", "workspace", w.slug, "event", ev.Name, "remote_item", ev.Data.ItemID, "attachment", ev.Data.EntityID)
	default:
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	w.poke()
}

// knownAttachment says the remote attachment id is one padd has on an
// item already (its own upload, or one pulled): one it has unattached
// may have been attached there since.
func (w *worker) knownAttachment(remoteID string) bool {
	if remoteID == "" {
		return false
	}
	local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncAttachment, remoteID)
	if err != nil || !ok {
		return false
	}
	a, err := w.m.views.GetAttachment(w.wsID, local)
	return err == nil && a.ItemID != ""
}

// known says the local side has the remote item's version seq already.
func (w *worker) known(remoteItem string, seq int64) bool {
	if remoteItem == "" || seq <= 0 {
		return false
	}
	local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, remoteItem)
	if err != nil || !ok {
		return false
	}
	b, err := w.m.sync.SyncBase(w.wsID, local)
	return err == nil && b != nil && seq <= b.RemoteSeq
}

// remoteUser is the user padd writes as on the remote, asked once per
// worker; "" while unknown (the server was not reached, or has no such
// route), and a comment's author then tells nothing.
func (w *worker) remoteUser(ctx context.Context, c *remote.Client) string {
	w.mu.Lock()
	id := w.userID
	w.mu.Unlock()
	if id != "" {
		return id
	}
	id, err := c.UserID(ctx)
	if err != nil || id == "" {
		return ""
	}
	w.mu.Lock()
	if w.client == c {
		w.userID = id
	}
	w.mu.Unlock()
	return id
}
