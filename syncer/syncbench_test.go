package syncer_test

// The sync benchmarks of docs/PERFORMANCE.md ("Sync (issue 23)"), run by
// scripts/syncbench. Each runs its work once whatever b.N is (run them
// with -benchtime=1x) and reports median and p90 where there are
// samples. The remote is padd's test remote on loopback (a second padd
// process behind the counting, rate-limiting proxy), except for the
// clone, whose remote is an in-process padd on a data directory seeded
// directly (30,000 writes through the API would take minutes). padd's
// side is the engine over a store in this process, as the daemon runs
// it, with the client options the daemon gives it (none: the pacing
// adapts to the server).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bench"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
	"github.com/padd/padd/syncer"
)

// benchSeed is PADD_SYNCBENCH_SEED, else 1; every benchmark prints it.
func benchSeed(b *testing.B) uint64 {
	seed := uint64(1)
	if v := os.Getenv("PADD_SYNCBENCH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			b.Fatalf("PADD_SYNCBENCH_SEED: %v", err)
		}
		seed = n
	}
	b.Logf("seed %d (PADD_SYNCBENCH_SEED)", seed)
	return seed
}

// benchN is the environment's count for name, else def.
func benchN(b *testing.B, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("%s: %q", name, v)
		}
		return n
	}
	return def
}

// counter counts the engine's requests by route (a transport under its
// client), for the benchmarks whose remote has no proxy.
type counter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[r.Method+" "+routeOf(r.URL.Path)]++
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *counter) report(b *testing.B) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	keys := make([]string, 0, len(c.n))
	for k, v := range c.n {
		keys = append(keys, k)
		total += v
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.Logf("  %6d %s", c.n[k], k)
	}
	return total
}

// routeOf writes a path's ids as {id}: segments after workspaces,
// items, comments, links, collections.
func routeOf(path string) string {
	segs := strings.Split(path, "/")
	for i := 1; i < len(segs); i++ {
		switch segs[i-1] {
		case "workspaces", "items", "comments", "links", "collections":
			if i > 3 && segs[i] != "bulk" {
				segs[i] = "{id}"
			}
		}
	}
	return strings.Join(segs, "/")
}

// benchLocal is padd's side: a store and the engine, with the options
// the daemon gives the engine (hc, when set, under the client only).
func benchLocal(b *testing.B, hc *http.Client) *local {
	b.Helper()
	dir := b.TempDir()
	st, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	m := syncer.New(syncer.Config{Store: st, DataDir: dir, Log: quiet(), Client: remote.Options{HTTP: hc}})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = m.Run(ctx) })
	b.Cleanup(func() { cancel(); wg.Wait(); st.Close() })
	testwait.Until(b, "the engine to run", func() bool { _, err := m.Status(""); return err == nil })
	return &local{Store: st, M: m, Dir: dir}
}

// waitSynced waits for the engine's status events until ws is synced
// with nothing pending, and answers when it saw that.
func waitSynced(b *testing.B, l *local, ws string) time.Time {
	b.Helper()
	evs, stop := l.M.Subscribe()
	defer stop()
	tick := time.NewTicker(20 * time.Millisecond) // a status event lost to a full channel
	defer tick.Stop()
	deadline := time.Now().Add(30 * time.Minute)
	for {
		s, err := l.M.Status(ws)
		if err != nil {
			b.Fatal(err)
		}
		st := s[0]
		if st.State == api.SyncSynced && st.Pending == 0 && !st.Cloning {
			return time.Now()
		}
		if time.Now().After(deadline) {
			b.Fatalf("sync of %s is %s after 30 minutes (pending %d, last error %q)", ws, st.State, st.Pending, st.LastError)
		}
		select {
		case <-evs:
		case <-tick.C:
		}
	}
}

// clone makes the local workspace ws from the remote's, and waits until
// it is synced.
func clone(b *testing.B, l *local, url, token, ws string) {
	b.Helper()
	if _, err := l.M.Clone(context.Background(), api.SyncClone{URL: url, RemoteWorkspace: ws, SyncToken: api.SyncToken{Token: token}}); err != nil {
		b.Fatal(err)
	}
	waitSynced(b, l, ws)
}

