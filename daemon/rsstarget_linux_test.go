package daemon

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	rdebug "runtime/debug"
	"strings"
	"testing"
	"time"
)

// fakeSet is a resident set the test moves: release drops it to floor.
type fakeSet struct {
	rss, floor int64
	releases   int
}

func (f *fakeSet) resident() (int64, int64, error) { return f.rss, 0, nil }
func (f *fakeSet) release() error                  { f.releases++; f.rss = f.floor; return nil }

func testKeeper(t *testing.T, target int64, set *fakeSet, logs io.Writer) *rssKeeper {
	t.Helper()
	t.Setenv("GOMEMLIMIT", "1GiB") // the keeper leaves the runtime's limit alone
	k := newRSSKeeper(target, slog.New(slog.NewTextHandler(logs, nil)), nil, set.release)
	if k == nil {
		t.Fatal("no keeper for a target of 140 MiB on Linux")
	}
	k.resident = set.resident
	return k
}

func TestKeeperReleasesPastTheTriggerOnly(t *testing.T) {
	set := &fakeSet{rss: 100 << 20, floor: 40 << 20}
	k := testKeeper(t, 140<<20, set, io.Discard)
	if d := k.step(); set.releases != 0 || d != k.near {
		t.Fatalf("at 100 of 140 MiB: %d releases, next reading in %s; want none, and a reading soon (%s)", set.releases, d, k.near)
	}
	set.rss = 40 << 20
	if d := k.step(); d != k.far {
		t.Fatalf("far under the target the next reading is in %s; want %s", d, k.far)
	}
	set.rss = 135 << 20
	if d := k.step(); set.releases != 1 || k.releases.Load() != 1 || d != k.near {
		t.Fatalf("at 135 of 140 MiB: %d releases (counted %d), next in %s; want one, and a reading soon", set.releases, k.releases.Load(), d)
	}
}

func TestKeeperBacksOffAndSaysSoWhenItsOwnMemoryIsTheSet(t *testing.T) {
	// Releasing changes nothing: padd's own memory is past the trigger.
	set := &fakeSet{rss: 139 << 20, floor: 139 << 20}
	var logs bytes.Buffer
	k := testKeeper(t, 140<<20, set, &logs)
	var waits []time.Duration
	for range 12 {
		waits = append(waits, k.step())
	}
	for i := 1; i < len(waits); i++ {
		if waits[i] < waits[i-1] {
			t.Fatalf("waits between useless releases shrink: %v", waits)
		}
	}
	if waits[len(waits)-1] != time.Second {
		t.Fatalf("waits between useless releases end at %s; want 1s (all: %v)", waits[len(waits)-1], waits)
	}
	if n := strings.Count(logs.String(), "too near PADD_RSS_TARGET"); n != 1 {
		t.Fatalf("the warning was logged %d times; want once: %s", n, logs.String())
	}
	// Once a release helps again, the keeper reads the set soon again.
	set.floor = 50 << 20
	if d := k.step(); d != k.near || k.backoff != 0 {
		t.Fatalf("after a release that helped the next reading is in %s (backoff %s); want %s", d, k.backoff, k.near)
	}
}

func TestKeeperReleasesNothingDuringABuild(t *testing.T) {
	set := &fakeSet{rss: 400 << 20, floor: 40 << 20}
	k := testKeeper(t, 140<<20, set, io.Discard)
	building := true
	k.building = func() bool { return building }
	k.step()
	if set.releases != 0 {
		t.Fatalf("%d releases during an index build; want none (its memory is padd's own)", set.releases)
	}
	building = false
	k.step()
	if set.releases != 1 {
		t.Fatalf("%d releases after the build; want one", set.releases)
	}
}

func TestKeeperLogsAFailedReleaseOnceAMinute(t *testing.T) {
	set := &fakeSet{rss: 139 << 20, floor: 40 << 20}
	var logs bytes.Buffer
	k := testKeeper(t, 140<<20, set, &logs)
	k.release = append(k.release, func() error { return errors.New("madvise: no") })
	for range 5 {
		set.rss = 139 << 20
		k.step()
	}
	if n := strings.Count(logs.String(), "could not release"); n != 1 {
		t.Fatalf("a failing release was logged %d times in 5 releases; want once: %s", n, logs.String())
	}
}

func TestCheckWakesTheKeeperPastTheTrigger(t *testing.T) {
	set := &fakeSet{rss: 100 << 20}
	k := testKeeper(t, 140<<20, set, io.Discard)
	k.check()
	if len(k.wake) != 0 {
		t.Fatal("check woke the keeper under the trigger")
	}
	set.rss = 139 << 20
	k.checked.Store(0)
	k.check()
	if len(k.wake) != 1 {
		t.Fatal("check past the trigger did not wake the keeper")
	}
	var none *rssKeeper
	none.check() // a server without a keeper: nothing happens
}

func TestKeeperLimitsGoHeapWhileServingAndLiftsItForABuild(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	prev := rdebug.SetMemoryLimit(-1)
	t.Cleanup(func() { rdebug.SetMemoryLimit(prev) })
	rdebug.SetMemoryLimit(384 << 20)
	k := newRSSKeeper(140<<20, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	k.resident = (&fakeSet{rss: 10 << 20}).resident
	k.step()
	if got := rdebug.SetMemoryLimit(-1); got >= 384<<20 || got < k.ownLimit {
		t.Fatalf("serving, Go's memory limit is %d; want the keeper's, at least %d and under 384 MiB", got, k.ownLimit)
	}
	k.limitOwn(false)
	if got := rdebug.SetMemoryLimit(-1); got != 384<<20 {
		t.Fatalf("for a build Go's memory limit is %d; want it back at 384 MiB", got)
	}
}
