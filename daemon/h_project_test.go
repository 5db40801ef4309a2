package daemon

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// The project views, leases and reminders over HTTP: golden answers of a
// seeded workspace (go test ./daemon -run TestProjectGolden -update
// rewrites them), and the lease and reminder contracts.

func init() {
	// Other golden tests of this package may define -update as well;
	// package variables initialise before init, so this never redefines.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fixedClock is a clock that moves only when told, shared by the store
// and the server so every timestamp of a golden answer is reproducible.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fixedClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newProjectHarness is a padd API over a store on a fixed clock, with
// workspace "w". It has no search index: the views never search.
func newProjectHarness(t *testing.T) (*harness, *fixedClock) {
	t.Helper()
	clk := &fixedClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := storage.Open(filepath.Join(t.TempDir(), "padd.db"), storage.Options{Now: clk.now, Logger: log, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(store, nil, testToken, log)
	srv.now = clk.now
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
		store.Close()
	})
	h := &harness{t: t, srv: srv, ts: ts, store: store, token: testToken}
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Work", "slug": "w"}, 201, nil)
	return h, clk
}

const (
	wkClaude = "wk_3f2a0000000000000000000000000001"
	wkCursor = "wk_9c1b0000000000000000000000000002"
)

// as sends a request as an agent with a worker id.
func as(name, worker string) []string {
	return []string{"X-Pad-Agent", name, "X-Pad-Worker", worker}
}

// projectFixture seeds workspace w through the API and returns its refs
// by title.
func projectFixture(t *testing.T, h *harness, clk *fixedClock) map[string]string {
	t.Helper()
	refs := map[string]string{}
	step := func() { clk.advance(time.Minute) }
	create := func(coll, title string, body map[string]any, headers ...string) {
		t.Helper()
		if body == nil {
			body = map[string]any{}
		}
		body["title"] = title
		var it struct {
			Ref string `json:"ref"`
		}
		h.mustJSON("POST", wsPath("/collections/"+coll+"/items"), body, 201, &it, headers...)
		refs[title] = it.Ref
		step()
	}
	patch := func(title string, fields map[string]any, headers ...string) {
		t.Helper()
		h.mustJSON("PATCH", wsPath("/items/"+refs[title]), map[string]any{"fields_patch": fields}, 200, nil, headers...)
		step()
	}
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Implementer"}, 201, nil)
	create("tasks", "Stuck on flaky test", map[string]any{"fields": map[string]any{"status": "in-progress", "priority": "low"}})
	clk.advance(10 * 24 * time.Hour)
	create("plans", "Ship v1", map[string]any{"fields": map[string]any{"status": "active"}})
	create("plans", "Later", map[string]any{"fields": map[string]any{"status": "planned"}})
	create("tasks", "Wire the API", map[string]any{"fields": map[string]any{"status": "in-progress", "priority": "high"},
		"parent": refs["Ship v1"], "role": "implementer"})
	create("tasks", "Write docs", map[string]any{"fields": map[string]any{"status": "open", "priority": "critical"}, "parent": refs["Ship v1"]})
	create("tasks", "Fix crash", map[string]any{"fields": map[string]any{"status": "open", "priority": "high"}})
	create("tasks", "Root cause", map[string]any{"fields": map[string]any{"status": "in-progress", "priority": "medium"}})
	create("tasks", "Polish", map[string]any{"fields": map[string]any{"status": "open", "priority": "low"}})
	create("tasks", "Old chore", map[string]any{"fields": map[string]any{"status": "open", "priority": "medium", "due_date": "2026-11-01"}})
	create("tasks", "Done thing", map[string]any{"fields": map[string]any{"status": "open"}, "parent": refs["Ship v1"]})
	create("tasks", "Leased elsewhere", map[string]any{"fields": map[string]any{"status": "open", "priority": "critical"}})
	create("ideas", "Dark mode", nil, as("claude", wkClaude)...)
	create("docs", "Runbook", map[string]any{"fields": map[string]any{"due_date": "2026-01-01"}})
	h.mustJSON("POST", wsPath("/items/"+refs["Fix crash"]+"/links"), map[string]any{"target_id": refs["Root cause"], "link_type": "blocked-by"}, 201, nil)
	step()
	h.mustJSON("PUT", wsPath("/me/seen"), nil, 200, nil)
	step()
	patch("Done thing", map[string]any{"status": "done"}, as("claude", wkClaude)...)
	h.mustJSON("POST", wsPath("/items/"+refs["Polish"]+"/claim"), map[string]any{"ttl_seconds": 3600}, 200, nil, as("claude", wkClaude)...)
	h.mustJSON("POST", wsPath("/items/"+refs["Leased elsewhere"]+"/claim"), nil, 200, nil, as("cursor", wkCursor)...)
	h.mustJSON("POST", wsPath("/items/"+refs["Polish"]+"/comments"), map[string]any{"body": "Taking this one"}, 201, nil, as("claude", wkClaude)...)
	step()
	// Reminders: one fired and pending, one acknowledged, one armed.
	var fired, acked api.ReminderView
	h.mustJSON("POST", wsPath("/items/"+refs["Polish"]+"/reminders"), map[string]any{"remind_at": clk.now().Format(time.RFC3339)}, 201, &fired)
	h.mustJSON("POST", wsPath("/items/"+refs["Old chore"]+"/reminders"), map[string]any{"remind_at": clk.now().Format(time.RFC3339)}, 201, &acked)
	h.mustJSON("POST", wsPath("/items/"+refs["Write docs"]+"/reminders"), map[string]any{"remind_at": clk.now().Add(24 * time.Hour).Format(time.RFC3339)}, 201, nil)
	step()
	if _, _, err := h.store.FireDueReminders(clk.now(), 0); err != nil {
		t.Fatal(err)
	}
	h.mustJSON("POST", wsPath("/reminders/"+acked.ID+"/ack"), nil, 200, nil)
	step()
	return refs
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// golden compares an answer with testdata/project/name.json, ids
// replaced by their order of appearance and the JSON indented.
func golden(t *testing.T, name string, r reply) {
	t.Helper()
	ids := map[string]string{}
	body := uuidRE.ReplaceAllStringFunc(string(r.body), func(id string) string {
		if _, ok := ids[id]; !ok {
			ids[id] = fmt.Sprintf("<id-%d>", len(ids)+1)
		}
		return ids[id]
	})
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(body), "", "  "); err != nil {
		t.Fatalf("%s: answer is not JSON: %v\n%s", name, err, r.body)
	}
	got := fmt.Sprintf("%d\n%s\n", r.status, buf.Bytes())
	path := filepath.Join("testdata", "project", name+".json")
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run with -update to create it)", name, err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func TestProjectGolden(t *testing.T) {
	h, clk := newProjectHarness(t)
	refs := projectFixture(t, h, clk)
	claude := as("claude", wkClaude)
	for _, c := range []struct {
		name, method, path string
		headers            []string
	}{
		{"dashboard", "GET", "/dashboard", claude},
		{"next", "GET", "/next", claude},
		{"ready", "GET", "/ready", nil},
		{"ready-role", "GET", "/ready?role=implementer&worker_id=" + wkClaude, nil},
		{"stale", "GET", "/stale", nil},
		{"stale-overdue", "GET", "/stale?type=overdue", nil},
		{"standup", "GET", "/standup?days=1", nil},
		{"changelog", "GET", "/changelog?days=30", nil},
		{"report", "GET", "/report?window=week&tz=Europe/Berlin&include_items=true", nil},
		{"catch-up", "GET", "/catch-up", nil},
		{"catch-up-agent", "GET", "/catch-up", claude},
		{"item-leased", "GET", "/items/" + refs["Polish"], nil},
		{"reminders", "GET", "/items/" + refs["Polish"] + "/reminders", nil},
		{"claim-held", "POST", "/items/" + refs["Polish"] + "/claim", as("cursor", wkCursor)},
		{"claim-renewed", "POST", "/items/" + refs["Polish"] + "/claim", claude},
		{"release", "POST", "/items/" + refs["Polish"] + "/release", claude},
		{"release-none", "POST", "/items/" + refs["Polish"] + "/release", claude},
		{"claim-new", "POST", "/items/" + refs["Fix crash"] + "/claim", []string{"X-Pad-Agent", "codex"}},
		{"report-bad-tz", "GET", "/report?tz=Local", nil},
		{"claim-bad-worker", "POST", "/items/" + refs["Polish"] + "/claim?worker_id=wk_XYZ", nil},
		{"remind-date", "POST", "/items/" + refs["Polish"] + "/reminders", nil},
		{"seen", "PUT", "/me/seen", nil},
	} {
		var body any
		if c.name == "remind-date" {
			body = map[string]any{"remind_at": "2026-12-24"}
		}
		golden(t, c.name, h.call(c.method, wsPath(c.path), body, c.headers...))
		clk.advance(time.Minute)
	}
}

