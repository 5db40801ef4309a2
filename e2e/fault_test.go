//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/faultreport"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// The fault run: kill -9 at random points of a mixed write load, restart,
// verify. CI runs three cycles; `go run ./scripts/faultrun -cycles 20`
// runs this same test with more (docs/RELIABILITY.md).
var (
	faultCycles  = flag.Int("fault.cycles", 3, "kill -9 cycles of TestFaultRun")
	faultWriters = flag.Int("fault.writers", 6, "concurrent writers of TestFaultRun")
	faultMaxKill = flag.Duration("fault.maxkill", 1500*time.Millisecond, "latest kill point after the load starts")
	faultSeed    = flag.Uint64("fault.seed", faultreport.DefaultSeed, "random seed of TestFaultRun (0: from the clock; logged)")
	faultReport  = flag.String("fault.report", "", "write TestFaultRun's results as JSON to this file")
)

// faultItem is what the load knows of one item: the revision padd last
// acknowledged, and one it sent whose answer never came (it may or may
// not have been committed when padd died).
type faultItem struct {
	id, title string
	owner     int
	acked     int
	pending   int // 0: none
}

// faultComment is an acknowledged comment.
type faultComment struct{ item, body string }

// faultModel is the load's ledger of acknowledged writes.
type faultModel struct {
	mu       sync.Mutex
	items    map[string]*faultItem
	owned    [][]*faultItem // by writer: only that writer updates them
	next     []int          // by writer: the next create number
	comments map[string]faultComment
	byItem   map[string][]string // item id -> acknowledged comment ids
	errs     []string
	// acknowledged this cycle
	creates, updates, commented int
}

func newFaultModel(writers int) *faultModel {
	return &faultModel{items: map[string]*faultItem{}, owned: make([][]*faultItem, writers), next: make([]int, writers),
		comments: map[string]faultComment{}, byItem: map[string][]string{}}
}

func (m *faultModel) fail(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.errs) < 50 {
		m.errs = append(m.errs, fmt.Sprintf(format, args...))
	}
}

func (m *faultModel) adopt(it *faultItem) {
	m.items[it.id] = it
	m.owned[it.owner] = append(m.owned[it.owner], it)
}

