package remote

import (
	"context"
	"net/http"
	"strconv"
	"strings"
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

// RateLimitHeader is the header in which Pad states its general limit,
// in requests a minute.
const RateLimitHeader = "X-Ratelimit-Limit"

// pacer is the Client's shared bucket, and the pause a 429 asked for.
//
// With fixed limits (Options.Limits) it keeps to them. Otherwise it
// adapts the general bucket to the server (search keeps Pad's bucket):
//   - until the first answer it keeps to Pad's limits;
//   - an answer stating RateLimitHeader sets the rate from it (a minute's
//     worth, a tenth of it as the burst);
//   - an answer without it, from a server whose limiter padd has never
//     met, lifts the general pacing: such a server (padd as a remote)
//     limits nothing;
//   - a 429 puts the bucket back on the header's limit, or the last one
//     stated, or Pad's, and the request is sent again after its
//     Retry-After (Client.open); from then on answers without the header
//     no longer lift it, so a server that states its limit only on its
//     429s is met once, not in a loop;
//   - the adapted bucket keeps a little under the rate (underLimit).
type pacer struct {
	fixed  bool
	search *rate.Limiter

	mu        sync.Mutex
	general   *rate.Limiter // nil: no general pacing
	perMinute int           // the limit a server stated; 0 if none yet
	limited   bool          // a 429 was met: stay paced
	until     time.Time     // no call starts before this (Retry-After)
}

func newPacer(l Limits) *pacer {
	fixed := l != (Limits{})
	if !fixed {
		l = PadLimits
		l.General *= underLimit
	}
	return &pacer{fixed: fixed, general: rate.NewLimiter(l.General, l.GeneralBurst), search: rate.NewLimiter(l.Search, l.SearchBurst)}
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
	p.mu.Lock()
	g := p.general
	p.mu.Unlock()
	if g == nil {
		return ctx.Err()
	}
	return g.Wait(ctx)
}

// observe adapts the general bucket to an answer of the server: any
// status but a 429 (tooMany). search says it answered /search, whose
// stated limit would be the search bucket's, not the general one.
func (p *pacer) observe(status int, h http.Header, search bool) {
	p.adapt(status, h, search)
}

// tooMany adapts the general bucket to a rate limiter's 429 (a 429 that
// refuses a stream for the number already open is no request rate and
// is only paused for).
func (p *pacer) tooMany(h http.Header, search bool) {
	p.adapt(http.StatusTooManyRequests, h, search)
}

func (p *pacer) adapt(status int, h http.Header, search bool) {
	if p.fixed {
		return
	}
	n := statedLimit(h)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case status == http.StatusTooManyRequests:
		p.limited = true
		if n > 0 && !search {
			p.perMinute = n
		}
		p.setGeneral(true)
	case search:
	case n > 0:
		if n != p.perMinute || p.general == nil {
			p.perMinute = n
			p.setGeneral(false)
		}
	case !p.limited && status < 500 && p.general != nil:
		// No limiter on this server (a 5xx may be a gateway's answer,
		// not the server's, so it says nothing).
		p.general = nil
	}
}

// underLimit is the share of a server's rate the adapted bucket keeps
// to. At the server's own rate the two buckets drift apart by the
// network's jitter, and the server's turns away the request that comes
// a millisecond early, again and again; a little under it never does.
const underLimit = 0.95

// setGeneral makes the general bucket the stated limit's (Pad's if none
// was stated), a little under it (underLimit). A new bucket keeps the
// tokens the old one had left (none after no pacing at all, which may
// have spent the server's), and none when drained. p.mu is held.
func (p *pacer) setGeneral(drained bool) {
	now := time.Now()
	r, b := PadLimits.General*underLimit, PadLimits.GeneralBurst
	if p.perMinute > 0 {
		r, b = rate.Limit(float64(p.perMinute)/60*underLimit), max(p.perMinute/10, 1)
	}
	old := p.general
	if old != nil && old.Limit() == r && old.Burst() == b {
		if drained {
			drain(old, now)
		}
		return
	}
	keep := 0
	if old != nil && !drained {
		keep = min(max(int(old.TokensAt(now)), 0), b)
	}
	g := rate.NewLimiter(r, b)
	if take := b - keep; take > 0 {
		g.AllowN(now, take)
	}
	p.general = g
}

// generalLimit is the general bucket's rate and burst; rate.Inf when
// there is no general pacing.
func (p *pacer) generalLimit() (rate.Limit, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.general == nil {
		return rate.Inf, 0
	}
	return p.general.Limit(), p.general.Burst()
}

// statedLimit is the general limit an answer states (requests a
// minute), or 0.
func statedLimit(h http.Header) int {
	v := strings.TrimSpace(h.Get(RateLimitHeader))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0
	}
	return n
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
	g := p.general
	p.mu.Unlock()
	for _, l := range []*rate.Limiter{g, p.search} {
		if l != nil {
			drain(l, now)
		}
	}
}

// drain takes every token l holds at now.
func drain(l *rate.Limiter, now time.Time) {
	if n := int(l.TokensAt(now)); n > 0 {
		l.AllowN(now, n)
	}
}
