//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/config"
	"github.com/padd/padd/internal/syncfaultreport"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
)

// The sync fault run (issue 23): a remote (a second padd behind the
// fault-injecting proxy of internal/testremote) and a local padd process
// that cloned its workspace; agents write on both sides while the proxy
// drops, delays and refuses the local padd's requests, the local padd
// is killed with SIGKILL and restarted and the remote restarts. Then the
// faults stop, both sides sync until idle, and they are compared entity
// by entity. CI runs a few seconds of it in both remote modes;
// `go run ./scripts/syncfault` runs this same test longer
// (docs/RELIABILITY.md, "Sync fault run").
var (
	sfDuration  = flag.Duration("syncfault.duration", 3*time.Second, "how long the agents of TestSyncFaultRun write")
	sfAgents    = flag.Int("syncfault.agents", 2, "agents writing on each side")
	sfPause     = flag.Duration("syncfault.pause", 250*time.Millisecond, "an agent's mean pause between writes")
	sfMode      = flag.String("syncfault.mode", "both", "the remote: aug2026 (the Pad of August 2026), current, or both")
	sfKills     = flag.Int("syncfault.kills", 1, "kill -9 of the local padd during the agents")
	sfRestarts  = flag.Int("syncfault.restarts", 1, "restarts of the remote during the agents")
	sfRate      = flag.Float64("syncfault.rate", 0.05, "share of the local padd's requests to the remote that meet a fault")
	sfMaxFaults = flag.Int("syncfault.maxfaults", 8, "faults injected at most (0: no cap)")
	sfLaptops   = flag.Int("syncfault.laptops", 2, "local padds (laptops), each cloning the remote's workspace over a link of its own")
	sfOutages   = flag.Int("syncfault.outages", 1, "cuts of each laptop's link during the agents (refused connections or accept-and-close)")
	sfOutageMax = flag.Duration("syncfault.outagemax", 8*time.Second, "how long a cut lasts at most")
	sfSeed      = flag.Uint64("syncfault.seed", syncfaultreport.DefaultSeed, "random seed of TestSyncFaultRun (0: from the clock; logged)")
	sfReport    = flag.String("syncfault.report", "", "write TestSyncFaultRun's results as JSON to this file")
	// sfIdleLimit bounds the wait for both sides to be idle after the
	// faults: it only bounds a failure.
	sfIdleLimit = flag.Duration("syncfault.idlelimit", 5*time.Minute, "how long TestSyncFaultRun waits for the sides to be idle before it fails")
)

// sfEnv shortens the local padd's sync timings so that a fault settles
// in seconds: a request times out after 10 s, a create whose outcome is
// unknown is looked for 15 s after it was sent (on a remote without
// idempotency keys), and an unreachable remote is retried within 2 s.
var sfEnv = []string{"PADD_SYNC_TIMEOUT=10s", "PADD_SYNC_SETTLE=15s", "PADD_SYNC_MAX_BACKOFF=2s"}

func TestSyncFaultRun(t *testing.T) {
	seed := runSeed(t, "syncfault.seed", *sfSeed)
	var modes []string
	switch *sfMode {
	case "both":
		modes = []string{"aug2026", "current"}
	case "aug2026", "current":
		modes = []string{*sfMode}
	default:
		t.Fatalf("-syncfault.mode=%q: want aug2026, current or both", *sfMode)
	}
	var mu sync.Mutex
	res := syncfaultreport.Result{}
	defer func() {
		if *sfReport != "" {
			b, _ := json.MarshalIndent(res, "", "  ")
			if err := os.WriteFile(*sfReport, b, 0o644); err != nil {
				t.Errorf("write the report: %v", err)
			}
		}
	}()
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			run := syncfaultreport.Run{Mode: mode, Seed: seed, Agents: *sfAgents, AgentsSec: sfDuration.Seconds(),
				Race: raceBuild, FaultRate: *sfRate, Laptops: *sfLaptops}
			start := time.Now()
			defer func() {
				run.DurationSec = time.Since(start).Seconds()
				run.Passed = !t.Failed()
				mu.Lock()
				res.Runs = append(res.Runs, run)
				mu.Unlock()
			}()
			syncFaultRun(t, mode == "aug2026", seed, &run)
		})
	}
}