// TestFaultRun: writers create, update and comment concurrently (each
// answer recorded) while an event stream follows the workspace; padd is
// killed with SIGKILL at a random point, the stopped database passes
// bbolt's check and its change log is walked for gaps, then padd
// restarts and every acknowledged write must be there with its value,
// the search index must find every item, and the event stream must
// resume from its last id with no gap. At the end padd stops cleanly and
// the database is checked once more.
func TestFaultRun(t *testing.T) {
	t.Parallel()
	seed := runSeed(t, "fault.seed", *faultSeed)
	writers := *faultWriters
	t.Logf("fault run: %d cycles, %d writers, kill within %s", *faultCycles, writers, *faultMaxKill)
	rng := rand.New(rand.NewPCG(seed, 1))
	res := &faultreport.Result{Seed: seed, Writers: writers, Race: raceBuild}
	start := time.Now()
	defer func() {
		res.DurationSec = time.Since(start).Seconds()
		res.Passed = !t.Failed()
		if *faultReport != "" {
			b, _ := json.MarshalIndent(res, "", "  ")
			if err := os.WriteFile(*faultReport, b, 0o644); err != nil {
				t.Errorf("write the report: %v", err)
			}
		}
	}()

	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Faults")
	m := newFaultModel(writers)
	var sseLast int64
	sseSeen := map[int64]string{} // seq -> entity/op/item as the stream told it

	for c := 1; c <= *faultCycles; c++ {
		row := faultreport.Cycle{Cycle: c}
		m.mu.Lock()
		m.creates, m.updates, m.commented = 0, 0, 0
		m.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var wg sync.WaitGroup
		sseDone := make(chan int)
		go func() {
			n, last, err := d.followEvents(ctx, ws, sseLast, sseSeen, 0)
			if err != nil {
				m.fail("cycle %d: event stream: %v", c, err)
			}
			sseLast = last
			sseDone <- n
		}()
		for w := range writers {
			wg.Add(1)
			wrng := rand.New(rand.NewPCG(seed, uint64(c*1000+w)))
			go func() {
				defer wg.Done()
				d.faultWriter(ctx, ws, c, w, wrng, m)
			}()
		}
		kill := 20*time.Millisecond + time.Duration(rng.Int64N(int64(*faultMaxKill)))
		row.KillAfterMS = kill.Milliseconds()
		time.Sleep(kill) // the load runs for this long: the kill lands at a random point of it
		d.kill9()
		wg.Wait() // each writer sees padd gone and stops
		cancel()
		row.SSEEvents = <-sseDone
		m.mu.Lock()
		row.Creates, row.Updates, row.Comments = m.creates, m.updates, m.commented
		m.mu.Unlock()

		// The stopped database, straight after the crash.
		t0 := time.Now()
		head, _ := offlineCheck(t, home, ws, sseSeen)
		row.CheckMS = float64(time.Since(t0).Microseconds()) / 1000
		row.Head = head

		t0 = time.Now()
		d = startPadd(t, home)
		row.RestartMS = time.Since(t0).Milliseconds()
		found, total := d.searchAll(t, ws, &row)
		d.verifyFault(t, ws, m, &row)
		checkFound(t, m, found, total)
		// The stream resumes from its last id: no sync_required (padd
		// lost nothing it had told), no gap, up to the head.
		var wsRec api.Workspace
		decode(t, d.do(t, "GET", "/api/v1/workspaces/"+ws, nil), &wsRec)
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, last, err := d.followEvents(cctx, ws, sseLast, sseSeen, wsRec.Seq)
		ccancel()
		if err != nil {
			t.Errorf("cycle %d: resuming the event stream from id %d: %v", c, sseLast, err)
		}
		sseLast = last
		m.mu.Lock()
		errs := append([]string(nil), m.errs...)
		m.errs = nil
		row.Items = len(m.items)
		m.mu.Unlock()
		for _, e := range errs {
			t.Errorf("cycle %d: %s", c, e)
		}
		res.Cycles = append(res.Cycles, row)
		res.Lost += row.Lost
		t.Logf("cycle %2d: killed at %4dms after %4d creates, %4d updates, %4d comments acked; %d unacked creates and %d unacked updates had committed (%d had not); head %d, %d items; check %.1fms, restart %dms, search caught up in %dms; stream saw %d events live",
			c, row.KillAfterMS, row.Creates, row.Updates, row.Comments, row.UnackedCommitted, row.PendingCommitted, row.PendingDropped,
			row.Head, row.Items, row.CheckMS, row.RestartMS, row.SearchMS, row.SSEEvents)
		if t.Failed() {
			break
		}
	}

	d.stop()
	head, global := offlineCheck(t, home, ws, sseSeen)
	res.Head, res.GlobalHead = head, global
	st, err := storage.Open(filepath.Join(home, daemon.DBFile), storage.Options{Timeout: 5 * time.Second, Logger: quietLog})
	if err != nil {
		t.Fatalf("open the database after the run: %v", err)
	}
	defer st.Close()
	lost := 0
	for id, it := range m.items {
		v, err := views.Of(st).GetItem(ws, id)
		if err != nil || v.Title != it.title || v.Content != revContent(it.acked) {
			lost++
			if lost <= 10 {
				t.Errorf("storage after the run: item %s: %v (want %q, %q; have %+v)", id, err, it.title, revContent(it.acked), v)
			}
		}
	}
	for item, ids := range m.byItem {
		cs, err := views.Of(st).ListComments(ws, item)
		if err != nil {
			t.Errorf("storage after the run: comments of %s: %v", item, err)
			continue
		}
		have := map[string]string{}
		for _, c := range cs {
			have[c.ID] = c.Body
		}
		for _, id := range ids {
			if have[id] != m.comments[id].body {
				lost++
				t.Errorf("storage after the run: comment %s on %s lost (have %q)", id, item, have[id])
			}
		}
	}
	res.Items, res.Comments, res.Lost = len(m.items), len(m.comments), res.Lost+lost
	if t.Failed() {
		res.Errors = append(res.Errors, "see the test log")
	}
	t.Logf("fault run: %d cycles, %d items and %d comments acknowledged, workspace head %d, journal head %d, %d lost",
		len(res.Cycles), res.Items, res.Comments, res.Head, res.GlobalHead, res.Lost)
}