// quantiles reports the median and p90 of ds under name, and answers the
// median.
func quantiles(b *testing.B, name string, ds []time.Duration) time.Duration {
	b.Helper()
	s := slices.Clone(ds)
	slices.Sort(s)
	p50, p90 := s[len(s)/2], s[len(s)*9/10]
	b.ReportMetric(float64(p50.Microseconds())/1000, name+"-p50-ms")
	b.ReportMetric(float64(p90.Microseconds())/1000, name+"-p90-ms")
	b.Logf("%s: %d samples, median %.1f ms, p90 %.1f ms, max %.1f ms", name, len(s),
		float64(p50.Microseconds())/1000, float64(p90.Microseconds())/1000, float64(s[len(s)-1].Microseconds())/1000)
	return p50
}

// remoteCreates follows the remote's event stream for ws and tells when
// an item of a given title was created there.
type remoteCreates struct {
	mu   sync.Mutex
	seen map[string]time.Time
	wait map[string]chan struct{}
}

func followRemote(b *testing.B, c *api.Client, ws string) *remoteCreates {
	rc := &remoteCreates{seen: map[string]time.Time{}, wait: map[string]chan struct{}{}}
	ctx, cancel := context.WithCancel(context.Background())
	connected := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = c.StreamEvents(ctx, ws, "", func(f api.SSEFrame) error {
			once.Do(func() { close(connected) })
			var ev api.Event
			if json.Unmarshal(f.Data, &ev) != nil || ev.Type != "item_created" {
				return nil
			}
			now := time.Now()
			rc.mu.Lock()
			rc.seen[ev.Title] = now
			if ch := rc.wait[ev.Title]; ch != nil {
				close(ch)
				delete(rc.wait, ev.Title)
			}
			rc.mu.Unlock()
			return nil
		})
	})
	b.Cleanup(func() { cancel(); wg.Wait() })
	testwait.Recv(b, "the remote's event stream", connected)
	return rc
}

// when waits until title was created on the remote and answers when.
func (rc *remoteCreates) when(b *testing.B, title string) time.Time {
	rc.mu.Lock()
	if t, ok := rc.seen[title]; ok {
		rc.mu.Unlock()
		return t
	}
	ch := rc.wait[title]
	if ch == nil {
		ch = make(chan struct{})
		rc.wait[title] = ch
	}
	rc.mu.Unlock()
	testwait.Recv(b, "item "+title+" on the remote", ch)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.seen[title]
}

// teamRemote is a test remote holding workspace "team" with n tasks
// (written straight to its padd), cloned by a new local.
func teamRemote(b *testing.B, opts testremote.Options, n int) (*testremote.Remote, *local) {
	b.Helper()
	r := testremote.Start(b, opts)
	ctx := context.Background()
	if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := r.API().CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: fmt.Sprintf("Existing %d", i), Content: "text\n"}); err != nil {
			b.Fatal(err)
		}
	}
	l := benchLocal(b, nil)
	clone(b, l, r.URL(), r.Token(), "team")
	return r, l
}

// BenchmarkSyncPushLatency: a local write (a create) until the remote
// has it (its event stream says so). Back to back: the next write as
// soon as the last is on the remote. Paced: a write every 100 ms
// whatever the last one's progress.
func BenchmarkSyncPushLatency(b *testing.B) {
	benchSeed(b)
	n := benchN(b, "PADD_SYNCBENCH_WRITES", 200)
	r, l := teamRemote(b, testremote.Options{}, 0)
	rc := followRemote(b, r.API(), "team")
	user := model.UserActor(model.SourceCLI)
	write := func(title string) time.Time {
		start := time.Now()
		if _, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: title}, user); err != nil {
			b.Fatal(err)
		}
		return start
	}
	var seq []time.Duration
	for i := range n {
		title := fmt.Sprintf("back-to-back %d", i)
		start := write(title)
		seq = append(seq, rc.when(b, title).Sub(start))
	}
	waitSynced(b, l, "team")
	quantiles(b, "back-to-back", seq)

	starts := make([]time.Time, n)
	tick := time.NewTicker(100 * time.Millisecond)
	for i := range n {
		<-tick.C
		starts[i] = write(fmt.Sprintf("paced %d", i))
	}
	tick.Stop()
	var paced []time.Duration
	for i := range n {
		paced = append(paced, rc.when(b, fmt.Sprintf("paced %d", i)).Sub(starts[i]))
	}
	quantiles(b, "paced-100ms", paced)
	b.Logf("proxy: %d requests, %d 429s", r.Stats().Total(), r.Stats().TotalTooMany())
}

