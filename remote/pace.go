package remote

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits are the request rates a Client keeps to. Pad limits each user
// (all of that user's clients together: the web app, the CLI, padd), so
// padd waits for a token of its own bucket rather than find the
// server's limit by tripping it.
type Limits struct {
	General      rate.Limit // requests a second, every call
	GeneralBurst int
	Search       rate.Limit // requests a second to /search, on top of General
	SearchBurst  int
}

// PadLimits are Pad's own: 600 a minute with a burst of 60 for the API,
// 30 a minute with a burst of 10 for search.
var PadLimits = Limits{General: 600.0 / 60, GeneralBurst: 60, Search: 30.0 / 60, SearchBurst: 10}

// pacer is the Client's shared bucket, and the pause a 429 asked for.
type pacer struct {
	general, search *rate.Limiter

	mu    sync.Mutex
	until time.Time // no call starts before this (Retry-After)
}

func newPacer(l Limits) *pacer {
	if l == (Limits{}) {
		l = PadLimits
	}
	return &pacer{general: rate.NewLimiter(l.General, l.GeneralBurst), search: rate.NewLimiter(l.Search, l.SearchBurst)}
}

// wait holds a call until the server's pause is over and the buckets
// give it a token, or ctx ends.
func (p *pacer) wait(ctx context.Context, search bool) error {
	p.mu.Lock()
	d := time.Until(p.until)
	p.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	if search {
		if err := p.search.Wait(ctx); err != nil {
			return err
		}
	}
	return p.general.Wait(ctx)
}

// pause honours a 429: no call starts for d, and the bucket restarts
// empty, since the server counted requests ours did not (the user's
// other clients share the server's budget).
func (p *pacer) pause(d time.Duration) {
	now := time.Now()
	p.mu.Lock()
	if until := now.Add(d); until.After(p.until) {
		p.until = until
	}
	p.mu.Unlock()
	for _, l := range []*rate.Limiter{p.general, p.search} {
		if n := int(l.TokensAt(now)); n > 0 {
			l.AllowN(now, n)
		}
	}
}
