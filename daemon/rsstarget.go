package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	rdebug "runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/padd/padd/internal/mapped"
)

// The resident set padd keeps itself under by default (PADD_RSS_TARGET,
// in MiB, overrides it; 0 turns it off). The keeper's price is the faults
// of pages read again after a release, so the default depends on how
// much a read maps. Where reads of the database map only their page
// (storage's MappedExactly), the load run (docs/PERFORMANCE.md, runs AK)
// stays under 140 MiB releasing about once a second. Where each read maps
// the 64 KB around it, 140 MiB cost a sixth of the throughput and still
// peaked at 175 MB, and 256 MiB cost 1-13 % (runs AJ).
const (
	DefaultRSSTarget       = 140 << 20
	DefaultRSSTargetAround = 256 << 20
)

// rssTargetFromEnv reads PADD_RSS_TARGET: MiB, 0 or "off" for none;
// unset, the default for how reads map (exact: see DefaultRSSTarget).
func rssTargetFromEnv(log *slog.Logger, exact bool) int64 {
	def := int64(DefaultRSSTarget)
	if !exact {
		def = DefaultRSSTargetAround
	}
	v := strings.TrimSpace(os.Getenv("PADD_RSS_TARGET"))
	switch v {
	case "":
		return def
	case "off":
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1<<20 {
		log.Warn("PADD_RSS_TARGET is not a size in MiB (e.g. 140, or 0 for none); using the default",
			"value", v, "default_mib", def>>20)
		return def
	}
	return n << 20
}

// rssKeeper holds padd's resident set under target by releasing the pages
// of the database and index files padd maps (internal/mapped) whenever
// the set comes near it.
//
// The set grows only while padd works, and can grow fast: where each
// read of a page not mapped maps the 64 KB around it (the index's
// segments always, the database where it is not mapped exactly), tens of
// MB a second under a load of agents. So the set is read where the work
// is, after each request (at most once a millisecond, a few microseconds
// each), and a timer reads it too for work no request does (the indexer). padd's own memory is not
// released: when it alone comes near the target, the keeper waits longer
// between releases, and says so, rather than spin.
type rssKeeper struct {
	target  int64
	release []func() error
	log     *slog.Logger
	// building says a job that needs room is running (the index
	// build): padd's own memory is large meanwhile, so the keeper lifts
	// its limit on it and releases nothing.
	building func() bool
	// ownLimit is the Go runtime's soft memory limit while padd serves
	// (0: left alone, GOMEMLIMIT being set), restored to wideLimit for a
	// build.
	ownLimit, wideLimit int64
	limit               int64 // the one set last
	sample              [1]metrics.Sample
	wake                chan struct{}
	checked             atomic.Int64 // when a request last read the set (unix ns)
	// resident reads the set and its file-backed part (mapped.Resident;
	// tests give their own).
	resident func() (rss, file int64, err error)

	releases atomic.Int64 // how many times the mappings were released

	// The intervals between timed readings: near the target, far from it.
	near, far time.Duration
	backoff   time.Duration // after releases that left the set near the trigger
	warned    time.Time     // when the set last stayed near the target after a release
	failed    time.Time     // when a release last failed
}

func newRSSKeeper(target int64, log *slog.Logger, building func() bool, release ...func() error) *rssKeeper {
	if target <= 0 || !mapped.Supported {
		return nil
	}
	k := &rssKeeper{target: target, release: release, log: log, building: building, wake: make(chan struct{}, 1),
		resident: mapped.Resident, near: 2 * time.Millisecond, far: 100 * time.Millisecond}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The Go heap grows to three times what is live (cmd/padd's
		// GOGC) unless a limit stops it: under the load run that was
		// 75 MB of padd's own, leaving the mapped files too little of
		// the target. At a target of 140 MiB it is about 50 MB under
		// this limit.
		k.ownLimit, k.wideLimit = target*2/5, rdebug.SetMemoryLimit(-1)
	}
	return k
}

// limitOwn sets the Go runtime's soft limit for serving or for a build.
// Serving, the limit stays half again above what is live: a limit under
// the live heap would have Go collect without pause.
func (k *rssKeeper) limitOwn(serving bool) {
	if k.ownLimit == 0 {
		return
	}
	want := k.wideLimit
	if serving {
		k.sample[0].Name = "/gc/heap/live:bytes"
		metrics.Read(k.sample[:])
		live := int64(0)
		if k.sample[0].Value.Kind() == metrics.KindUint64 {
			live = int64(k.sample[0].Value.Uint64())
		}
		want = min(max(k.ownLimit, live*3/2), k.wideLimit)
	}
	if d := want - k.limit; d > k.limit/8 || -d > k.limit/8 || (want == k.wideLimit) != (k.limit == k.wideLimit) {
		k.limit = want
		rdebug.SetMemoryLimit(want)
	}
}

// trigger is where a release starts: under the target by what the set
// can grow between a reading and the release (under the load run one
// request can map several MB: a list reads 50 items' records, 64 KB
// each).
func (k *rssKeeper) trigger() int64 { return k.target - k.target/16 }

// check reads the set (at most once a millisecond) and wakes the keeper
// when it is past the trigger. Called after each request; nil does
// nothing.
func (k *rssKeeper) check() {
	if k == nil {
		return
	}
	now := time.Now().UnixNano()
	last := k.checked.Load()
	if now-last < int64(time.Millisecond) || !k.checked.CompareAndSwap(last, now) {
		return
	}
	if rss, _, err := k.resident(); err == nil && rss >= k.trigger() {
		select {
		case k.wake <- struct{}{}:
		default:
		}
	}
}

// run keeps the set under the target until ctx ends.
func (k *rssKeeper) run(ctx context.Context) {
	if k == nil {
		return
	}
	if _, _, err := k.resident(); err != nil {
		k.log.Warn("padd cannot read its resident set, so it does not keep it under PADD_RSS_TARGET", "err", err)
		return
	}
	t := time.NewTimer(k.far)
	defer t.Stop()
	defer k.limitOwn(false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-k.wake:
			if k.backoff > 0 {
				continue // the timer ends the wait
			}
		}
		t.Reset(k.step())
	}
}

