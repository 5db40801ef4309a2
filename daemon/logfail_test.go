package daemon

import (
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
)

// A write the disk fails to store in the write-ahead log is answered 503
// unavailable, saying what became of it and what to do; reads go on, and
// once the disk works writes resume without a restart. A write answered
// as failed is not kept.
func TestWriteTheDiskFailsToStore(t *testing.T) {
	// fails counts the log's fdatasyncs still to fail with EIO; negative:
	// every one until it is set to 0.
	var fails atomic.Int64
	h := newHarnessWith(t, storage.Options{LogSync: func(f *os.File) error {
		if n := fails.Load(); n < 0 || (n > 0 && fails.CompareAndSwap(n, n-1)) {
			return &fs.PathError{Op: "fdatasync", Path: f.Name(), Err: syscall.EIO}
		}
		return f.Sync() // fsync: fdatasync is not on every system
	}})
	kept := h.task("kept before")
	items := wsPath("/collections/tasks/items")

	// One failed sync: the record is taken back at once.
	fails.Store(1)
	e := h.wantError("POST", items, map[string]any{"title": "lost once"}, 503, api.CodeUnavailable)
	if e.Details["outcome"] != "not_written" || e.Details["reason"] != "disk_failed" ||
		!strings.Contains(e.Message, "did not keep it") || !strings.Contains(e.Message, "check the disk") {
		t.Fatalf("a write whose sync failed: %+v", e)
	}
	h.task("kept after one failure")

	// The disk keeps failing: the outcome is unknown, and later writes are
	// refused untried.
	fails.Store(-1)
	e = h.wantError("POST", items, map[string]any{"title": "lost while failing"}, 503, api.CodeUnavailable)
	if e.Details["outcome"] != "unknown" || !strings.Contains(e.Message, "outcome is unknown") ||
		!strings.Contains(e.Message, "check the disk") {
		t.Fatalf("a write whose sync and take-back failed: %+v", e)
	}
	e = h.wantError("PATCH", wsPath("/items/"+kept.Ref), map[string]any{"title": "refused"}, 503, api.CodeUnavailable)
	if e.Details["outcome"] != "not_written" || !strings.Contains(e.Message, "nothing of this write was kept") ||
		!strings.Contains(e.Message, "without a restart") {
		t.Fatalf("a write while writes are refused: %+v", e)
	}
	var it api.Item
	h.mustJSON("GET", wsPath("/items/"+kept.Ref), nil, 200, &it)
	if it.Title != "kept before" {
		t.Fatalf("read while writes are refused: %+v", it)
	}

	// The disk works again: writes resume within the engine's retry.
	fails.Store(0)
	deadline := time.Now().Add(time.Minute)
	for {
		r := h.call("POST", items, map[string]any{"title": "kept after the disk works"})
		if r.status == 201 {
			break
		}
		if r.status != 503 || time.Now().After(deadline) {
			t.Fatalf("write after the disk works: %d %s", r.status, r.body)
		}
		time.Sleep(20 * time.Millisecond) // the engine retries once a second
	}
	var list []api.Item
	h.mustJSON("GET", wsPath("/items"), nil, 200, &list)
	var titles []string
	for _, it := range list {
		titles = append(titles, it.Title)
	}
	got := strings.Join(titles, "|")
	for _, want := range []string{"kept before", "kept after one failure", "kept after the disk works"} {
		if !strings.Contains(got, want) {
			t.Errorf("items %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "lost") || strings.Contains(got, "refused") {
		t.Errorf("items %q hold a write answered as failed", got)
	}
}
