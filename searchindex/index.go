package searchindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	zap "github.com/blevesearch/zapx/v17"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func init() {
	// zap sizes a new segment's buffer for the batch's documents plus
	// 100 more at the last segment's bytes per document. The indexer's
	// batches hold a document or two, so each allocated and cleared
	// megabytes it never used: 4 % of padd's CPU under the load run, and
	// garbage for the collector. The estimate for the batch itself is
	// kept.
	zap.NewSegmentBufferNumResultsBump = 0
}

// Dir is the index directory's name inside the data directory.
const Dir = "search.bleve"

// States of the index.
const (
	StateReady      = "ready"
	StateRebuilding = "rebuilding"
	StateFailed     = "failed"
)

const (
	batchSize = 500
	// coalesceDelay is how long the indexer gathers commits into one
	// batch. Each batch costs Bleve a segment, and later a merge: 10 ms
	// took a third off the indexer's CPU under an agents' load (about 3 %
	// of padd's), but an agent's search right after its own write waits
	// for the batch that holds it, and the larger batch made a search's
	// p50 about a tenth slower (docs/PERFORMANCE.md). A search that waits
	// cuts the gathering short (hurry) whatever the delay.
	coalesceDelay = 2 * time.Millisecond
	kFormat       = "padd:format"
	kWatermark    = "padd:wm:"
	kFlush        = "padd:flushed" // written at close, to wait for the persister
)

// Status is what `padctl index status` shows.
type Status struct {
	State      string           `json:"state"`
	Reason     string           `json:"reason,omitempty"`
	Done       int              `json:"done"`
	Total      int              `json:"total"`
	Docs       uint64           `json:"docs"`
	SizeBytes  int64            `json:"size_bytes"`
	Watermarks map[string]int64 `json:"watermarks"`
	Error      string           `json:"error,omitempty"`
}

// Index is the search index and its indexer.
type Index struct {
	path  string
	store *storage.Store
	log   *slog.Logger

	// use is held (shared) while the Bleve index is searched or written,
	// and exclusively to close or replace it.
	use sync.RWMutex

	mu      sync.Mutex
	changed *sync.Cond // signalled when a watermark moves or the state changes
	bi      bleve.Index
	asked   bool   // a rebuild was requested
	damage  string // why the live index was found damaged ("": it was not)
	wm      map[string]int64
	state   string
	reason  string
	done    int
	total   int
	err     error
	kick    chan struct{}
	hurry   chan struct{} // a search waits for changes the indexer is still gathering

	coalesce time.Duration // coalesceDelay; tests lengthen it

	facets   facetTables   // per-segment facet terms of bi's segments
	postings postingsCache // decoded postings of words searched in bi's large segments
}

// Open opens the index in dataDir, or prepares a rebuild when it is
// missing, unreadable or of another format. Run does the work.
func Open(dataDir string, store *storage.Store, log *slog.Logger) (*Index, error) {
	x := &Index{path: filepath.Join(dataDir, Dir), store: store, log: log, wm: map[string]int64{},
		state: StateReady, kick: make(chan struct{}, 1), hurry: make(chan struct{}, 1),
		coalesce: coalesceDelay}
	x.changed = sync.NewCond(&x.mu)
	bi, err := openChecked(x.path)
	switch {
	case err == nil:
		if v, _ := bi.GetInternal([]byte(kFormat)); string(v) != FormatVersion {
			bi.Close()
			return x, x.fresh(fmt.Sprintf("index format %q is not %q", v, FormatVersion), false)
		}
		x.bi = bi
		if err := x.loadWatermarks(); err != nil {
			bi.Close()
			return x, x.fresh("watermarks unreadable: "+err.Error(), true)
		}
		return x, nil
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist):
		return x, x.fresh("no index yet", false)
	default:
		if strings.Contains(err.Error(), "timeout") {
			return nil, fmt.Errorf("search index %s is locked by another process: %w", x.path, err)
		}
		return x, x.fresh("index unreadable: "+err.Error(), true)
	}
}