func TestLeaseRoutes(t *testing.T) {
	h, clk := newProjectHarness(t)
	refs := projectFixture(t, h, clk)
	ref := refs["Fix crash"]
	// The worker id is read from the body, then the header, then the query.
	for _, c := range []struct {
		body    any
		path    string
		headers []string
	}{
		{map[string]any{"worker_id": "wk_short"}, "", nil},
		{nil, "", []string{"X-Pad-Worker", "WK_0123456789ABCDEF0123456789ABCDEF"}},
		{nil, "?worker_id=wk_0123", nil},
	} {
		h.wantError("POST", wsPath("/items/"+ref+"/claim"+c.path), c.body, 400, model.CodeInvalidWorkerID, c.headers...)
	}
	for _, ttl := range []any{0, 86401, -5, 1.5} {
		h.wantError("POST", wsPath("/items/"+ref+"/claim"), map[string]any{"ttl_seconds": ttl}, 400, model.CodeValidation)
	}
	// The body's worker wins over the header's.
	var got api.ClaimAnswer
	h.mustJSON("POST", wsPath("/items/"+ref+"/claim"), map[string]any{"worker_id": wkClaude, "holder": "me"}, 200, &got,
		"X-Pad-Worker", wkCursor)
	if got.WorkerID != wkClaude || got.Worker != "wk_3f2a" || got.Holder != "me" ||
		!got.ExpiresAt.Equal(got.AcquiredAt.Add(model.DefaultLeaseTTL*time.Second)) {
		t.Fatalf("claim = %+v", got)
	}
	// Item reads show the holder and the short worker only.
	var item struct {
		Lease map[string]any `json:"lease"`
	}
	h.mustJSON("GET", wsPath("/items/"+ref), nil, 200, &item)
	if item.Lease["worker"] != "wk_3f2a" || item.Lease["holder"] != "me" || len(item.Lease) != 4 {
		t.Fatalf("item lease = %v", item.Lease)
	}
	e := h.wantError("POST", wsPath("/items/"+ref+"/release"), nil, 409, model.CodeLeaseHeld, "X-Pad-Worker", wkCursor)
	if e.Details["worker"] != "wk_3f2a" {
		t.Fatalf("lease_held details = %v", e.Details)
	}
	// Expiry is absence: the other worker can claim after it.
	clk.advance(model.DefaultLeaseTTL * time.Second)
	h.mustJSON("POST", wsPath("/items/"+ref+"/claim"), nil, 200, nil, "X-Pad-Worker", wkCursor)
	h.wantError("POST", wsPath("/items/TASK-999/claim"), nil, 404, model.CodeNotFound)
}