func revContent(rev int) string { return "rev " + strconv.Itoa(rev) }

// faultWriter writes until padd goes away: creates, updates of its own
// items (so their order is its own), and comments.
func (d *instance) faultWriter(ctx context.Context, ws string, cycle, w int, rng *rand.Rand, m *faultModel) {
	send := func(method, path string, body any) (reply, bool) {
		b, _ := json.Marshal(body)
		r, err := d.send(d.request(ctx, method, "/api/v1/workspaces/"+ws+path, b))
		if err != nil {
			if ctx.Err() == nil && !isGone(err) {
				m.fail("writer %d: %s %s: %v", w, method, path, err)
			}
			return r, false
		}
		return r, true
	}
	for ctx.Err() == nil {
		m.mu.Lock()
		own := m.owned[w]
		var it *faultItem
		if len(own) > 0 {
			it = own[rng.IntN(len(own))]
		}
		m.mu.Unlock()
		switch op := rng.Float64(); {
		case it == nil || op < 0.45:
			m.mu.Lock()
			n := m.next[w]
			m.next[w]++
			m.mu.Unlock()
			title := fmt.Sprintf("fault c%d w%d n%d %s", cycle, w, n, searchMarker)
			r, ok := send("POST", "/collections/tasks/items", map[string]any{"title": title, "content": revContent(0),
				"fields": map[string]any{"priority": "high"}})
			if !ok {
				return
			}
			var got api.Item
			if r.Status != 201 || json.Unmarshal(r.Body, &got) != nil || got.ID == "" || got.Title != title {
				m.fail("writer %d: create %q: %s", w, title, r)
				continue
			}
			m.mu.Lock()
			m.adopt(&faultItem{id: got.ID, title: title, owner: w})
			m.creates++
			m.mu.Unlock()
		case op < 0.8:
			m.mu.Lock()
			rev := it.acked + 1
			it.pending = rev
			m.mu.Unlock()
			r, ok := send("PATCH", "/items/"+it.id, map[string]any{"content": revContent(rev)})
			if !ok {
				return // it.pending stays: the restart tells whether it landed
			}
			var got api.Item
			m.mu.Lock()
			it.pending = 0
			if r.Status == 200 && json.Unmarshal(r.Body, &got) == nil && got.Content == revContent(rev) {
				it.acked = rev
				m.updates++
				m.mu.Unlock()
				continue
			}
			m.mu.Unlock()
			m.fail("writer %d: update %s to rev %d: %s", w, it.id, rev, r)
		default:
			body := fmt.Sprintf("comment c%d w%d %d", cycle, w, rng.Int64())
			r, ok := send("POST", "/items/"+it.id+"/comments", map[string]any{"body": body})
			if !ok {
				return
			}
			var got api.Comment
			if r.Status != 201 || json.Unmarshal(r.Body, &got) != nil || got.ID == "" || got.Body != body {
				m.fail("writer %d: comment on %s: %s", w, it.id, r)
				continue
			}
			m.mu.Lock()
			m.comments[got.ID] = faultComment{item: it.id, body: body}
			m.byItem[it.id] = append(m.byItem[it.id], got.ID)
			m.commented++
			m.mu.Unlock()
		}
	}
}