// fresh throws away whatever is at the index path and marks the index
// for a full build (Run does it). A damaged index is moved aside for a
// look, not deleted; the index is derived data, so nothing is lost.
func (x *Index) fresh(reason string, damaged bool) error {
	for _, p := range []string{x.path, x.building()} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		aside := p + ".broken-" + time.Now().UTC().Format("20060102T150405")
		if p != x.path || !damaged || os.Rename(p, aside) != nil {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("remove old search index %s: %w", p, err)
			}
		} else {
			x.log.Warn("search index was unreadable; moved aside and rebuilding", "aside", aside, "reason", reason)
		}
	}
	x.bi = nil
	x.facets.reset()
	x.postings.reset()
	x.wm = map[string]int64{}
	x.state, x.reason, x.done, x.total = StateRebuilding, reason, 0, 0
	x.log.Info("search index will be rebuilt", "reason", reason)
	return nil
}

// building is where a full build writes before it takes the index's place.
func (x *Index) building() string { return x.path + ".building" }

func (x *Index) loadWatermarks() error {
	wss, err := x.store.ListWorkspaces()
	if err != nil {
		return err
	}
	for _, ws := range wss {
		v, err := x.bi.GetInternal([]byte(kWatermark + ws.ID))
		if err != nil {
			return err
		}
		if len(v) == 8 {
			x.wm[ws.ID] = int64(binary.BigEndian.Uint64(v))
		}
	}
	return nil
}

// Close stops using the index. Run must have returned.
func (x *Index) Close() error {
	x.use.Lock()
	defer x.use.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.state = StateFailed
	x.changed.Broadcast()
	if x.bi == nil {
		return nil
	}
	x.flush(x.bi)
	err := x.bi.Close()
	x.bi = nil
	x.facets.reset()
	x.postings.reset()
	return err
}

// flush waits (a bounded time) until what the index holds in memory is
// on disk: batches return once searchable and Bleve's Close drops what
// its persister has not written yet, so without this a clean stop would
// leave the next start to re-index the last moments from the log.
func (x *Index) flush(bi bleve.Index) {
	done := make(chan error, 1)
	b := bi.NewBatch()
	b.SetInternal([]byte(kFlush), []byte(time.Now().UTC().Format(time.RFC3339Nano)))
	b.SetPersistedCallback(func(err error) { done <- err })
	if err := bi.Batch(b); err != nil {
		x.log.Warn("search index not flushed at close; it catches up at the next start", "err", err)
		return
	}
	select {
	case err := <-done:
		if err != nil {
			x.log.Warn("search index not flushed at close; it catches up at the next start", "err", err)
		}
	case <-time.After(5 * time.Second):
		x.log.Warn("search index flush at close timed out; it catches up at the next start")
	}
}

// Status reports the index's state and rebuild progress.
func (x *Index) Status() Status {
	x.mu.Lock()
	st := Status{State: x.state, Reason: x.reason, Done: x.done, Total: x.total, Watermarks: map[string]int64{}}
	if x.asked && x.state != StateRebuilding {
		// Requested but not yet started: say so, or a caller waiting for
		// the rebuild would read "ready" from the old index and stop.
		st.State, st.Reason, st.Done, st.Total = StateRebuilding, "rebuild requested", 0, 0
	}
	for k, v := range x.wm {
		st.Watermarks[k] = v
	}
	if x.err != nil {
		st.Error = x.err.Error()
	}
	bi := x.bi
	x.mu.Unlock()
	if bi != nil {
		st.Docs, _ = bi.DocCount()
	}
	st.SizeBytes = dirSize(x.path)
	return st
}

// Building says a rebuild is running or asked for: Status's state without
// the walk of the index directory, for a caller that asks often.
func (x *Index) Building() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.asked || x.state == StateRebuilding
}

