package remote

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestPacingKeepsUnderTheServersLimit: many concurrent calls against a
// server that refuses past its own bucket (the same rate, and room for
// requests that a loaded machine delays by up to 150 ms more than the
// next one) never meet a 429.
func TestPacingKeepsUnderTheServersLimit(t *testing.T) {
	limits := Limits{General: 20, GeneralBurst: 4, Search: 20, SearchBurst: 4}
	server := rate.NewLimiter(limits.General, limits.GeneralBurst+3)
	var refused atomic.Int32
	f := newFakePad(t)
	f.handle("GET /api/v1/workspaces", func(w http.ResponseWriter, r *http.Request) {
		if !server.Allow() {
			refused.Add(1)
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "rate_limited", "message": "slow down"}})
			return
		}
		writeJSON(w, 200, []any{})
	})
	c := f.client(Options{Limits: limits})
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if _, err := c.ListWorkspaces(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := refused.Load(); n != 0 {
		t.Errorf("%d calls met a 429", n)
	}
	// 20 calls, 4 at once from the burst, the other 16 at 20/s.
	if d := time.Since(start); d < 16*time.Second/20-50*time.Millisecond {
		t.Errorf("20 calls took %v: the bucket did not pace them", d)
	}
}

// TestRateLimitedPausesEveryCall: after a 429 no call starts before its
// Retry-After.
func TestRateLimitedPausesEveryCall(t *testing.T) {
	var first atomic.Bool
	var times [2]time.Time
	f := newFakePad(t)
	f.handle("GET /api/v1/workspaces", func(w http.ResponseWriter, r *http.Request) {
		if !first.Swap(true) {
			times[0] = time.Now()
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "rate_limited", "message": "slow down"}})
			return
		}
		times[1] = time.Now()
		writeJSON(w, 200, []any{})
	})
	c := f.client(Options{})
	_, err := c.ListWorkspaces(context.Background())
	if d, ok := IsRateLimited(err); !ok || d != time.Second || !Retryable(err) {
		t.Fatalf("429 = %v (retry after %v)", err, d)
	}
	if _, err := c.ListWorkspaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
		t.Errorf("the call after a 429 came %v later, before its Retry-After of 1s", gap)
	}

	// A caller that cannot wait that long is told nothing was sent.
	first.Store(false)
	_, _ = c.ListWorkspaces(context.Background())
	n := f.count()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.ListWorkspaces(ctx)
	if e, ok := kindOf(err); !ok || e.Kind != KindCanceled || !Retryable(err) || f.count() != n {
		t.Errorf("a call whose context ends while paused = %v (%d sent)", err, f.count()-n)
	}
}

func TestSearchHasItsOwnBucket(t *testing.T) {
	f := newFakePad(t)
	f.answer("GET /api/v1/search", 200, `{"results":[],"total":0}`)
	c := f.client(Options{Limits: Limits{General: 1000, GeneralBurst: 100, Search: 10, SearchBurst: 1}})
	start := time.Now()
	for range 3 {
		if _, err := c.Search(context.Background(), searchQuery("x")); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 2*time.Second/10-20*time.Millisecond {
		t.Errorf("3 searches at 10/s with a burst of 1 took %v", d)
	}
}
