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

// TestRateLimitedPausesEveryCall: a request the server's limiter turned
// away is sent again after its Retry-After (a few times at most), and
// no other call starts before it either.
func TestRateLimitedPausesEveryCall(t *testing.T) {
	var refuse atomic.Int32 // the next calls to answer 429
	var mu sync.Mutex
	var times []time.Time
	f := newFakePad(t)
	f.handle("GET /api/v1/workspaces", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if refuse.Add(-1) >= 0 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "rate_limited", "message": "slow down"}})
			return
		}
		writeJSON(w, 200, []any{})
	})
	c := f.client(Options{})
	refuse.Store(1)
	if _, err := c.ListWorkspaces(context.Background()); err != nil {
		t.Fatalf("a call the limiter refused once = %v, want it sent again", err)
	}
	if len(times) != 2 {
		t.Fatalf("%d requests, want 2", len(times))
	}
	if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
		t.Errorf("the call after a 429 came %v later, before its Retry-After of 1s", gap)
	}

	// A limiter that keeps refusing is reported after rateLimitedTries.
	n := f.count()
	refuse.Store(rateLimitedTries)
	_, err := c.ListWorkspaces(context.Background())
	if d, ok := IsRateLimited(err); !ok || d != time.Second || !Retryable(err) || f.count()-n != rateLimitedTries {
		t.Fatalf("429 every time = %v (retry after %v), %d requests", err, d, f.count()-n)
	}

	// A caller that cannot wait that long is told nothing was sent.
	n = f.count()
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

// limitedPad is a fake Pad whose /workspaces answers pass a server-side
// bucket; stated is the X-Ratelimit-Limit it sends, on every answer or
// (onlyOn429) on its 429s alone.
type limitedPad struct {
	*fakePad
	refused atomic.Int32
}

func newLimitedPad(t *testing.T, server *rate.Limiter, stated string, onlyOn429 bool) *limitedPad {
	p := &limitedPad{fakePad: newFakePad(t)}
	p.handle("GET /api/v1/workspaces", func(w http.ResponseWriter, r *http.Request) {
		if !server.Allow() {
			p.refused.Add(1)
			w.Header().Set(RateLimitHeader, stated)
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "rate_limited", "message": "slow down"}})
			return
		}
		if !onlyOn429 {
			w.Header().Set(RateLimitHeader, stated)
		}
		writeJSON(w, 200, []any{})
	})
	return p
}