func dirSize(p string) int64 {
	var n int64
	filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// Rebuild throws the index away and builds it again in the background.
func (x *Index) Rebuild() error {
	x.mu.Lock()
	x.asked = true
	x.mu.Unlock()
	x.poke()
	return nil
}

// startRebuild closes the current index and prepares a fresh build. Only
// Run calls it, so no batch is in flight.
func (x *Index) startRebuild() error {
	x.use.Lock()
	defer x.use.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.asked = false
	if x.state == StateRebuilding {
		return nil
	}
	reason, damaged := "rebuild requested", x.damage != ""
	if damaged {
		reason = x.damage
	}
	x.damage = ""
	if x.bi != nil {
		closeQuietly(x.bi)
		x.bi = nil
	}
	if err := x.fresh(reason, damaged); err != nil {
		x.state, x.err = StateFailed, err
		return err
	}
	x.changed.Broadcast()
	return nil
}

// damaged reports a live index that failed under a search or a batch
// (Bleve panics on some corrupt segments): it is moved aside and rebuilt
// in the background, and the caller is told the index is rebuilding.
func (x *Index) damaged(why string) error {
	x.log.Error("search index is damaged; moving it aside and rebuilding", "reason", why)
	x.mu.Lock()
	x.asked = true
	if x.damage == "" {
		x.damage = why
	}
	done, total := x.done, x.total
	x.mu.Unlock()
	x.poke()
	return &ErrRebuilding{Done: done, Total: total}
}

// closeQuietly closes a Bleve index that may be damaged: a panic while
// closing it is swallowed (the index is being thrown away).
func closeQuietly(bi bleve.Index) {
	defer func() { _ = recover() }()
	bi.Close()
}

func (x *Index) poke() {
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// Run follows the store until ctx ends: it builds the index when needed,
// catches up every workspace, then indexes each commit's changes. A
// failure (a full disk, say) is retried with a growing pause: the index
// is derived data, so it recovers on its own once the cause is gone.
func (x *Index) Run(ctx context.Context) {
	notes, cancel := x.store.Subscribe()
	defer cancel()
	dirty := map[string]bool{}
	all := true
	var retry <-chan time.Time
	pause := minRetry
	failed := func(err error) {
		x.fail(err, pause)
		retry = time.After(pause)
		pause = min(2*pause, maxRetry)
	}
	for {
		x.mu.Lock()
		asked := x.asked
		x.mu.Unlock()
		if asked {
			if err := x.startRebuild(); err != nil {
				failed(err)
			}
		}
		x.mu.Lock()
		rebuilding := x.state == StateRebuilding
		x.mu.Unlock()
		if rebuilding {
			if err := x.rebuild(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				failed(err)
			} else {
				retry, pause = nil, minRetry
			}
			all = true
		}
		if retry == nil {
			if err := x.catchUp(ctx, all, dirty); err != nil && ctx.Err() == nil {
				x.log.Warn("indexing failed; retrying", "err", err, "in", pause.String())
				retry = time.After(pause)
				pause = min(2*pause, maxRetry)
			} else {
				all, dirty, pause = false, map[string]bool{}, minRetry
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-retry:
			retry, all = nil, true
			x.mu.Lock()
			if x.state == StateFailed {
				x.asked = true // the index itself failed: build it again
			}
			x.mu.Unlock()
		case <-x.kick:
			all = true
		case n, ok := <-notes:
			if !ok {
				return
			}
			dirty[n.WorkspaceID] = true
			// Coalesce a burst of commits into one batch.
			timer := time.NewTimer(x.coalesce)
		drain:
			for {
				select {
				case n, ok := <-notes:
					if !ok {
						break drain
					}
					dirty[n.WorkspaceID] = true
				case <-timer.C:
					break drain
				case <-x.hurry:
					break drain
				case <-ctx.Done():
					break drain
				}
			}
			timer.Stop()
		}
	}
}

// The pause before retrying a failed build or batch doubles from
// minRetry up to maxRetry, so a long outage costs two log lines a minute.
const (
	minRetry = time.Second
	maxRetry = 30 * time.Second
)

func (x *Index) fail(err error, retryIn time.Duration) {
	x.mu.Lock()
	x.state, x.err = StateFailed, err
	x.changed.Broadcast()
	x.mu.Unlock()
	x.log.Error("search index failed; padd retries on its own, `padctl index rebuild` retries now", "err", err, "retry_in", retryIn.String())
}

// catchUp indexes the changes after each workspace's watermark.
func (x *Index) catchUp(ctx context.Context, all bool, dirty map[string]bool) error {
	var ids []string
	if all {
		wss, err := x.store.ListWorkspaces()
		if err != nil {
			return err
		}
		for _, ws := range wss {
			ids = append(ids, ws.ID)
		}
	} else {
		for id := range dirty {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	for _, ws := range ids {
		if err := x.catchUpWorkspace(ctx, ws); err != nil {
			if model.IsNotFound(err) {
				continue // deleted meanwhile
			}
			return err
		}
	}
	return nil
}

func (x *Index) catchUpWorkspace(ctx context.Context, ws string) error {
	for ctx.Err() == nil {
		x.mu.Lock()
		from := x.wm[ws]
		x.mu.Unlock()
		changes, head, err := x.store.ChangesSince(ws, from, 2000)
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			if head > from { // nothing to index, but the log moved (never shrinks)
				return x.commit(ws, head, nil)
			}
			return nil
		}
		seen := map[string]bool{}
		var items []string
		for _, ch := range changes {
			// Only items and their comments are in the index: a lease, a
			// star, a reminder or a link changes nothing it holds.
			if ch.Entity != model.EntityItem && ch.Entity != model.EntityComment {
				continue
			}
			if ch.ItemID != "" && !seen[ch.ItemID] {
				seen[ch.ItemID] = true
				items = append(items, ch.ItemID)
			}
		}
		docs, err := x.store.IndexDocs(ws, items)
		if err != nil {
			return err
		}
		if err := x.commit(ws, changes[len(changes)-1].Seq, docs); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// commit writes docs and the workspace's new watermark in one batch.
func (x *Index) commit(ws string, seq int64, docs []storage.IndexDoc) error {
	x.use.RLock()
	defer x.use.RUnlock()
	x.mu.Lock()
	bi := x.bi
	x.mu.Unlock()
	if bi == nil {
		return errors.New("search index is closed")
	}
	if len(docs) == 0 && seq > 0 {
		// Nothing indexed changed: move the watermark in memory only. The
		// next real batch persists it; a crash before then replays these
		// few changes, harmlessly.
		x.mu.Lock()
		if seq > x.wm[ws] {
			x.wm[ws] = seq
		}
		x.changed.Broadcast()
		x.mu.Unlock()
		return nil
	}
	if err := x.batch(bi, ws, seq, docs); err != nil {
		return err
	}
	x.mu.Lock()
	if seq > x.wm[ws] {
		x.wm[ws] = seq
	}
	x.changed.Broadcast()
	x.mu.Unlock()
	return nil
}

// batch writes one batch. A panic in Bleve (a damaged index) is an
// error, and the index is rebuilt.
func (x *Index) batch(bi bleve.Index, ws string, seq int64, docs []storage.IndexDoc) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = x.damaged(fmt.Sprintf("an index batch panicked: %v", p))
		}
	}()
	b := bi.NewBatch()
	for _, d := range docs {
		if d.Gone {
			b.Delete(d.ID)
			continue
		}
		if err := b.Index(d.ID, toDoc(d)); err != nil {
			return err
		}
	}
	if seq > 0 {
		wm := make([]byte, 8)
		binary.BigEndian.PutUint64(wm, uint64(seq))
		b.SetInternal([]byte(kWatermark+ws), wm)
	}
	if err := bi.Batch(b); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	return nil
}

// rebuild indexes every item of every workspace from scratch with
// Bleve's offline builder (far faster than online batches), beside the
// live path, then moves it into place, opens it and records each
// workspace's head (taken before its scan) as its watermark; the
// changes made during the build are then replayed from the log.
func (x *Index) rebuild(ctx context.Context) error {
	start := time.Now()
	wss, err := x.store.ListWorkspaces()
	if err != nil {
		return err
	}
	total := 0
	for _, ws := range wss {
		n, err := x.store.ItemCount(ws.ID)
		if err != nil {
			return err
		}
		total += n
	}
	x.mu.Lock()
	x.total, x.done = total, 0
	x.mu.Unlock()
	// The builder writes its segments in a scratch directory and renames
	// them into place: beside the index, that is the same filesystem (a
	// rename across filesystems fails) and not a RAM-backed /tmp.
	scratch := x.path + ".scratch"
	for _, p := range []string{x.building(), scratch} {
		os.RemoveAll(p)
	}
	defer os.RemoveAll(scratch)
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return fmt.Errorf("start building the search index: %w", err)
	}
	bld, err := bleve.NewBuilder(x.building(), buildMapping(), map[string]any{"batchSize": 2000, "buildPathPrefix": scratch})
	if err != nil {
		return fmt.Errorf("start building the search index: %w", err)
	}
	heads := map[string]int64{}
	indexed := 0
	// abandon drops a build that will not finish. Bleve's builder panics
	// closing an empty build, so one with nothing in it is only removed.
	abandon := func(err error) error {
		if indexed > 0 {
			bld.Close()
		}
		os.RemoveAll(x.building())
		return err
	}
	for _, ws := range wss {
		if heads[ws.ID], err = x.store.Head(ws.ID); err != nil {
			return abandon(err)
		}
		for after := ""; ; {
			if ctx.Err() != nil {
				return abandon(ctx.Err())
			}
			docs, next, err := x.store.ScanItems(ws.ID, after, batchSize)
			if err != nil {
				return abandon(err)
			}
			for _, d := range docs {
				if d.Gone {
					continue
				}
				if err := bld.Index(d.ID, toDoc(d)); err != nil {
					return abandon(fmt.Errorf("index item %s: %w", d.ID, err))
				}
				indexed++
			}
			x.mu.Lock()
			x.done += len(docs)
			x.mu.Unlock()
			if next == "" {
				break
			}
			after = next
		}
	}
	var bi bleve.Index
	if indexed == 0 {
		// Bleve's builder cannot finish an empty index; make one directly.
		os.RemoveAll(x.building())
		if bi, err = bleve.NewUsing(x.path, buildMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, durableConfig()); err != nil {
			return fmt.Errorf("create the search index: %w", err)
		}
	} else {
		if err := bld.Close(); err != nil {
			return fmt.Errorf("finish building the search index: %w", err)
		}
		if err := os.Rename(x.building(), x.path); err != nil {
			return err
		}
		if bi, err = bleve.OpenUsing(x.path, durableConfig()); err != nil {
			return fmt.Errorf("open the built search index: %w", err)
		}
	}
	b := bi.NewBatch()
	for ws, head := range heads {
		wm := make([]byte, 8)
		binary.BigEndian.PutUint64(wm, uint64(head))
		b.SetInternal([]byte(kWatermark+ws), wm)
	}
	// The format marks a finished build: a crash before this batch is on
	// disk leaves an index that Open rebuilds. This one batch waits for
	// the disk (durableConfig), then the index reopens for the fast,
	// searchable-when-introduced batches of normal work.
	b.SetInternal([]byte(kFormat), []byte(FormatVersion))
	if err := bi.Batch(b); err != nil {
		bi.Close()
		return err
	}
	if err := bi.Close(); err != nil {
		return err
	}
	if bi, err = bleve.OpenUsing(x.path, scorchConfig()); err != nil {
		return fmt.Errorf("open the built search index: %w", err)
	}
	// Gone before the index says it is ready, not after (the deferred
	// removal is for the builds that fail).
	os.RemoveAll(scratch)
	x.mu.Lock()
	x.bi = bi
	for ws, head := range heads {
		x.wm[ws] = head
	}
	x.state, x.reason = StateReady, ""
	x.changed.Broadcast()
	x.mu.Unlock()
	x.log.Info("search index built", "items", total, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// ErrRebuilding means the index is being built and cannot answer yet.
type ErrRebuilding struct{ Done, Total int }

func (e *ErrRebuilding) Error() string {
	return fmt.Sprintf("the search index is being rebuilt (%d of %d items); search again in a moment", e.Done, e.Total)
}

// WaitFor blocks until the index has caught up with a workspace's seq
// (and any rebuild has finished), so a caller finds what it just wrote.
// It gives up when ctx ends.
func (x *Index) WaitFor(ctx context.Context, ws string, seq int64) error {
	stop := context.AfterFunc(ctx, func() {
		x.mu.Lock()
		x.changed.Broadcast()
		x.mu.Unlock()
	})
	defer stop()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.wm[ws] < seq {
		select {
		case x.hurry <- struct{}{}:
		default:
		}
	}
	for x.wm[ws] < seq || x.state == StateRebuilding {
		if x.state == StateFailed {
			return fmt.Errorf("search index failed: %v; padd retries on its own, `padctl index rebuild` retries now", x.err)
		}
		if ctx.Err() != nil {
			if x.state == StateRebuilding {
				return &ErrRebuilding{Done: x.done, Total: x.total}
			}
			return fmt.Errorf("search index is behind (at %d of %d); try again: %w", x.wm[ws], seq, ctx.Err())
		}
		x.changed.Wait()
	}
	return nil
}

func toDoc(d storage.IndexDoc) doc {
	v := d.Item
	out := doc{Workspace: v.WorkspaceID, Collection: v.Collection.Slug, CollectionID: v.CollectionID,
		Ref: v.Ref, Title: v.Title, Tags: v.Tags, State: string(v.State()), Archived: v.DeletedAt != nil,
		Created: v.CreatedAt, Updated: v.UpdatedAt, TitleSort: strings.ToLower(v.Title)}
	out.Status, _ = v.Fields["status"].(string)
	out.Priority, _ = v.Fields["priority"].(string)
	out.Facet = out.Collection + facetSep + out.Status
	var text []string
	for _, k := range sortedKeys(v.Fields) {
		if k == "status" || k == "priority" || model.IsReservedField(k) {
			continue
		}
		switch val := v.Fields[k].(type) {
		case string:
			if _, isID := v.RelationTargets[k]; !isID {
				text = append(text, val)
			}
		case []any:
			for _, e := range val {
				if s, ok := e.(string); ok {
					text = append(text, s)
				}
			}
		}
	}
	for _, k := range []string{model.FieldImplementationNotes, model.FieldDecisionLog} {
		if list, ok := v.Fields[k].([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					for _, f := range []string{"summary", "details", "decision", "rationale"} {
						if s, ok := m[f].(string); ok && s != "" {
							text = append(text, s)
						}
					}
				}
			}
		}
	}
	// The body holds the title too: a word is one posting list to walk
	// (body), and the title's weight comes from an optional title clause.
	body := append([]string{v.Title, v.Content}, d.Comments...)
	body = append(body, text...)
	body = append(body, v.Tags...)
	out.Body = strings.Join(body, "\n\n")
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// durableConfig is scorchConfig whose batches return once on disk.
func durableConfig() map[string]any {
	c := scorchConfig()
	delete(c, "unsafe_batch")
	return c
}

// scorchConfig: never wait long on another process's lock; and let a
// batch return once it is searchable rather than once it is on disk. The
// watermark rides in the same batch, so after a crash the index and its
// watermark come back together from the last persisted snapshot and the
// indexer replays the rest from the change log.
func scorchConfig() map[string]any {
	// The persister naps between flushes so a burst of small batches
	// becomes one segment file on disk, not one each.
	return map[string]any{"bolt_timeout": "1s", "unsafe_batch": true,
		"scorchPersisterOptions": map[string]any{"persisterNapTimeMSec": 500}}
}