// TestLeaseRaceHTTP has two workers claim each item at the same moment:
// exactly one gets 200, the other 409 lease_held.
func TestLeaseRaceHTTP(t *testing.T) {
	h, clk := newProjectHarness(t)
	refs := projectFixture(t, h, clk)
	for _, title := range []string{"Fix crash", "Write docs", "Old chore", "Root cause"} {
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, wk := range []string{wkClaude, wkCursor} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				req, _ := http.NewRequest("POST", h.ts.URL+wsPath("/items/"+refs[title]+"/claim"), nil)
				req.Header.Set("Authorization", "Bearer "+h.token)
				req.Header.Set("X-Pad-Worker", wk)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses[i] = resp.StatusCode
			}()
		}
		close(start)
		wg.Wait()
		if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
			t.Fatalf("%s: statuses %v, want one 200 and one 409", title, statuses)
		}
	}
}

func TestReminderRoutes(t *testing.T) {
	h, clk := newProjectHarness(t)
	refs := projectFixture(t, h, clk)
	ref := refs["Fix crash"]
	h.wantError("POST", wsPath("/items/"+ref+"/reminders"), map[string]any{"remind_at": "2026-12-24"}, 400, model.CodeValidation)
	h.wantError("POST", wsPath("/items/"+ref+"/reminders"), map[string]any{}, 400, model.CodeValidation)
	var r api.ReminderView
	h.mustJSON("POST", wsPath("/items/"+ref+"/reminders"), map[string]any{"remind_at": "2026-12-24T09:00:00+01:00"}, 201, &r)
	if r.State != model.ReminderArmed || r.RemindAt != "2026-12-24T08:00:00Z" || r.ItemRef != ref {
		t.Fatalf("armed = %+v", r)
	}
	h.wantError("POST", wsPath("/reminders/"+r.ID+"/ack"), nil, 409, model.CodeConflict)
	var list []api.ReminderView
	h.mustJSON("GET", wsPath("/items/"+ref+"/reminders"), nil, 200, &list)
	if len(list) != 1 || list[0].ID != r.ID {
		t.Fatalf("list = %+v", list)
	}
	var moved api.ReminderView
	h.mustJSON("PATCH", wsPath("/reminders/"+r.ID), map[string]any{"remind_at": "2026-12-25T09:00:00Z"}, 200, &moved)
	if moved.RemindAt != "2026-12-25T09:00:00Z" || moved.State != model.ReminderArmed {
		t.Fatalf("rearm = %+v", moved)
	}
	if got := h.call("DELETE", wsPath("/reminders/"+r.ID), nil); got.status != 204 {
		t.Fatalf("unremind: %d %s", got.status, got.body)
	}
	h.wantError("DELETE", wsPath("/reminders/"+r.ID), nil, 404, model.CodeNotFound)
	h.mustJSON("GET", wsPath("/items/"+ref+"/reminders"), nil, 200, &list)
	if len(list) != 0 {
		t.Fatalf("list after unremind = %+v", list)
	}
}
