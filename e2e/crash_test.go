//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// crashSeed seeds the crash tests' kill points: fixed unless given, and
// logged, so that a failure replays.
var crashSeed = flag.Uint64("crash.seed", 1, "random seed of the crash tests' kill points (0: from the clock; logged)")

// TestCrashLosesNoAcknowledgedWrite: writers create items as fast as
// they can; after a few hundred acknowledged (201) creates padd is killed
// with SIGKILL mid-stream. After a restart every acknowledged item is
// there with its title, numbering has no duplicates, and the stopped
// database passes bbolt's consistency check. Two crash rounds, the second
// on the recovered store.
func TestCrashLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	const writers = 8
	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Crash")
	all := map[string]string{}
	rng := rand.New(rand.NewPCG(runSeed(t, "crash.seed", *crashSeed), 1))

	for round := range 2 {
		target := 300 + rng.IntN(701) // 300..1000 acknowledged creates
		if round > 0 {
			target = 100 + rng.IntN(201) // a second crash on the recovered store
		}
		a := newAcks()
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d.createLoop(ctx, ws, fmt.Sprintf("r%d-w%d", round, w), a)
			}()
		}
		start := time.Now()
		for a.n() < target && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		if ctx.Err() != nil {
			cancel()
			wg.Wait()
			t.Fatalf("round %d: only %d of %d creates acknowledged in 120s", round, a.n(), target)
		}
		d.signal(syscall.SIGKILL) // mid-stream: writers are still sending
		if _, ok := d.waitExit(10 * time.Second); !ok {
			t.Fatalf("padd did not die within 10s of SIGKILL")
		}
		wg.Wait() // every writer sees padd gone and stops
		cancel()
		got, errs := a.snapshot()
		for _, e := range errs {
			t.Errorf("round %d: unexpected answer while writing: %s", round, e)
		}
		t.Logf("round %d: killed after %d acknowledged creates (target %d) in %s",
			round, len(got), target, time.Since(start).Round(time.Millisecond))
		for id, title := range got {
			all[id] = title
		}

		d = startPadd(t, home)
		n := verifyItems(t, d, ws, all)
		verifySearch(t, d, ws, n)
	}

	d.stop()
	checkStore(t, home, ws, all)
}

// TestSIGTERMWithInFlightWrites: many concurrent creates are running when
// padd gets SIGTERM. It exits 0, removes daemon.json, answers no request
// with a 5xx, and every create it acknowledged is there after a restart.
func TestSIGTERMWithInFlightWrites(t *testing.T) {
	t.Parallel()
	const writers = 24
	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Graceful")
	a := newAcks()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.createLoop(ctx, ws, "w"+strconv.Itoa(w), a)
		}()
	}
	target := 150 + rand.New(rand.NewPCG(runSeed(t, "crash.seed", *crashSeed), 2)).IntN(200)
	for a.n() < target && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	before := a.n()
	d.signal(syscall.SIGTERM)
	code, ok := d.waitExit(20 * time.Second)
	if !ok {
		t.Fatalf("padd did not exit within 20s of SIGTERM with writes in flight")
	}
	wg.Wait()
	got, errs := a.snapshot()
	t.Logf("SIGTERM after %d acknowledged creates; %d acknowledged in all (%d during shutdown)", before, len(got), len(got)-before)
	if code != 0 {
		t.Errorf("padd exited %d after SIGTERM, want 0", code)
	}
	for _, e := range errs {
		t.Errorf("unexpected answer during shutdown (want 201 or a refused connection): %s", e)
	}
	if info, err := launch.ReadInfo(home); err == nil {
		t.Errorf("daemon.json left behind after SIGTERM: %+v", info)
	}

	d2 := startPadd(t, home)
	verifySearch(t, d2, ws, verifyItems(t, d2, ws, got))
	d2.stop()
	checkStore(t, home, ws, got)
}

// verifyItems GETs every acknowledged item and lists the workspace to
// check that item numbers and refs are unique. It returns how many items
// the workspace lists.
func verifyItems(t *testing.T, d *instance, ws string, want map[string]string) int {
	t.Helper()
	missing := 0
	for id, title := range want {
		it, err := d.getItem(t, ws, id)
		if err != nil {
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged item %s (%q) lost: %v", id, title, err)
			}
			continue
		}
		if it.Title != title {
			t.Errorf("item %s has title %q, acknowledged as %q", id, it.Title, title)
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged items lost", missing, len(want))
	}
	refs, numbers, seen := map[string]string{}, map[int64]string{}, 0
	for offset := 0; ; {
		var page []api.Item
		r := d.do(t, "GET", "/api/v1/workspaces/"+ws+"/items?include_archived=true&limit=1000&offset="+strconv.Itoa(offset), nil)
		wantStatus(t, r, 200)
		decode(t, r, &page)
		for _, it := range page {
			seen++
			if other, dup := refs[it.Ref]; dup {
				t.Errorf("ref %s names two items: %s and %s", it.Ref, other, it.ID)
			}
			refs[it.Ref] = it.ID
			if it.ItemNumber != nil {
				if other, dup := numbers[*it.ItemNumber]; dup {
					t.Errorf("item_number %d given to two items: %s and %s", *it.ItemNumber, other, it.ID)
				}
				numbers[*it.ItemNumber] = it.ID
			}
		}
		if r.Header.Get("X-Pad-Has-More") != "true" || len(page) == 0 {
			break
		}
		next, err := strconv.Atoi(r.Header.Get("X-Pad-Next-Offset"))
		if err != nil || next <= offset {
			t.Fatalf("X-Pad-Next-Offset %q after offset %d", r.Header.Get("X-Pad-Next-Offset"), offset)
		}
		offset = next
	}
	if seen < len(want) {
		t.Errorf("listing shows %d items, %d were acknowledged", seen, len(want))
	}
	return seen
}

// verifySearch checks that the search index (derived data, caught up
// from the change log at start) finds every item of the workspace: after
// a crash the indexer must catch up with everything committed. A 503
// while the index rebuilds is waited out (bounded).
func verifySearch(t *testing.T, d *instance, ws string, want int) {
	t.Helper()
	path := "/api/v1/search?q=" + searchMarker + "&limit=1&workspace=" + ws
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := d.do(t, "GET", path, nil)
		if r.Status == 503 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		wantStatus(t, r, 200)
		var res struct {
			Total json.Number `json:"total"`
		}
		decode(t, r, &res)
		if n, err := res.Total.Int64(); err != nil || n != int64(want) {
			t.Errorf("search finds %s of the %d items in the workspace: the index did not catch up", res.Total, want)
		}
		return
	}
}

// checkStore opens the stopped padd's database directly: bbolt's
// consistency check passes and every acknowledged item is in it.
func checkStore(t *testing.T, home, ws string, want map[string]string) {
	t.Helper()
	st, err := storage.Open(filepath.Join(home, daemon.DBFile), storage.Options{Timeout: 5 * time.Second, Logger: quietLog})
	if err != nil {
		t.Fatalf("open the database after padd stopped: %v", err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatalf("database consistency check: %v", err)
	}
	for id, title := range want {
		v, err := views.Of(st).GetItem(ws, id)
		if err != nil {
			t.Fatalf("storage has no acknowledged item %s (%q): %v", id, title, err)
		}
		if v.Title != title {
			t.Fatalf("storage item %s title %q, acknowledged %q", id, v.Title, title)
		}
	}
}