// calls makes n ListWorkspaces calls from 4 goroutines, each call
// retried after a 429 (the client has waited out its Retry-After); it
// answers the most 429s one call met.
func calls(t *testing.T, c *Client, n int) int32 {
	var worst atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n / 4 {
				var met int32
				for {
					_, err := c.ListWorkspaces(context.Background())
					if _, ok := IsRateLimited(err); ok {
						met++
						continue
					}
					if err != nil {
						t.Error(err)
					}
					break
				}
				for {
					w := worst.Load()
					if met <= w || worst.CompareAndSwap(w, met) {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	return worst.Load()
}

// TestPacingFollowsTheStatedLimit: a server that states its limit on
// every answer (the Pad of August 2026: X-Ratelimit-Limit: 600) is paced
// at that limit, here 1,200 a minute with a burst of 120, and never
// answers 429 even to calls sent before its first answer said so.
func TestPacingFollowsTheStatedLimit(t *testing.T) {
	server := rate.NewLimiter(20, 123) // 1,200 a minute, room for 3 late calls
	p := newLimitedPad(t, server, "1200", false)
	c := p.client(Options{})
	start := time.Now()
	calls(t, c, 100)
	if n := p.refused.Load(); n != 0 {
		t.Errorf("%d calls met a 429", n)
	}
	if r, b := c.pace.generalLimit(); r != 20*underLimit || b != 120 {
		t.Errorf("the general bucket is %v/s burst %d, want a little under 20/s, burst 120", r, b)
	}
	// The calls before the first answer took Pad's bucket's tokens (at most
	// 4 in flight); the new bucket keeps the 56 or more left, not 120.
	if d := time.Since(start); d < (100-4-60)*time.Second/20-50*time.Millisecond {
		t.Errorf("100 calls took %v: the stated limit's bucket started full", d)
	}
}

// TestPacingLiftedWithoutALimiter: a server that states no limit (padd
// as a remote) is not paced once it has answered; until then Pad's
// limits hold.
func TestPacingLiftedWithoutALimiter(t *testing.T) {
	f := newFakePad(t)
	f.answer("GET /api/v1/workspaces", 200, `[]`)
	f.answer("GET /api/v1/search", 200, `{"results":[],"total":0}`)
	c := f.client(Options{})
	if r, b := c.pace.generalLimit(); r != PadLimits.General*underLimit || b != PadLimits.GeneralBurst {
		t.Fatalf("before any answer the general bucket is %v/s burst %d, want a little under Pad's", r, b)
	}
	if _, err := c.ListWorkspaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r, _ := c.pace.generalLimit(); r != rate.Inf {
		t.Fatalf("after an answer without %s the general bucket is %v/s", RateLimitHeader, r)
	}
	// 300 calls under a deadline 20 s away: at Pad's pace only 260 fit,
	// and the bucket refuses the rest at once (a token later than the
	// deadline); with no pacing every one is sent.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 300 {
		if _, err := c.ListWorkspaces(ctx); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// Search keeps its own bucket.
	if c.pace.search.Limit() != PadLimits.Search || c.pace.search.Burst() != PadLimits.SearchBurst {
		t.Errorf("search's bucket is %v/s burst %d, want Pad's", c.pace.search.Limit(), c.pace.search.Burst())
	}
}

// TestPacingAfterA429StaysOn: a server that states its limit only on its
// 429s (the Pad of August 2026 as observed) is sent calls unpaced until
// the first 429; from then on the stated limit holds, answers without
// the header do not lift it again, and no call meets a second 429.
func TestPacingAfterA429StaysOn(t *testing.T) {
	server := rate.NewLimiter(30, 30)
	p := newLimitedPad(t, server, "1200", true) // 20 a second, under the server's 30
	c := p.client(Options{})
	worst := calls(t, c, 120)
	if n := p.refused.Load(); n < 1 || n > 4 {
		t.Errorf("%d calls met a 429; want the first wave only (1 to 4, one per caller)", n)
	}
	if worst > 1 {
		t.Errorf("a call met %d 429s in a row", worst)
	}
	if r, b := c.pace.generalLimit(); r != 20*underLimit || b != 120 {
		t.Errorf("after the 429 the general bucket is %v/s burst %d, want a little under the stated 20/s, burst 120", r, b)
	}
}

// TestPacingAfterA429WithoutALimit: a 429 that states no limit puts the
// client on Pad's limits; one that refuses a stream for the number open
// (sse_limit_exceeded) is paused for but changes no pacing; a 5xx
// without the header (a gateway's) does not lift it; fixed Limits never
// change.
func TestPacingAfterA429WithoutALimit(t *testing.T) {
	var status atomic.Int32
	var code atomic.Value
	f := newFakePad(t)
	f.handle("GET /api/v1/workspaces", func(w http.ResponseWriter, r *http.Request) {
		s := int(status.Load())
		if s == 200 {
			writeJSON(w, 200, []any{})
			return
		}
		if s == 429 {
			w.Header().Set("Retry-After", "0")
		}
		writeJSON(w, s, map[string]any{"error": map[string]any{"code": code.Load().(string), "message": "no"}})
	})
	list := func(c *Client, s int, cd string) {
		status.Store(int32(s))
		code.Store(cd)
		_, _ = c.ListWorkspaces(context.Background())
	}
	is := func(c *Client, what string, want rate.Limit) {
		t.Helper()
		if r, _ := c.pace.generalLimit(); r != want {
			t.Errorf("%s: the general bucket is %v/s, want %v/s", what, r, want)
		}
	}

	c := f.client(Options{})
	list(c, 429, "sse_limit_exceeded")
	is(c, "after a stream's 429", PadLimits.General*underLimit)
	list(c, 200, "")
	is(c, "after an answer without a limit", rate.Inf)
	list(c, 429, "sse_limit_exceeded")
	is(c, "after a stream's 429", rate.Inf)
	list(c, 429, "rate_limited")
	is(c, "after a 429 stating no limit", PadLimits.General*underLimit)
	list(c, 200, "")
	is(c, "after a 429, an answer without a limit", PadLimits.General*underLimit)

	c = f.client(Options{})
	list(c, 502, "bad_gateway")
	is(c, "after a 502 without a limit", PadLimits.General*underLimit)

	fixed := Limits{General: 3, GeneralBurst: 3, Search: 1, SearchBurst: 1}
	c = f.client(Options{Limits: fixed})
	list(c, 200, "")
	is(c, "fixed limits, after an answer without a limit", 3)
	list(c, 429, "rate_limited")
	is(c, "fixed limits, after a 429", 3)
}