// followEvents reads the workspace's event stream from Last-Event-ID
// last. Every event must carry the next id (the log has no gaps and the
// stream skips nothing); each is recorded in seen, and an id seen before
// (in an earlier life of padd) must describe the same change. It returns
// when the stream ends, ctx ends, or (until > 0) the id reaches until.
func (d *instance) followEvents(ctx context.Context, ws string, last int64, seen map[int64]string, until int64) (n int, _ int64, _ error) {
	if until > 0 && last >= until {
		return 0, last, nil
	}
	req := d.request(ctx, "GET", "/api/v1/events?workspace="+ws, nil)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		if isGone(err) || ctx.Err() != nil {
			return 0, last, nil // padd died before the stream opened
		}
		return 0, last, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, last, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	br := bufio.NewReader(resp.Body)
	var id, event, data string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if until > 0 && ctx.Err() != nil {
				return n, last, fmt.Errorf("stream stopped at id %d before the head %d", last, until)
			}
			return n, last, nil // padd killed, or ctx ended
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "":
			switch {
			case event == "sync_required":
				return n, last, fmt.Errorf("padd answered sync_required to Last-Event-ID %d: events it streamed before the crash are gone (%s)", last, data)
			case id != "":
				got, perr := strconv.ParseInt(id, 10, 64)
				var ev api.Event
				if perr != nil || json.Unmarshal([]byte(data), &ev) != nil {
					return n, last, fmt.Errorf("unreadable event id %q data %s", id, data)
				}
				if got != last+1 {
					return n, last, fmt.Errorf("event id %d after %d: a gap in the stream", got, last)
				}
				sig := ev.Entity + "/" + ev.Op + "/" + ev.ItemID
				if prev, ok := seen[got]; ok && prev != sig {
					return n, last, fmt.Errorf("event %d is %s now, %s before the crash", got, sig, prev)
				}
				seen[got] = sig
				last = got
				n++
				if until > 0 && last >= until {
					return n, last, nil
				}
			}
			id, event, data = "", "", ""
		}
	}
}

