package searchindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	zap "github.com/blevesearch/zapx/v17"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

func init() {
	// zap sizes a new segment's buffer for the batch's documents plus
	// 100 more at the last segment's bytes per document. The indexer's
	// batches hold a document or two, so each allocated and cleared
	// megabytes it never used: CPU under load, and garbage for the
	// collector (docs/PERFORMANCE.md, "Why the code is as it is"). The estimate for
	// the batch itself is kept.
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
	// batch. Each batch costs Bleve a segment, and later a merge, so a
	// longer delay saves the indexer CPU under an agents' load; but an
	// agent's search right after its own write waits for the batch that
	// holds it, and the larger batch made a search slower. The short delay
	// won (docs/PERFORMANCE.md, "Why the code is as it is"). A search that waits cuts
	// the gathering short (hurry) whatever the delay.
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
	views *views.Views // the store's reads
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
	x := &Index{path: filepath.Join(dataDir, Dir), store: store, views: views.Of(store), log: log, wm: map[string]int64{},
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
	wss, err := x.views.ListWorkspaces()
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
// leave the next start to re-index the last moments from the log. When
// the snapshot searched is already the one on disk there is nothing to
// wait for: the flush batch would only wait out the persister's nap
// (scorchConfig), which every stop of an idle padd paid.
func (x *Index) flush(bi bleve.Index) {
	if persisted(bi) {
		return
	}
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

// persisted reports whether bi's current snapshot is on disk: nothing was
// introduced since the index was opened (scorch's CurRootEpoch counts
// introductions only; the root loaded at open is the persisted one), or
// the last introduced root is the last persisted one.
func persisted(bi bleve.Index) bool {
	adv, err := bi.Advanced()
	if err != nil {
		return false
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return false
	}
	st, ok := sc.Stats().(*scorch.Stats)
	if !ok {
		return false
	}
	root := atomic.LoadUint64(&st.CurRootEpoch)
	return root == 0 || atomic.LoadUint64(&st.LastPersistedEpoch) == root
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
