package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

// Concurrent writers share commits (group commit); a refused write in a
// group is answered with its refusal and costs the others nothing.
func TestGroupCommitIsolatesRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Group").Slug
	const writers = 40
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := ItemCreate{Collection: "tasks", Title: fmt.Sprintf("w%d", i)}
			if i%5 == 0 {
				in.Fields = map[string]any{"status": "not-a-status"}
			}
			_, errs[i] = s.CreateItem(ws, in, user)
		}()
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case i%5 == 0 && !model.IsCode(err, model.CodeValidation):
			t.Errorf("writer %d: want validation_error, got %v", i, err)
		case i%5 != 0 && err != nil:
			t.Errorf("writer %d: %v", i, err)
		case err == nil:
			ok++
		}
	}
	res, err := rd(s).ListItems(context.Background(), ws, ListParams{Collection: "tasks", IncludeArchived: true})
	if err != nil || len(res.Items) != ok {
		t.Fatalf("listed %d items, %d writes succeeded (%v)", len(res.Items), ok, err)
	}
	// Numbers are dense: refused writes took none.
	seen := map[int64]bool{}
	for _, it := range res.Items {
		seen[it.Number] = true
	}
	for n := int64(1); n <= int64(ok); n++ {
		if !seen[n] {
			t.Fatalf("item number %d missing: a refused write left a trace", n)
		}
	}
}

// Writes made after Close are refused, not lost in a queue.
func TestWriteAfterClose(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir+"/padd.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := mustWorkspace(t, s, "Closing").Slug
	s.Close()
	done := make(chan error, 1)
	go func() { _, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: "late"}, user); done <- err }()
	select {
	case err := <-done:
		if err != ErrClosed {
			t.Fatalf("write after close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write after Close hangs")
	}
}

// BenchmarkConcurrentCreates100k: 16 writers creating items at once in a
// 100k workspace, each create durable; reports throughput.
func BenchmarkConcurrentCreates100k(b *testing.B) {
	s, ws := benchStore(b)
	const writers = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lat latencies
	start := time.Now()
	per := b.N/writers + 1
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				t := time.Now()
				if _, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: fmt.Sprintf("c %d %d", w, i)}, user); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				lat = append(lat, time.Since(t))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(writers*per)/time.Since(start).Seconds(), "creates/s")
	lat.report(b, "ms")
}