// offlineCheck opens the stopped padd's database: bbolt's consistency
// check passes, the workspace's change log holds every seq 1..head, the
// all-workspaces journal every position 1..head, and every event a stream
// delivered is the change at its seq. It returns both heads.
func offlineCheck(t *testing.T, home, ws string, seen map[int64]string) (head, global int64) {
	t.Helper()
	st, err := storage.Open(filepath.Join(home, daemon.DBFile), storage.Options{Timeout: 5 * time.Second, Logger: quietLog})
	if err != nil {
		t.Fatalf("open the database after the crash: %v", err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatalf("bbolt consistency check after the crash: %v", err)
	}
	var after int64
	for {
		chs, h, err := views.Of(st).ChangesSince(t.Context(), ws, after, 0)
		if err != nil {
			t.Fatalf("read the change log after %d: %v", after, err)
		}
		head = h
		if len(chs) == 0 {
			break
		}
		for _, ch := range chs {
			if ch.Seq != after+1 {
				t.Fatalf("change log gap: seq %d follows %d (head %d)", ch.Seq, after, h)
			}
			if sig, ok := seen[ch.Seq]; ok && sig != ch.Entity+"/"+ch.Op+"/"+ch.ItemID {
				t.Errorf("seq %d is %s/%s/%s in the log, the event stream said %s", ch.Seq, ch.Entity, ch.Op, ch.ItemID, sig)
			}
			after = ch.Seq
		}
	}
	if after != head {
		t.Fatalf("change log ends at %d, head is %d", after, head)
	}
	for s := range seen {
		if s > head {
			t.Errorf("the event stream delivered seq %d, but the log ends at %d: a streamed change was lost", s, head)
		}
	}
	var g int64
	for {
		es, h, err := views.Of(st).JournalSince(t.Context(), g, 0)
		if err != nil {
			t.Fatalf("read the journal after %d: %v", g, err)
		}
		global = h
		if len(es) == 0 {
			break
		}
		for _, e := range es {
			if e.Global != g+1 {
				t.Fatalf("journal gap: %d follows %d", e.Global, g)
			}
			g = e.Global
		}
	}
	if g != global {
		t.Fatalf("journal ends at %d, head is %d", g, global)
	}
	return head, global
}

// verifyFault lists the workspace after a restart and checks every
// acknowledged item (title, revision) and comment. An update whose
// answer never came may have landed or not; either is accepted and the
// ledger follows what is there. Items created without an answer that
// did land are adopted, so later cycles check them too.
func (d *instance) verifyFault(t *testing.T, ws string, m *faultModel, row *faultreport.Cycle) {
	t.Helper()
	listed := map[string]api.Item{}
	for offset := 0; ; {
		var page []api.Item
		r := d.do(t, "GET", "/api/v1/workspaces/"+ws+"/items?include_archived=true&limit=1000&offset="+strconv.Itoa(offset), nil)
		wantStatus(t, r, 200)
		decode(t, r, &page)
		for _, it := range page {
			listed[it.ID] = it
		}
		if r.Header.Get("X-Pad-Has-More") != "true" || len(page) == 0 {
			break
		}
		offset, _ = strconv.Atoi(r.Header.Get("X-Pad-Next-Offset"))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, it := range m.items {
		got, ok := listed[id]
		if !ok {
			row.Lost++
			t.Errorf("acknowledged item %s (%q) is gone after the restart", id, it.title)
			continue
		}
		switch {
		case got.Title != it.title:
			row.Lost++
			t.Errorf("item %s has title %q, acknowledged %q", id, got.Title, it.title)
		case got.Content == revContent(it.acked):
			if it.pending != 0 {
				row.PendingDropped++
			}
		case it.pending != 0 && got.Content == revContent(it.pending):
			row.PendingCommitted++
			it.acked = it.pending
		default:
			row.Lost++
			t.Errorf("item %s has content %q; acknowledged %q (unanswered: %d)", id, got.Content, revContent(it.acked), it.pending)
		}
		it.pending = 0
	}
	for id, got := range listed {
		if _, ok := m.items[id]; ok {
			continue
		}
		var c, w, n int
		var marker string
		if _, err := fmt.Sscanf(got.Title, "fault c%d w%d n%d %s", &c, &w, &n, &marker); err != nil || w < 0 || w >= len(m.owned) ||
			got.Content != revContent(0) {
			t.Errorf("unknown item %s %q (%q) in the workspace", id, got.Title, got.Content)
			continue
		}
		row.UnackedCommitted++ // created, answer lost with padd: fine
		m.adopt(&faultItem{id: id, title: got.Title, owner: w})
	}
	for item, ids := range m.byItem {
		var cs []api.Comment
		r := d.do(t, "GET", "/api/v1/workspaces/"+ws+"/items/"+item+"/comments", nil)
		wantStatus(t, r, 200)
		decode(t, r, &cs)
		have := map[string]string{}
		for _, c := range cs {
			have[c.ID] = c.Body
		}
		for _, id := range ids {
			if want := m.comments[id].body; have[id] != want {
				row.Lost++
				t.Errorf("acknowledged comment %s on %s is gone or changed: %q, want %q", id, item, have[id], want)
			}
		}
	}
}

// searchAll pages through a search for the marker every item carries,
// straight after a restart: the search waits for the index to catch up
// with the log (a 503 while it rebuilds is retried, within a bound). It
// returns the ids found and the total the index reports.
func (d *instance) searchAll(t *testing.T, ws string, row *faultreport.Cycle) (map[string]bool, int64) {
	t.Helper()
	const bound = 60 * time.Second
	from := time.Now()
	found := map[string]bool{}
	var total int64 = -1
	for offset := 0; ; {
		path := fmt.Sprintf("/api/v1/search?q=%s&workspace=%s&sort=created_at&order=asc&limit=200&offset=%d&facets=false", searchMarker, ws, offset)
		r := d.do(t, "GET", path, nil)
		if r.Status == 503 && time.Since(from) < bound {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if r.Status != 200 {
			t.Fatalf("search %s: %s (index not caught up within %s?)", path, r, bound)
		}
		var res struct {
			Results []struct {
				Item api.Item `json:"item"`
			} `json:"results"`
			Total json.Number `json:"total"`
		}
		decode(t, r, &res)
		if offset == 0 {
			row.SearchMS = time.Since(from).Milliseconds()
			total, _ = res.Total.Int64()
		}
		for _, h := range res.Results {
			found[h.Item.ID] = true
		}
		if len(res.Results) == 0 || int64(offset+len(res.Results)) >= total {
			break
		}
		offset += len(res.Results)
	}
	return found, total
}

// checkFound: search found every item of the ledger (acknowledged, or
// committed without an answer) and nothing else.
func checkFound(t *testing.T, m *faultModel, found map[string]bool, total int64) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var missing []string
	for id := range m.items {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("search does not find %d of %d items after the restart (index behind the log): %v", len(missing), len(m.items), missing[:min(5, len(missing))])
	}
	if total != int64(len(m.items)) || len(found) != len(m.items) {
		t.Errorf("search total %d (%d distinct), the workspace holds %d items", total, len(found), len(m.items))
	}
}
