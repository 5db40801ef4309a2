package searchindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// The indexer: it follows each workspace's change log from its watermark
// in batches, and lets a reader wait until the index has caught up.

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
		wss, err := x.views.ListWorkspaces()
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
		changes, head, err := x.views.ChangesSince(ctx, ws, from, 2000)
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
			// Only items, their comments and their attachments' filenames
			// are in the index: a lease, a star, a reminder or a link
			// changes nothing it holds.
			if ch.Entity != model.EntityItem && ch.Entity != model.EntityComment && ch.Entity != model.EntityAttachment {
				continue
			}
			if ch.ItemID != "" && !seen[ch.ItemID] {
				seen[ch.ItemID] = true
				items = append(items, ch.ItemID)
			}
		}
		if err := x.index(ws, items, changes[len(changes)-1].Seq); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// index indexes items and then moves the workspace's watermark to seq.
// The items are read a few at a time and written in batches of at most
// maxBatchBytes of text (a larger document alone), so that what one
// catch-up holds follows those bounds, not how much was written: Bleve
// builds each batch in memory at many times the size of its text. Only
// the last batch carries the watermark; a crash before it replays them.
func (x *Index) index(ws string, items []string, seq int64) error {
	var docs []storage.IndexDoc
	size := 0
	for start := 0; start < len(items); start += readChunk {
		chunk, err := x.views.IndexDocs(ws, items[start:min(start+readChunk, len(items))])
		if err != nil {
			return err
		}
		for _, d := range chunk {
			n := indexedBytes(d)
			if len(docs) > 0 && size+n > maxBatchBytes {
				if err := x.commit(ws, 0, docs); err != nil {
					return err
				}
				docs, size = nil, 0
			}
			docs, size = append(docs, d), size+n
		}
	}
	return x.commit(ws, seq, docs)
}

// readChunk is how many items' documents are read from the store at once.
const readChunk = 16

// maxBatchBytes bounds the text of one index batch.
const maxBatchBytes = MaxIndexedBodyBytes

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

// WaitFor blocks until the index has caught up with a workspace's seq
// (and any rebuild has finished), so a caller finds what it just wrote.
// It gives up when ctx ends.
func (x *Index) WaitFor(ctx context.Context, ws string, seq int64) error {
	x.mu.Lock()
	if x.wm[ws] < seq {
		select {
		case x.hurry <- struct{}{}:
		default:
		}
	}
	x.mu.Unlock()
	return x.wait(ctx, func() bool { return x.wm[ws] < seq || x.state == StateRebuilding }, func() error {
		if x.state == StateRebuilding {
			return &ErrRebuilding{Done: x.done, Total: x.total}
		}
		return fmt.Errorf("search index is behind (at %d of %d); try again: %w", x.wm[ws], seq, ctx.Err())
	})
}

// WaitRebuilt blocks while the index is being rebuilt; when ctx ends
// first it returns *ErrRebuilding.
func (x *Index) WaitRebuilt(ctx context.Context) error {
	return x.wait(ctx, func() bool { return x.state == StateRebuilding }, func() error {
		return &ErrRebuilding{Done: x.done, Total: x.total}
	})
}

// wait blocks while pending holds, and returns gaveUp's error when ctx
// ends first; both are called with x.mu held. A failed index ends the
// wait at once.
func (x *Index) wait(ctx context.Context, pending func() bool, gaveUp func() error) error {
	stop := context.AfterFunc(ctx, func() {
		x.mu.Lock()
		x.changed.Broadcast()
		x.mu.Unlock()
	})
	defer stop()
	x.mu.Lock()
	defer x.mu.Unlock()
	for pending() {
		if x.state == StateFailed {
			return fmt.Errorf("search index failed: %v; padd retries on its own, `padctl index rebuild` retries now", x.err)
		}
		if ctx.Err() != nil {
			return gaveUp()
		}
		x.changed.Wait()
	}
	return nil
}

// The pause before retrying a failed build or batch doubles from
// minRetry up to maxRetry, so a long outage costs two log lines a minute.
const (
	minRetry = time.Second
	maxRetry = 30 * time.Second
)