// BenchmarkSyncPullLatency: a remote write (a create, straight to the
// remote padd) until the local store has it, woken by the remote's event
// stream (the engine does not poll while it is connected). One write
// every 100 ms after the last arrived, so each one wakes an idle engine.
func BenchmarkSyncPullLatency(b *testing.B) {
	benchSeed(b)
	n := benchN(b, "PADD_SYNCBENCH_WRITES", 200)
	r, l := teamRemote(b, testremote.Options{}, 0)
	notes, stop := l.Store.Subscribe()
	defer stop()
	ctx := context.Background()
	var ds []time.Duration
	for i := range n {
		time.Sleep(100 * time.Millisecond) // idle between writes, as a team writes
		start := time.Now()
		it, err := r.API().CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: fmt.Sprintf("remote %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if v, err := views.Of(l.Store).GetItem("team", it.Ref); err == nil && v.Title == it.Title {
				break
			}
			select {
			case <-notes:
			case <-time.After(time.Minute):
				b.Fatalf("%s did not arrive in a minute", it.Ref)
			}
		}
		ds = append(ds, time.Since(start))
	}
	quantiles(b, "remote-to-local", ds)
	b.Logf("proxy: %d requests, %d 429s", r.Stats().Total(), r.Stats().TotalTooMany())
}

// seededRemote is an in-process padd on a data directory holding
// workspace "team": items tasks, plans, ideas and docs from
// bench.Workspace, comments spread over the items the generator gives
// comments (one in five), its blocking links.
func seededRemote(b *testing.B, seed uint64, items, comments int) *testRemote {
	b.Helper()
	dir := b.TempDir()
	start := time.Now()
	st, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{NoSync: true, Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Team", Slug: "team"}, user); err != nil {
		b.Fatal(err)
	}
	gen := bench.Workspace(seed, items)
	in := make([]storage.ItemCreate, len(gen))
	for i, it := range gen {
		in[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
	}
	views, err := st.CreateItems("team", in, user, 5000)
	if err != nil {
		b.Fatal(err)
	}
	var withComments []int
	links := 0
	for i, it := range gen {
		if len(it.Comments) > 0 {
			withComments = append(withComments, i)
		}
		for _, j := range it.BlockedBy {
			if _, err := st.AddLink("team", views[j].Ref, views[i].Ref, "blocks", user); err != nil {
				b.Fatal(err)
			}
			links++
		}
	}
	rnd := rand.New(rand.NewPCG(seed, 7))
	for k := range comments {
		i := withComments[k%len(withComments)]
		if _, err := st.AddComment("team", views[i].Ref, storage.CommentCreate{Body: bench.Words(rnd, 8+rnd.IntN(20))}, user); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("remote seeded in %v: %d items, %d comments on %d items, %d links", time.Since(start).Round(time.Millisecond), items, comments, len(withComments), links)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *launch.Info, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := daemon.Run(ctx, daemon.Config{DataDir: dir, Log: quiet(), Port: freePortB(b), Ready: func(i *launch.Info) { ready <- i }})
		if err != nil && ctx.Err() == nil {
			b.Errorf("remote padd: %v", err)
		}
	})
	b.Cleanup(func() { cancel(); wg.Wait() })
	info := testwait.Recv(b, "the remote padd to serve", ready)
	r := &testRemote{URL: fmt.Sprintf("http://127.0.0.1:%d", info.Port), Token: info.Token}
	r.API = api.NewClient(r.URL, r.Token)
	// A Pad server has its search index; padd builds its own at start.
	testwait.UntilOK(b, func() error {
		s, err := r.API.IndexStatus(ctx)
		if err != nil {
			return err
		}
		if s.State != "ready" {
			return fmt.Errorf("the remote's search index is %s (%d of %d)", s.State, s.Done, s.Total)
		}
		return nil
	})
	return r
}