// sfLocal is a laptop: a local padd, restarted after each kill, and
// its link to the remote.
type sfLocal struct {
	t         *testing.T
	name, tag string // its side's name and the first letter of its keys
	home      string
	link      *testremote.Link
	cur       atomic.Pointer[instance]

	mu  sync.Mutex
	all []*instance // every padd started, for their logs
}

func (l *sfLocal) client() *api.Client { return l.cur.Load().client }

// start starts a padd on the local home (its log at debug level: the
// sync engine's merges and pushes, which trace prints).
func (l *sfLocal) start() {
	p := startPaddEnv(l.t, l.home, sfEnv)
	l.mu.Lock()
	l.all = append(l.all, p)
	l.mu.Unlock()
	l.cur.Store(p)
}

func (l *sfLocal) restart() {
	l.cur.Load().kill9()
	l.start()
}

// trace logs the lines of every local padd's log that name one of ids.
func (l *sfLocal) trace(ids []string) {
	if len(ids) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.all {
		for line := range strings.Lines(p.stderr.String()) {
			for _, id := range ids {
				if strings.Contains(line, id) {
					l.t.Logf("%s padd pid %d: %s", l.name, p.pid(), strings.TrimSpace(line))
					break
				}
			}
		}
	}
}

func syncFaultRun(t *testing.T, aug bool, seed uint64, run *syncfaultreport.Run) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 2))
	r := testremote.Start(t, testremote.Options{Aug2026: aug})
	const ws = "team"
	if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: ws}); err != nil {
		t.Fatal(err)
	}
	// Items both sides have from the start, so that both write the same
	// items.
	for i := range 8 {
		key := fmt.Sprintf("S-%d", i)
		it, err := r.API().CreateItem(ctx, ws, sfCollections[i%2], api.ItemCreate{Title: key + " new", Content: sfContent(key),
			Fields: api.Flex(fmt.Sprintf(`{"category":%q}`, key+" new"))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.API().AddComment(ctx, ws, it.ID, api.CommentCreate{Body: "comment " + key + " seed"}); err != nil {
			t.Fatal(err)
		}
	}

	locals := make([]*sfLocal, *sfLaptops)
	for i := range locals {
		l := &sfLocal{t: t, home: t.TempDir(), name: "local", tag: "L", link: r.NewLink(t)}
		if len(locals) > 1 {
			l.name, l.tag = fmt.Sprintf("local%d", i+1), string(rune('A'+i))
		}
		locals[i] = l
		if err := os.WriteFile(filepath.Join(l.home, config.FileName), []byte("log_level = \"debug\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		l.start()
		if _, err := l.client().SyncClone(ctx, api.SyncClone{URL: l.link.URL(), RemoteWorkspace: ws, As: ws,
			SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
			t.Fatalf("clone on %s: %v", l.name, err)
		}
	}
	for _, l := range locals {
		testwait.UntilOK(t, func() error {
			st, err := l.client().SyncStatus(ctx, ws)
			if err != nil {
				return err
			}
			if st.State != api.SyncSynced || st.Pending > 0 || st.Cloning {
				return fmt.Errorf("the clone on %s is %s (pending %d, cloning %v, last error %q)", l.name, st.State, st.Pending, st.Cloning, st.LastError)
			}
			return nil
		})
	}

	ledger := newLedger()
	var sides []*sfSide
	for _, l := range locals {
		sides = append(sides, newSide(l.name, l.tag, ws, l.client))
	}
	sides = append(sides, newSide("remote", "R", ws, r.API))
	for _, s := range sides {
		if err := s.discover(ctx); err != nil {
			t.Fatal(err)
		}
		if len(s.keys) != 8 {
			t.Fatalf("the %s side has %d items after the clone, want the 8 seeded: %v", s.name, len(s.keys), s.keys)
		}
	}

	faults := &sfFaults{rng: rand.New(rand.NewPCG(seed, 3)), rate: *sfRate, max: *sfMaxFaults, counts: syncfaultreport.Counts{}}
	r.SetFault(faults.decide)
	faults.set(true)
	r.ResetStats()

	// Agents write on every side; meanwhile the laptops are killed and
	// cut off and the remote restarted at random moments.
	agentsCtx, stopAgents := context.WithTimeout(ctx, *sfDuration)
	defer stopAgents()
	var agents sync.WaitGroup
	for si, s := range sides {
		for i := range *sfAgents {
			a := &sfAgent{side: s, ledger: ledger, rng: rand.New(rand.NewPCG(seed, uint64(100*(si+1)+i))), id: i, pause: *sfPause}
			agents.Go(func() { a.run(agentsCtx) })
		}
	}
	began := time.Now()
	for _, e := range sfSchedule(rng, len(locals)) {
		// A scheduled moment of the run, not a wait for something to happen.
		if d := e.at - time.Since(began); d > 0 {
			time.Sleep(d)
		}
		at := time.Since(began).Seconds()
		switch e.what {
		case sfKill:
			l := locals[e.laptop]
			t.Logf("%.1fs: kill -9 of %s, padd pid %d", at, l.name, l.cur.Load().pid())
			l.restart()
			run.Kills++
		case sfRestart:
			t.Logf("%.1fs: restart of the remote", at)
			r.Restart(t)
			run.Restarts++
		case sfCut:
			l := locals[e.laptop]
			t.Logf("%.1fs: %s cut off (%s) for %.1fs", at, l.name, e.mode, e.length.Seconds())
			if err := l.link.Cut(e.mode); err != nil {
				t.Fatalf("cut %s: %v", l.name, err)
			}
			run.Outages++
		case sfMend:
			l := locals[e.laptop]
			t.Logf("%.1fs: %s reconnected", at, l.name)
			if err := l.link.Mend(); err != nil {
				t.Fatalf("reconnect %s: %v", l.name, err)
			}
		}
	}
	agents.Wait()
	faults.set(false)
	run.Faults, _ = faults.snapshot()
	run.Requests = r.Stats().Total()
	t.Logf("agents done after %.1fs; faults injected: %v of %d requests", time.Since(began).Seconds(), run.Faults, run.Requests)

	settleStart := time.Now()
	for _, l := range locals {
		if _, err := l.client().SyncNow(ctx, ws); err != nil {
			t.Errorf("sync now on %s: %v", l.name, err)
		}
	}
	idleErr := sfWaitIdle(ctx, locals, r.API(), ws)
	if idleErr == nil && aug && len(locals) > 1 {
		// The Pad of August 2026 announces no link and no upload: what
		// one laptop pushed after another's sync now read the export
		// reaches that one at its next export read (every ten minutes
		// online). A second sync now stands for it.
		for _, l := range locals {
			if _, err := l.client().SyncNow(ctx, ws); err != nil {
				t.Errorf("sync now on %s: %v", l.name, err)
			}
		}
		idleErr = sfWaitIdle(ctx, locals, r.API(), ws)
	}
	run.SettleSec = time.Since(settleStart).Seconds()
	if idleErr != nil {
		t.Errorf("the sides did not become idle: %v", idleErr)
		for _, l := range locals {
			t.Logf("%s:", l.name)
			sfDumpSync(t, l.cur.Load())
			l.start() // to read the local side
		}
	}
	t.Logf("idle %.1fs after the faults stopped", run.SettleSec)

	ledger.mu.Lock()
	run.LocalAcked, run.RemoteAcked, run.Unknown = syncfaultreport.Counts{}, ledger.acked["remote"], ledger.unk
	for side, counts := range ledger.acked {
		if side != "remote" {
			for op, n := range counts {
				run.LocalAcked[op] += n
			}
		}
	}
	writes := slices.Clone(ledger.writes)
	run.Errors = append(run.Errors, ledger.errs...)
	ledger.mu.Unlock()

	cmp := sfCompare(ctx, t, locals, r.API(), ws, writes, aug)
	cmp.fill(run)
	for _, l := range locals {
		l.trace(cmp.traced[l.name])
	}
	t.Logf("laptops acked %v, remote acked %v, outcome unknown %d", run.LocalAcked, run.RemoteAcked, run.Unknown)
	t.Logf("items: local %d, remote %d, equal %d, different %d (unexplained %d); duplicates %d; lost %d; conflicts %d, set aside %d",
		run.LocalItems, run.RemoteItems, run.Equal, len(run.Different), run.Unexplained, len(run.Duplicates), len(run.Lost), run.Conflicts, run.SetAside)
	for _, s := range run.Different {
		t.Logf("different: %s", s)
	}
	for _, s := range run.ConflictList {
		t.Logf("conflict: %s", s)
	}
	for _, s := range run.RoundTrips {
		t.Logf("round trip: %s", s)
	}
	if len(run.Duplicates) > 0 {
		t.Errorf("duplicates: %q", run.Duplicates)
	}
	if len(run.Lost) > 0 {
		t.Errorf("acknowledged writes lost: %q", run.Lost)
	}
	if run.Unexplained > 0 {
		t.Errorf("%d differences between the sides that no recorded conflict explains", run.Unexplained)
	}
	if run.Equal == 0 {
		t.Errorf("no item is equal on every side: the comparison read nothing")
	}
	// Each laptop's own verify (padctl sync verify) is the second oracle:
	// it compares every entity, collections and schemas too.
	for _, l := range locals {
		v, err := l.client().SyncVerify(ctx, ws, nil)
		switch {
		case err != nil:
			run.Verify = append(run.Verify, fmt.Sprintf("%s: %v", l.name, err))
		case !v.Equal:
			for _, d := range v.Differences {
				run.Verify = append(run.Verify, fmt.Sprintf("%s: %s", l.name, d.Words))
			}
			if len(v.Differences) == 0 {
				run.Verify = append(run.Verify, fmt.Sprintf("%s: not equal (pending %d)", l.name, v.Pending))
			}
		}
	}
	if len(run.Verify) > 0 {
		t.Errorf("sync verify found differences: %q", run.Verify)
	}
}

// What happens to a laptop or the remote at a moment of the run.
const (
	sfKill    = iota // kill -9 of a laptop's padd, and its restart
	sfRestart        // a restart of the remote
	sfCut            // a laptop's link is cut
	sfMend           // and mended
)

type sfEvent struct {
	at     time.Duration
	what   int
	laptop int
	mode   testremote.LinkMode
	length time.Duration // of a cut
}

// sfSchedule is the run's seeded moments: -kills kills of a random
// laptop, -restarts restarts of the remote, and -outages cuts of each
// laptop's link, each mended within -outagemax (before the agents stop).
func sfSchedule(rng *rand.Rand, laptops int) []sfEvent {
	var events []sfEvent
	for range *sfKills {
		events = append(events, sfEvent{at: sfMoment(rng, *sfDuration), what: sfKill, laptop: rng.IntN(laptops)})
	}
	for range *sfRestarts {
		events = append(events, sfEvent{at: sfMoment(rng, *sfDuration), what: sfRestart})
	}
	for laptop := range laptops {
		for range *sfOutages {
			at := sfMoment(rng, *sfDuration)
			length := time.Second/2 + time.Duration(rng.Int64N(int64(*sfOutageMax)))
			length = min(length, *sfDuration-at)
			mode := testremote.Refuse
			if rng.IntN(2) == 0 {
				mode = testremote.AcceptClose
			}
			events = append(events, sfEvent{at: at, what: sfCut, laptop: laptop, mode: mode, length: length},
				sfEvent{at: at + length, what: sfMend, laptop: laptop})
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at < events[j].at })
	return events
}

// sfDumpSync ends a wedged local padd with SIGQUIT and logs the stacks
// of its sync engine's goroutines: where it is stuck.
func sfDumpSync(t *testing.T, d *instance) {
	d.signal(syscall.SIGQUIT)
	if _, ok := d.waitExit(30 * time.Second); !ok {
		d.kill9()
	}
	for _, g := range strings.Split(d.stderr.String(), "\n\n") {
		if strings.Contains(g, "syncer.") || strings.Contains(g, "/remote.") {
			t.Logf("local padd goroutine:\n%s", g)
		}
	}
}

// sfMoment is a random moment in the middle of the agents' run.
func sfMoment(rng *rand.Rand, d time.Duration) time.Duration {
	return d/5 + time.Duration(rng.Int64N(int64(d*3/5)+1))
}

// sfWaitIdle waits until the local padd says the workspace is synced
// with nothing pending and neither side's activity has moved for a
// quiet period.
func sfWaitIdle(ctx context.Context, locals []*sfLocal, remoteAPI *api.Client, ws string) error {
	const quiet = 2 * time.Second
	deadline := time.Now().Add(*sfIdleLimit)
	var last string
	var since time.Time
	for {
		fp, why := sfIdleMark(ctx, locals, remoteAPI, ws)
		switch {
		case why != "":
			last = ""
		case fp != last:
			last, since = fp, time.Now()
		case time.Since(since) >= quiet:
			return nil
		}
		if time.Now().After(deadline) {
			if why == "" {
				why = "the sides kept changing"
			}
			return fmt.Errorf("not idle after %v: %s", *sfIdleLimit, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// sfIdleMark is every side's newest activity, or why the sync is not
// idle.
func sfIdleMark(ctx context.Context, locals []*sfLocal, rc *api.Client, ws string) (string, string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	clients := []*api.Client{rc}
	for _, l := range locals {
		lc := l.client()
		st, err := lc.SyncStatus(ctx, ws)
		if err != nil {
			return "", l.name + ": " + err.Error()
		}
		if st.State != api.SyncSynced || st.Pending > 0 || st.Cloning {
			return "", fmt.Sprintf("sync on %s is %s (pending %d, last error %q)", l.name, st.State, st.Pending, st.LastError)
		}
		clients = append(clients, lc)
	}
	mark := ""
	for _, c := range clients {
		rows, _, err := c.Activity(ctx, ws, "", api.ActivityQuery{Limit: 1})
		if err != nil {
			return "", err.Error()
		}
		if len(rows) > 0 {
			mark += rows[0].ID + "/"
		}
	}
	return mark, ""
}

// sfItem is an item as the comparison reads it on one side.
type sfItem struct {
	key, id, ref         string
	title, content, coll string
	fields, tags, parent string
	archived             bool
	comments, links      []string // sorted: "body" or "parent body > body"; "type>target key"
	category             string
	files                []string // attachments' file names, sorted
	fileCount            map[string]int
	commentBodys         map[string]int
	deleted              []string // bodies of deleted comments
}

// sfRead reads a whole side: every item by key (several when duplicated).
func sfRead(ctx context.Context, c *api.Client, ws string) (map[string][]*sfItem, error) {
	items, err := sfListItems(ctx, c, ws)
	if err != nil {
		return nil, err
	}
	keyOf := map[string]string{}
	for _, it := range items {
		keyOf[it.ID] = sfKey(it.Title)
	}
	files := map[string][]string{} // item id -> attachments' file names
	for offset := 0; ; {
		page, err := c.ListAttachments(ctx, ws, url.Values{"sort": {"created_at"}, "limit": {"200"}, "offset": {strconv.Itoa(offset)}})
		if err != nil {
			return nil, fmt.Errorf("attachments: %w", err)
		}
		for _, a := range page.Attachments {
			if a.ItemID != nil {
				files[*a.ItemID] = append(files[*a.ItemID], a.Filename)
			}
		}
		offset += len(page.Attachments)
		if len(page.Attachments) == 0 || offset >= page.Total {
			break
		}
	}
	out := map[string][]*sfItem{}
	for _, it := range items {
		x := &sfItem{key: sfKey(it.Title), id: it.ID, ref: it.Ref, title: it.Title, content: it.Content, coll: it.CollectionSlug,
			fields: canonJSON(it.Fields), tags: sortedTags(it.Tags), archived: it.DeletedAt != nil, commentBodys: map[string]int{},
			files: slices.Sorted(slices.Values(files[it.ID])), fileCount: map[string]int{}}
		for _, f := range x.files {
			x.fileCount[f]++
		}
		if it.ParentID != nil && *it.ParentID != "" {
			x.parent = keyOf[*it.ParentID]
			if x.parent == "" {
				x.parent = "?" + *it.ParentID
			}
		}
		if fm, err := it.FieldMap(); err == nil {
			x.category, _ = fm["category"].(string)
		}
		cs, err := c.ListComments(ctx, ws, it.ID)
		if err != nil {
			return nil, fmt.Errorf("comments of %s: %w", it.Ref, err)
		}
		body := map[string]string{}
		for _, cm := range cs {
			body[cm.ID] = cm.Body
		}
		for _, cm := range cs {
			if cm.Deleted {
				x.deleted = append(x.deleted, cm.Body)
				continue
			}
			s := cm.Body
			if cm.ParentID != "" {
				s = body[cm.ParentID] + " > " + cm.Body
			}
			x.comments = append(x.comments, s)
			x.commentBodys[cm.Body]++
		}
		slices.Sort(x.comments)
		ls, err := c.ListLinks(ctx, ws, it.ID)
		if err != nil {
			return nil, fmt.Errorf("links of %s: %w", it.Ref, err)
		}
		for _, l := range ls {
			if l.SourceID == it.ID {
				x.links = append(x.links, l.LinkType+">"+keyOf[l.TargetID])
			}
		}
		slices.Sort(x.links)
		out[x.key] = append(out[x.key], x)
	}
	return out, nil
}

// sfDiff says how two items differ ("" when they do not). gone says an
// item is archived on both sides: against the Pad of August 2026 (aug),
// a link from or to one is not compared, since Pad exports links between
// live items only and sends no signal for a link, so one made there
// before its end was archived reaches padd only once that end is
// restored (docs/SYNC.md).
func sfDiff(a, b *sfItem, aug bool, gone func(key string) bool) string {
	var d []string
	add := func(part, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %q / %q", part, x, y))
		}
	}
	add("title", a.title, b.title)
	add("content", a.content, b.content)
	add("fields", a.fields, b.fields)
	add("tags", a.tags, b.tags)
	add("parent", a.parent, b.parent)
	add("collection", a.coll, b.coll)
	add("archived", fmt.Sprint(a.archived), fmt.Sprint(b.archived))
	if x, y := strings.Join(a.comments, " | "), strings.Join(b.comments, " | "); x != y {
		d = append(d, fmt.Sprintf("comments %q / %q (deleted: %q / %q)", x, y, a.deleted, b.deleted))
	}
	links := func(x *sfItem) string {
		if !aug {
			return strings.Join(x.links, ",")
		}
		if gone(x.key) {
			return ""
		}
		var kept []string
		for _, l := range x.links {
			if _, to, _ := strings.Cut(l, ">"); !gone(to) {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, ",")
	}
	add("links", links(a), links(b))
	add("attachments", strings.Join(a.files, ","), strings.Join(b.files, ","))
	return strings.Join(d, "; ")
}

// sfResult is what the comparison found.
type sfResult struct {
	localItems, remoteItems, comments, links, equal int
	attachments                                     int
	different, duplicates, lost, conflictList       []string
	roundTrips                                      []string
	unexplained, conflicts, setAside                int
	// traced are, by laptop, the local ids of the items with a
	// duplicate, a lost write or a round trip, whose engine log the run
	// prints.
	traced map[string][]string
	// history is every write the agents made to those items, in order.
	history []string
}

func (c *sfResult) fill(r *syncfaultreport.Run) {
	r.LocalItems, r.RemoteItems, r.Comments, r.Links, r.Equal = c.localItems, c.remoteItems, c.comments, c.links, c.equal
	r.Attachments = c.attachments
	r.Different, r.Duplicates, r.Lost, r.ConflictList = c.different, c.duplicates, c.lost, c.conflictList
	r.RoundTrips = c.roundTrips
	r.Unexplained, r.Conflicts, r.SetAside = c.unexplained, c.conflicts, c.setAside
	r.History = c.history
}

// sfCopy is one laptop's copy of the workspace as the comparison reads
// it, and what its recorded conflicts and set-aside changes cover:
// key -> parts ("" for a set-aside change, which covers the item).
type sfCopy struct {
	l       *sfLocal
	items   map[string][]*sfItem
	covered map[string]map[string]bool
}

// explains says a recorded conflict or set-aside change covers a part
// of item key.
func sfExplains(covered map[string]map[string]bool, key, part string) bool {
	cv := covered[key]
	if cv[""] {
		return true
	}
	if strings.HasPrefix(part, "content") {
		part = "content"
	}
	return cv[part]
}

// sfCompare reads the remote, every laptop's copy and its recorded
// conflicts, and compares each copy with the remote entity by entity,
// then checks every acknowledged write against all of them.
func sfCompare(ctx context.Context, t *testing.T, locals []*sfLocal, rc *api.Client, ws string, writes []sfWrite, aug bool) *sfResult {
	t.Helper()
	rem, err := sfRead(ctx, rc, ws)
	if err != nil {
		t.Fatalf("read the remote: %v", err)
	}
	res := &sfResult{traced: map[string][]string{}}
	// A write is explained by a conflict recorded on any laptop; a
	// difference between a copy and the remote only by that copy's.
	anyCovered := map[string]map[string]bool{}
	var copies []sfCopy
	for _, l := range locals {
		loc, err := sfRead(ctx, l.client(), ws)
		if err != nil {
			t.Fatalf("read %s: %v", l.name, err)
		}
		conflicts, err := l.client().SyncConflicts(ctx, ws, true)
		if err != nil {
			t.Fatalf("the conflicts of %s: %v", l.name, err)
		}
		byRef := map[string]string{}
		n := 0
		for k, xs := range loc {
			n += len(xs)
			for _, x := range xs {
				byRef[x.ref] = k
			}
		}
		res.localItems = max(res.localItems, n)
		cp := sfCopy{l: l, items: loc, covered: map[string]map[string]bool{}}
		for _, c := range conflicts {
			k := sfKey(c.Title)
			if k == "" {
				k = byRef[c.Ref]
			}
			part := c.Part
			if c.Kind == "conflict" {
				res.conflicts++
			} else {
				res.setAside++
				part = ""
			}
			for _, cv := range []map[string]map[string]bool{cp.covered, anyCovered} {
				if cv[k] == nil {
					cv[k] = map[string]bool{}
				}
				cv[k][part] = true
			}
			res.conflictList = append(res.conflictList, fmt.Sprintf("%s: %s %s %s %s: local %s remote %s %s", l.name,
				c.Kind, c.State, k, c.Part, sfShort(string(c.Local)), sfShort(string(c.Remote)), c.Reason))
		}
		copies = append(copies, cp)
	}

	keys := map[string]bool{}
	for k, xs := range rem {
		keys[k] = true
		res.remoteItems += len(xs)
		if len(xs) > 1 {
			res.duplicates = append(res.duplicates, fmt.Sprintf("item %s: %d on the remote", k, len(xs)))
		}
		for _, x := range xs {
			res.comments += len(x.comments)
			res.links += len(x.links)
			for body, n := range x.commentBodys {
				if n > 1 {
					res.duplicates = append(res.duplicates, fmt.Sprintf("comment %q on %s: %d on the remote", body, k, n))
				}
			}
			res.attachments += len(x.files)
			for name, n := range x.fileCount {
				if n > 1 {
					res.duplicates = append(res.duplicates, fmt.Sprintf("attachment %q on %s: %d on the remote", name, k, n))
				}
			}
		}
	}
	trace := func(key string) {
		for _, cp := range copies {
			for _, x := range cp.items[key] {
				res.traced[cp.l.name] = append(res.traced[cp.l.name], x.id)
			}
			for _, x := range rem[key] { // the engine logs the remote's ids too
				res.traced[cp.l.name] = append(res.traced[cp.l.name], x.id)
			}
		}
	}
	for _, cp := range copies {
		for k, xs := range cp.items {
			keys[k] = true
			if len(xs) > 1 || len(rem[k]) > 1 {
				trace(k)
			}
			if len(xs) > 1 {
				res.duplicates = append(res.duplicates, fmt.Sprintf("item %s: %d on %s", k, len(xs), cp.l.name))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		equal := true
		for _, cp := range copies {
			loc := cp.items
			ls, rs := loc[k], rem[k]
			var d string
			switch {
			case len(ls) == 0:
				d = "only on the remote"
			case len(rs) == 0:
				d = "only on " + cp.l.name
			default:
				d = sfDiff(ls[0], rs[0], aug, func(key string) bool {
					return len(loc[key]) > 0 && len(rem[key]) > 0 && loc[key][0].archived && rem[key][0].archived
				})
			}
			if d == "" {
				continue
			}
			equal = false
			if len(cp.covered[k]) == 0 {
				res.unexplained++
				d += " (no conflict recorded)"
				trace(k)
			}
			if len(copies) > 1 {
				d = cp.l.name + ": " + d
			}
			res.different = append(res.different, k+": "+d)
		}
		if equal {
			res.equal++
		}
	}

	// Every acknowledged write: the last one of each part (with those
	// that overlapped it in time) must be on one side or the other, or
	// be a recorded conflict's.
	type partKey struct{ key, part string }
	byPart := map[partKey][]sfWrite{}
	for _, w := range writes {
		byPart[partKey{w.key, w.part}] = append(byPart[partKey{w.key, w.part}], w)
	}
	holds := func(x *sfItem, part, v string) bool {
		switch {
		case part == "create":
			return true
		case part == "title":
			return x.title == v
		case part == "fields.category":
			return x.category == v
		case part == "collection":
			return x.coll == v
		case part == "archived":
			return fmt.Sprint(x.archived) == v
		case part == "parent":
			return x.parent == v
		case strings.HasPrefix(part, "content:"):
			var i int
			fmt.Sscanf(part, "content:%d", &i)
			lines := strings.Split(strings.TrimSuffix(x.content, "\n"), "\n")
			return i < len(lines) && lines[i] == v
		case part == "comment":
			return x.commentBodys[v] > 0
		case part == "link":
			return slices.Contains(x.links, v)
		case part == "attachment":
			return x.fileCount[v] > 0
		}
		return false
	}
	explained := func(key, part string) bool { return sfExplains(anyCovered, key, part) }
	logged := map[string]bool{} // items whose writes are in history already
	for pk, group := range byPart {
		items := slices.Clone(rem[pk.key])
		for _, cp := range copies {
			items = append(items, cp.items[pk.key]...)
		}
		on := func(v string) bool {
			for _, x := range items {
				if holds(x, pk.part, v) {
					return true
				}
			}
			return false
		}
		if pk.part == "comment" || pk.part == "link" || pk.part == "attachment" || pk.part == "create" {
			// Each of these adds an entity of its own: every acknowledged
			// one must be there.
			for _, w := range group {
				if w.acked && (len(items) == 0 || !on(w.value)) && !explained(pk.key, pk.part) {
					res.lost = append(res.lost, fmt.Sprintf("%s %s %s %q", w.side, pk.key, pk.part, w.value))
				}
			}
			continue
		}
		if len(items) == 0 {
			continue // the item itself is missing: counted with its create
		}
		var last *sfWrite
		for i := range group {
			if group[i].acked && (last == nil || group[i].done.After(last.done)) {
				last = &group[i]
			}
		}
		if last == nil {
			continue
		}
		ok := false
		for _, w := range group {
			if (w == *last || !w.done.Before(last.sent)) && on(w.value) {
				ok = true
				break
			}
		}
		if !ok && !explained(pk.key, pk.part) && roundTrip(group, *last, on) {
			res.roundTrips = append(res.roundTrips, fmt.Sprintf("%s %s %s %q", last.side, pk.key, pk.part, last.value))
			if !logged[pk.key] {
				logged[pk.key] = true
				res.history = append(res.history, logWrites(t, writes, pk.key)...)
			}
			trace(pk.key)
			continue
		}
		if !ok && !explained(pk.key, pk.part) {
			res.lost = append(res.lost, fmt.Sprintf("%s %s %s %q", last.side, pk.key, pk.part, last.value))
			if !logged[pk.key] {
				logged[pk.key] = true
				res.history = append(res.history, logWrites(t, writes, pk.key)...)
			}
			trace(pk.key)
		}
	}
	sort.Strings(res.lost)
	sort.Strings(res.roundTrips)
	sort.Strings(res.duplicates)
	return res
}

// roundTrip says the last write of a two-valued part (archived, or the
// collection: the agents use two) undid its own side's previous write,
// and a write of the other side made before it holds the end value (on).
// A sync that compares states, as padd's three-way merge does, sees no
// change on that side unless it read the value between the two: the
// other side's change stands, with no conflict. The run reports these
// apart from lost writes.
func roundTrip(group []sfWrite, last sfWrite, on func(string) bool) bool {
	if last.part != "archived" && last.part != "collection" {
		return false
	}
	var prev *sfWrite
	for i := range group {
		w := &group[i]
		if w.acked && w.side == last.side && w.done.Before(last.sent) && (prev == nil || w.done.After(prev.done)) {
			prev = w
		}
	}
	if prev == nil || prev.value == last.value {
		return false
	}
	for _, w := range group {
		if w.acked && w.side != last.side && w.done.Before(last.sent) && on(w.value) {
			return true
		}
	}
	return false
}

func sfShort(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// logWrites logs every write the agents made to item key, in the order
// they were sent, for the reader of a lost write.
func logWrites(t *testing.T, writes []sfWrite, key string) []string {
	t.Helper()
	var out []string
	var start time.Time
	for _, w := range writes {
		if start.IsZero() || w.sent.Before(start) {
			start = w.sent
		}
	}
	var mine []sfWrite
	for _, w := range writes {
		if w.key == key {
			mine = append(mine, w)
		}
	}
	slices.SortFunc(mine, func(a, b sfWrite) int { return a.sent.Compare(b.sent) })
	for _, w := range mine {
		line := fmt.Sprintf("%s: %s %s %q sent %.3fs done %.3fs acked %v", key, w.side, w.part, w.value,
			w.sent.Sub(start).Seconds(), w.done.Sub(start).Seconds(), w.acked)
		t.Log("  " + line)
		out = append(out, line)
	}
	return out
}
