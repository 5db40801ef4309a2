package searchindex

import (
	"github.com/padd/padd/storage/views"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/padd/padd/internal/testwait"
)

// reopenedWatermark opens the stopped index as the next start does
// (without its indexer) and returns the watermark it holds for the
// fixture's workspace: what is on disk, not what a catch-up would add.
func (f *fixture) reopenedWatermark() int64 {
	f.t.Helper()
	idx, err := Open(f.dir, f.store, quietLog())
	if err != nil {
		f.t.Fatal(err)
	}
	defer idx.Close()
	if st := idx.Status(); st.State != StateReady {
		f.t.Fatalf("reopened index is %q (%s)", st.State, st.Reason)
	}
	return idx.Status().Watermarks[f.ws.ID]
}

// flushMark reads the mark the close-time flush writes, from the stopped
// index.
func (f *fixture) flushMark() []byte {
	f.t.Helper()
	bi, err := bleve.OpenUsing(filepath.Join(f.dir, Dir), durableConfig())
	if err != nil {
		f.t.Fatal(err)
	}
	defer bi.Close()
	v, err := bi.GetInternal([]byte(kFlush))
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// Stopping an index whose snapshot the persister has written skips the
// close-time flush (which would wait out the persister's nap: half of
// every stop of an idle padd), and loses nothing: the next start finds
// the watermark at the head.
func TestCloseOfPersistedIndexSkipsFlush(t *testing.T) {
	f := newFixture(t)
	f.create("tasks", "First", "", nil)
	f.search("first") // built; what follows is a batch into the open index
	a := f.create("tasks", "Written before an idle stop", "", nil)
	wantHits(t, "before", f.search("idle"), a.ID)
	bi := f.current()
	testwait.Until(t, "the persister to write the index's snapshot", func() bool { return persisted(bi) })
	head, err := views.Of(f.store).Head(f.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.stop()
	if m := f.flushMark(); m != nil {
		t.Errorf("the stop of a persisted index flushed it (mark %q)", m)
	}
	if wm := f.reopenedWatermark(); wm != head {
		t.Errorf("after the stop the index holds the workspace to %d, want its head %d", wm, head)
	}
	f.start()
	wantHits(t, "after", f.search("idle"), a.ID)
}

// Stopping right after a write keeps it, whichever way the stop goes (the
// flush when the persister has not written it yet).
func TestCloseRightAfterWriteKeepsIt(t *testing.T) {
	f := newFixture(t)
	f.create("tasks", "First", "", nil)
	f.search("first")
	a := f.create("tasks", "Written right before the stop", "", nil)
	wantHits(t, "before", f.search("stop"), a.ID)
	head, err := views.Of(f.store).Head(f.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.stop()
	if wm := f.reopenedWatermark(); wm != head {
		t.Errorf("after the stop the index holds the workspace to %d, want its head %d", wm, head)
	}
	f.start()
	wantHits(t, "after", f.search("stop"), a.ID)
}