func freePortB(b *testing.B) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// BenchmarkSyncClone10k: a clone of a 10k-item workspace with 20k
// comments, from the clone's request until the workspace is synced.
func BenchmarkSyncClone10k(b *testing.B) {
	seed := benchSeed(b)
	items := benchN(b, "PADD_SYNCBENCH_ITEMS", 10000)
	comments := benchN(b, "PADD_SYNCBENCH_COMMENTS", 2*items)
	r := seededRemote(b, seed, items, comments)
	cnt := &counter{next: http.DefaultTransport.(*http.Transport).Clone(), n: map[string]int{}}
	l := benchLocal(b, &http.Client{Transport: cnt})
	start := time.Now()
	if _, err := l.M.Clone(context.Background(), api.SyncClone{URL: r.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		b.Fatal(err)
	}
	took := waitSynced(b, l, "team").Sub(start)
	b.ReportMetric(took.Seconds(), "clone-s")
	b.Logf("clone of %d items and %d comments: %.2f s", items, comments, took.Seconds())
	b.ReportMetric(float64(cnt.report(b)), "requests")
	idx, err := views.Of(l.Store).ItemsIndex(context.Background(), "team", "", true)
	if err != nil {
		b.Fatal(err)
	}
	got := 0
	for _, it := range idx.Items {
		cs, err := views.Of(l.Store).ListComments("team", it.ID)
		if err != nil {
			b.Fatal(err)
		}
		got += len(cs)
	}
	if len(idx.Items) != items || got != comments {
		b.Fatalf("the clone holds %d items and %d comments, want %d and %d", len(idx.Items), got, items, comments)
	}
	// A verify of the clone: both sides compared whole, and what it costs.
	cnt.mu.Lock()
	clear(cnt.n)
	cnt.mu.Unlock()
	start = time.Now()
	v, err := l.M.Verify(context.Background(), "team", nil)
	if err != nil {
		b.Fatal(err)
	}
	took = time.Since(start)
	b.ReportMetric(took.Seconds(), "verify-s")
	b.Logf("verify of %d items and %d comments: %.2f s", v.Checked.Items, v.Checked.Comments, took.Seconds())
	b.ReportMetric(float64(cnt.report(b)), "verify-requests")
	if !v.Equal || v.Checked.Items != items || v.Checked.Comments != comments {
		b.Fatalf("the verify of the clone compared %+v: %d differences, the first %+v", v.Checked, len(v.Differences), v.Differences[:min(1, len(v.Differences))])
	}
}

// backlog runs the offline backlog against a test remote made with opts:
// 200 tasks on the remote, cloned; the link paused; 1,000 local writes
// (700 creates, 200 title edits of the cloned tasks, 100 comments on
// them); the link resumed, and the time until the workspace is synced.
func backlog(b *testing.B, opts testremote.Options) {
	seed := benchSeed(b)
	creates, edits, comments := 700, 200, 100
	r, l := teamRemote(b, opts, edits)
	cloned := time.Now()
	b.Logf("before the backlog (seeding, clone): %d requests through the proxy, %d 429s", r.Stats().Total(), r.Stats().TotalTooMany())
	if _, err := l.M.Pause("team"); err != nil {
		b.Fatal(err)
	}
	idx, err := views.Of(l.Store).ItemsIndex(context.Background(), "team", "", false)
	if err != nil || len(idx.Items) != edits {
		b.Fatalf("the clone holds %d items (%v), want %d", len(idx.Items), err, edits)
	}
	// A backlog is made over hours, not in the second after the clone:
	// against a server without expected_seq, an edit of an item read
	// less than a second before the push's first read of the feed is
	// read again before its patch (docs/SYNC.md, "Without expected_seq").
	time.Sleep(time.Until(cloned.Add(1100 * time.Millisecond)))
	rnd := rand.New(rand.NewPCG(seed, 11))
	wrote := time.Now()
	for i := range creates {
		if _, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("Offline %d", i), Content: bench.Words(rnd, 20)}, user); err != nil {
			b.Fatal(err)
		}
	}
	for i, it := range idx.Items {
		title := fmt.Sprintf("Existing %d, edited offline", i)
		if _, err := l.Store.UpdateItem("team", it.ID, storage.ItemUpdate{Title: &title}, user); err != nil {
			b.Fatal(err)
		}
		if i < comments {
			if _, err := l.Store.AddComment("team", it.ID, storage.CommentCreate{Body: bench.Words(rnd, 12)}, user); err != nil {
				b.Fatal(err)
			}
		}
	}
	st, err := l.M.Status("team")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d writes offline in %.2f s, %d pending", creates+edits+comments, time.Since(wrote).Seconds(), st[0].Pending)
	r.ResetStats()
	start := time.Now()
	if _, err := l.M.Resume("team"); err != nil {
		b.Fatal(err)
	}
	took := waitSynced(b, l, "team").Sub(start)
	stats := r.Stats()
	b.ReportMetric(took.Seconds(), "push-s")
	b.ReportMetric(float64(stats.Total()), "requests")
	b.ReportMetric(float64(stats.TotalTooMany()), "429s")
	b.Logf("backlog of %d writes pushed in %.2f s: %d requests, %d 429s", creates+edits+comments, took.Seconds(), stats.Total(), stats.TotalTooMany())
	for _, k := range slices.Sorted(maps.Keys(stats.Requests)) {
		b.Logf("  %6d %s (%d 429s)", stats.Requests[k], k, stats.TooMany[k])
	}
	ctx := context.Background()
	items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{Limit: 1000})
	if err != nil {
		b.Fatal(err)
	}
	if len(items) != edits+creates {
		b.Fatalf("the remote holds %d tasks, want %d", len(items), edits+creates)
	}
	if s, _ := l.M.Status("team"); s[0].SetAside > 0 || s[0].Conflicts > 0 {
		b.Fatalf("after the push: %d set aside, %d conflicts", s[0].SetAside, s[0].Conflicts)
	}
}