// step reads the set once, releases if it is past the trigger, and says
// how long to wait for the next timed reading.
func (k *rssKeeper) step() time.Duration {
	if k.building != nil && k.building() {
		k.limitOwn(false)
		return k.far
	}
	k.limitOwn(true)
	rss, _, err := k.resident()
	if err != nil {
		return time.Second
	}
	if rss < k.trigger() {
		k.backoff = 0
		if rss < k.target/2 {
			return k.far
		}
		return k.near
	}
	for _, r := range k.release {
		if err := r(); err != nil && time.Since(k.failed) > time.Minute {
			k.failed = time.Now()
			k.log.Warn("padd could not release its mapped pages; its resident set may pass PADD_RSS_TARGET", "err", err)
		}
	}
	k.releases.Add(1)
	after, _, err := k.resident()
	if err != nil || after < k.trigger()-k.target/16 {
		k.backoff = 0
		return k.near
	}
	// What is left is padd's own memory and code, or pages mapped again
	// already: releasing again at once would change little. Wait longer
	// each time this repeats, and say so once it persists.
	k.backoff = min(max(2*k.backoff, k.near), time.Second)
	if k.backoff == time.Second && time.Since(k.warned) > time.Minute {
		k.warned = time.Now()
		k.log.Warn(fmt.Sprintf("padd's own memory is %d MiB, too near PADD_RSS_TARGET (%d MiB) for the mapped files to fit under it; raise the target, or set it to 0 to leave the mappings to the system",
			after>>20, k.target>>20))
	}
	return k.backoff
}
