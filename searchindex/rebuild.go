package searchindex

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// Rebuilds: a missing, damaged or older-format index is built again from
// the store in the background, beside the live one, and moved into place.

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

// rebuild indexes every item of every workspace from scratch with
// Bleve's offline builder (far faster than online batches), beside the
// live path, then moves it into place, opens it and records each
// workspace's head (taken before its scan) as its watermark; the
// changes made during the build are then replayed from the log.
func (x *Index) rebuild(ctx context.Context) error {
	start := time.Now()
	wss, err := x.views.ListWorkspaces()
	if err != nil {
		return err
	}
	total := 0
	for _, ws := range wss {
		n, err := x.views.ItemCount(ws.ID)
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
		if heads[ws.ID], err = x.views.Head(ws.ID); err != nil {
			return abandon(err)
		}
		for after := ""; ; {
			if ctx.Err() != nil {
				return abandon(ctx.Err())
			}
			docs, next, err := x.views.ScanItems(ctx, ws.ID, after, batchSize)
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