// BenchmarkSyncBacklog1000: 1,000 offline writes pushed to the test
// remote with no limiter.
func BenchmarkSyncBacklog1000(b *testing.B) { backlog(b, testremote.Options{}) }

// BenchmarkSyncBacklogLimited: the same backlog against the Pad shape:
// the Pad of August 2026's answers (no idempotency keys, no
// expected_seq) behind a limiter of 10 requests a second with a burst
// of 60, whose 429s say X-Ratelimit-Limit: 600.
func BenchmarkSyncBacklogLimited(b *testing.B) {
	backlog(b, testremote.Options{Aug2026: true, RateLimit: 10, Burst: 60})
}

// BenchmarkSyncLocalWriteAB: the local write path (a create in the
// store) in a linked workspace (its engine pushing each create) and in
// an unlinked one of the same store, in alternating rounds (the order
// swapped each round); after each linked round the push is let finish
// before the next round. Back to back: 100 creates one after the other,
// the engine pushing the earlier ones meanwhile. Paced: 40 creates, one
// every 50 ms, as an agent that writes between other work.
func BenchmarkSyncLocalWriteAB(b *testing.B) {
	benchSeed(b)
	rounds := benchN(b, "PADD_SYNCBENCH_ROUNDS", 10)
	_, l := teamRemote(b, testremote.Options{}, 0)
	if _, err := l.Store.CreateWorkspace(storage.WorkspaceCreate{Name: "Solo", Slug: "solo"}, user); err != nil {
		b.Fatal(err)
	}
	run := func(ws string, n int, pace time.Duration, into *[]time.Duration, round int) time.Duration {
		var ds []time.Duration
		var tick *time.Ticker
		if pace > 0 {
			tick = time.NewTicker(pace)
			defer tick.Stop()
		}
		for i := range n {
			if tick != nil {
				<-tick.C
			}
			start := time.Now()
			if _, err := l.Store.CreateItem(ws, storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("%s %v %d.%d", ws, pace, round, i)}, user); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		*into = append(*into, ds...)
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	for _, mode := range []struct {
		name string
		n    int
		pace time.Duration
	}{{"back-to-back", 100, 0}, {"paced-50ms", 40, 50 * time.Millisecond}} {
		var linked, unlinked []time.Duration
		for round := range rounds {
			var a, u time.Duration
			if round%2 == 0 {
				a = run("team", mode.n, mode.pace, &linked, round)
				waitSynced(b, l, "team")
				u = run("solo", mode.n, mode.pace, &unlinked, round)
			} else {
				u = run("solo", mode.n, mode.pace, &unlinked, round)
				a = run("team", mode.n, mode.pace, &linked, round)
				waitSynced(b, l, "team")
			}
			b.Logf("%s round %d: create median linked %.3f ms, unlinked %.3f ms", mode.name, round, float64(a.Microseconds())/1000, float64(u.Microseconds())/1000)
		}
		quantiles(b, mode.name+"-linked", linked)
		quantiles(b, mode.name+"-unlinked", unlinked)
	}
}

// BenchmarkSyncAttachment10MB: a 10 MB file attached here until the
// engine is synced (uploaded, mapped, acknowledged), and a 10 MB file
// uploaded on the remote and named in an item's content there until it
// is here (its bytes a blob, its row written), each PADD_SYNCBENCH_FILES
// times (5); the bytes are seeded random, so nothing compresses.
func BenchmarkSyncAttachment10MB(b *testing.B) {
	seed := benchSeed(b)
	n := benchN(b, "PADD_SYNCBENCH_FILES", 5)
	r, l := teamRemote(b, testremote.Options{}, 0)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 10))
	file := func() []byte {
		data := make([]byte, 10<<20)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		return data
	}
	res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Files"}, model.UserActor(model.SourceCLI))
	if err != nil {
		b.Fatal(err)
	}
	waitSynced(b, l, "team")
	ref := res.Item.ID
	var ms runtime.MemStats
	allocated := func() uint64 { runtime.ReadMemStats(&ms); return ms.TotalAlloc }
	var moved uint64 // allocated by this process while files moved, the files' own bytes left out
	var up []time.Duration
	for range n {
		data := file()
		a0, start := allocated(), time.Now()
		l.attachLocal(b, "team", ref, "up.bin", data)
		up = append(up, waitSynced(b, l, "team").Sub(start))
		moved += allocated() - a0
	}
	quantiles(b, "local-to-remote", up)

	v, err := views.Of(l.Store).GetItem("team", ref)
	if err != nil {
		b.Fatal(err)
	}
	notes, stop := l.Store.Subscribe()
	defer stop()
	var down []time.Duration
	for i := range n {
		data := file()
		a0, start := allocated(), time.Now()
		ra, err := r.API().UploadAttachment(ctx, "team", bytes.NewReader(data), int64(len(data)), "down.bin", v.Ref)
		if err != nil {
			b.Fatal(err)
		}
		content := fmt.Sprintf("file %d: [down](pad-attachment:%s)\n", i, ra.ID)
		if _, err := r.API().UpdateItem(ctx, "team", v.Ref, api.ItemUpdate{Content: &content}); err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := views.Of(l.Store).GetAttachment("team", ra.ID); err == nil {
				break
			}
			select {
			case <-notes:
			case <-time.After(time.Minute):
				b.Fatalf("%s did not arrive in a minute", ra.ID)
			}
		}
		down = append(down, time.Since(start))
		moved += allocated() - a0
	}
	quantiles(b, "remote-to-local", down)
	b.ReportMetric(float64(moved)/float64(2*n)/(1<<20), "MB-allocated/file")
	b.Logf("proxy: %d requests, %d 429s", r.Stats().Total(), r.Stats().TotalTooMany())
}
