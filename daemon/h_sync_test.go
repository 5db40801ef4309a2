package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
)

// fakeSyncEngine is a test double of the sync engine (syncer.Manager):
// it keeps linked workspaces' statuses and conflicts in memory, records
// what the routes asked of it, and publishes the events a test tells it
// to. The routes, the HTTP server and the client around it are real.
type fakeSyncEngine struct {
	mu        sync.Mutex
	statuses  map[string]api.SyncStatus
	conflicts map[string][]api.SyncConflict
	calls     []string
	clone     api.SyncClone
	link      api.SyncLink
	resolve   api.SyncResolve
	// fail, when set, is what Clone and Link answer; panicWith makes
	// them panic with that value instead.
	fail      error
	panicWith string
	subs      map[int]chan api.SyncEvent
	nextSub   int
	// verifyFail, when set, is what Verify answers after its progress;
	// verifyBlock makes it wait for its context's end, and verifyEnded
	// hears that end.
	verifyFail  error
	verifyBlock bool
	verifyEnded chan error
}

func newFakeSyncEngine() *fakeSyncEngine {
	return &fakeSyncEngine{statuses: map[string]api.SyncStatus{}, conflicts: map[string][]api.SyncConflict{},
		subs: map[int]chan api.SyncEvent{}}
}

func (f *fakeSyncEngine) record(call string) {
	f.calls = append(f.calls, call)
}

func (f *fakeSyncEngine) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func fakeNotLinked(ws string) error {
	return model.NotFound("workspace %s is not linked", ws).With("scope", "sync_link")
}

func (f *fakeSyncEngine) Status(ws string) ([]api.SyncStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("status " + ws)
	if ws != "" {
		if st, ok := f.statuses[ws]; ok {
			return []api.SyncStatus{st}, nil
		}
		return nil, nil
	}
	var out []api.SyncStatus
	for _, st := range f.statuses {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b api.SyncStatus) int { return strings.Compare(a.Workspace, b.Workspace) })
	return out, nil
}

func (f *fakeSyncEngine) Clone(ctx context.Context, in api.SyncClone) (*api.SyncStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("clone")
	f.clone = in
	if f.panicWith != "" {
		panic(f.panicWith)
	}
	if f.fail != nil {
		return nil, f.fail
	}
	slug := in.As
	if slug == "" {
		slug = in.RemoteWorkspace
	}
	st := api.SyncStatus{Workspace: slug, URL: in.URL, RemoteWorkspace: in.RemoteWorkspace, State: api.SyncPulling, Cloning: true}
	f.statuses[slug] = st
	return &st, nil
}

func (f *fakeSyncEngine) Link(ctx context.Context, in api.SyncLink) (*api.SyncStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("link")
	f.link = in
	if f.panicWith != "" {
		panic(f.panicWith)
	}
	if f.fail != nil {
		return nil, f.fail
	}
	st := api.SyncStatus{Workspace: in.Workspace, URL: in.URL, RemoteWorkspace: in.RemoteWorkspace, State: api.SyncPushing, Pending: 3}
	f.statuses[in.Workspace] = st
	return &st, nil
}

func (f *fakeSyncEngine) Unlink(ws string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("unlink " + ws)
	if _, ok := f.statuses[ws]; !ok {
		return fakeNotLinked(ws)
	}
	delete(f.statuses, ws)
	return nil
}

// setState is now, pause and resume: the workspace's status in state.
func (f *fakeSyncEngine) setState(call, ws, state string) (*api.SyncStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(call + " " + ws)
	st, ok := f.statuses[ws]
	if !ok {
		return nil, fakeNotLinked(ws)
	}
	st.State = state
	f.statuses[ws] = st
	return &st, nil
}

func (f *fakeSyncEngine) Now(ws string) (*api.SyncStatus, error) {
	return f.setState("now", ws, api.SyncSynced)
}
func (f *fakeSyncEngine) Pause(ws string) (*api.SyncStatus, error) {
	return f.setState("pause", ws, api.SyncPaused)
}
func (f *fakeSyncEngine) Resume(ws string) (*api.SyncStatus, error) {
	return f.setState("resume", ws, api.SyncSynced)
}

func (f *fakeSyncEngine) Conflicts(ws string, all bool) ([]api.SyncConflict, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(fmt.Sprintf("conflicts %s all=%v", ws, all))
	if _, ok := f.statuses[ws]; !ok {
		return nil, fakeNotLinked(ws)
	}
	var out []api.SyncConflict
	for _, c := range f.conflicts[ws] {
		if all || c.State == "open" {
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *fakeSyncEngine) Resolve(ctx context.Context, ws string, in api.SyncResolve) ([]api.SyncConflict, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("resolve " + ws)
	f.resolve = in
	var settled []api.SyncConflict
	for i, c := range f.conflicts[ws] {
		if c.Ref == in.Ref && c.State == "open" && (in.ID == 0 || in.ID == c.ID) {
			f.conflicts[ws][i].State = "resolved"
			settled = append(settled, f.conflicts[ws][i])
		}
	}
	if len(settled) == 0 {
		return nil, model.NotFound("no open conflict of %s", in.Ref)
	}
	return settled, nil
}

// Verify reports progress 0, 1 and 2 of 2, then answers a difference
// whose content holds a line break and a long line.
func (f *fakeSyncEngine) Verify(ctx context.Context, ws string, progress func(done, total int)) (*api.SyncVerify, error) {
	f.mu.Lock()
	f.record("verify " + ws)
	_, linked := f.statuses[ws]
	fail, block, ended := f.verifyFail, f.verifyBlock, f.verifyEnded
	f.mu.Unlock()
	if !linked {
		return nil, fakeNotLinked(ws)
	}
	if progress == nil {
		progress = func(int, int) {}
	}
	for i := range 3 {
		progress(i, 2)
	}
	if block {
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}
	if fail != nil {
		return nil, fail
	}
	long := strings.Repeat("x", 100_000)
	return &api.SyncVerify{Workspace: ws, URL: "https://pad.example.com", RemoteWorkspace: "team", Checked: api.SyncVerifyCounts{Items: 2},
		Differences: []api.SyncDifference{{Kind: api.VerifyItem, Ref: "TASK-1", Part: "content", Local: json.RawMessage(`"a\nb"`),
			Remote: json.RawMessage(`"` + long + `"`), Words: "TASK-1: the content differs"}}, Conflicts: []api.SyncDifference{}}, nil
}

func (f *fakeSyncEngine) Subscribe() (<-chan api.SyncEvent, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.nextSub
	f.nextSub++
	ch := make(chan api.SyncEvent, 16)
	f.subs[id] = ch
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if c, ok := f.subs[id]; ok {
			delete(f.subs, id)
			close(c)
		}
	}
}

// publish hands ev to every subscriber.
func (f *fakeSyncEngine) publish(ev api.SyncEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		ch <- ev
	}
}

// endSubscriptions closes every subscriber's channel, as an engine that
// stops does.
func (f *fakeSyncEngine) endSubscriptions() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, ch := range f.subs {
		delete(f.subs, id)
		close(ch)
	}
}

func (f *fakeSyncEngine) subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// syncHarness is the harness with a fake sync engine holding workspace
// w linked, with one open conflict and one settled.
func syncHarness(t *testing.T) (*harness, *fakeSyncEngine) {
	t.Helper()
	h := newHarness(t)
	f := newFakeSyncEngine()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	f.statuses["w"] = api.SyncStatus{Workspace: "w", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncSynced,
		LastExchange: &at, RemoteVersion: "1.4.0", Capabilities: []string{"item_patch"}}
	f.conflicts["w"] = []api.SyncConflict{
		{ID: 1, Kind: "conflict", Ref: "TASK-1", Title: "One", Part: "title", Base: json.RawMessage(`"a"`), Local: json.RawMessage(`"b"`),
			Remote: json.RawMessage(`"c"`), LocalVersion: 4, At: at, State: "open"},
		{ID: 2, Kind: "set_aside", Ref: "TASK-2", Reason: "the remote refused it", At: at, State: "resolved"},
	}
	h.srv.SetSync(f)
	return h, f
}

func (h *harness) client() *api.Client { return api.NewClient(h.ts.URL, h.token) }

func TestSyncRoutesWithoutEngine(t *testing.T) {
	h := newHarness(t)
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/v1/padd/sync"}, {"GET", "/api/v1/padd/sync/w"}, {"GET", syncEventsPath},
		{"POST", "/api/v1/padd/sync/clone"}, {"POST", "/api/v1/padd/sync/link"}, {"DELETE", "/api/v1/padd/sync/w"},
		{"POST", "/api/v1/padd/sync/w/now"}, {"POST", "/api/v1/padd/sync/w/pause"}, {"POST", "/api/v1/padd/sync/w/resume"},
		{"GET", "/api/v1/padd/sync/w/conflicts"}, {"POST", "/api/v1/padd/sync/w/resolve"}, {"GET", "/api/v1/padd/sync/w/verify"},
	} {
		e := h.wantError(rt.method, rt.path, nil, 503, api.CodeUnavailable)
		if e.Details["reason"] != "sync_unavailable" {
			t.Errorf("%s %s: details %v, want reason sync_unavailable", rt.method, rt.path, e.Details)
		}
	}
	// The token is still required first.
	h.token = "wrong"
	h.wantError("GET", "/api/v1/padd/sync", nil, 401, api.CodeUnauthorized)
}

func TestSyncRoutesThroughTheClient(t *testing.T) {
	h, f := syncHarness(t)
	ctx := context.Background()
	c := h.client()

	list, err := c.SyncStatuses(ctx)
	if err != nil || len(list) != 1 || list[0].Workspace != "w" || list[0].RemoteVersion != "1.4.0" || list[0].LastExchange == nil {
		t.Fatalf("statuses = %+v, %v", list, err)
	}
	st, err := c.SyncStatus(ctx, "w")
	if err != nil || st.State != api.SyncSynced || st.RemoteWorkspace != "team" {
		t.Fatalf("status w = %+v, %v", st, err)
	}
	if _, err := c.SyncStatus(ctx, "other"); !api.IsNotLinked(err) {
		t.Fatalf("status of an unlinked workspace: %v, want not_found scope sync_link", err)
	}

	// Clone answers 202 with the new link's status.
	r := h.mustJSON("POST", "/api/v1/padd/sync/clone", map[string]any{"url": " https://pad.example.com/ ", "remote_workspace": "docs",
		"as": "team-docs", "token": "pad_abc"}, 202, &st)
	if st.Workspace != "team-docs" || !st.Cloning || strings.Contains(string(r.body), "pad_abc") {
		t.Fatalf("clone answered %s", r.body)
	}
	if want := (api.SyncClone{URL: "https://pad.example.com/", RemoteWorkspace: "docs", As: "team-docs", SyncToken: api.SyncToken{Token: "pad_abc"}}); f.clone != want {
		t.Errorf("engine got clone %+v, want %+v", f.clone, want)
	}
	st, err = c.SyncClone(ctx, api.SyncClone{URL: "http://127.0.0.1:9", RemoteWorkspace: "ops"})
	if err != nil || st.Workspace != "ops" {
		t.Fatalf("clone over loopback http = %+v, %v", st, err)
	}
	st, err = c.SyncLink(ctx, api.SyncLink{Workspace: "w", URL: "http://pad.lan", RemoteWorkspace: "empty",
		SyncToken: api.SyncToken{Token: "pad_x", InsecureHTTP: true}})
	if err != nil || st.State != api.SyncPushing || st.Pending != 3 || !f.link.InsecureHTTP {
		t.Fatalf("link = %+v, %v (engine got %+v)", st, err, f.link)
	}

	for _, step := range []struct {
		do    func(context.Context, string) (*api.SyncStatus, error)
		state string
	}{{c.SyncPause, api.SyncPaused}, {c.SyncResume, api.SyncSynced}, {c.SyncPause, api.SyncPaused}, {c.SyncNow, api.SyncSynced}} {
		if st, err := step.do(ctx, "w"); err != nil || st.State != step.state {
			t.Fatalf("action: %+v, %v; want state %s", st, err, step.state)
		}
	}
	if _, err := c.SyncNow(ctx, "nope"); !api.IsNotFound(err) {
		t.Errorf("now on an unlinked workspace: %v", err)
	}

	open, err := c.SyncConflicts(ctx, "w", false)
	if err != nil || len(open) != 1 || open[0].ID != 1 || string(open[0].Local) != `"b"` || open[0].LocalVersion != 4 {
		t.Fatalf("open conflicts = %+v, %v", open, err)
	}
	all, err := c.SyncConflicts(ctx, "w", true)
	if err != nil || len(all) != 2 || all[1].Reason != "the remote refused it" {
		t.Fatalf("all conflicts = %+v, %v", all, err)
	}
	var none api.SyncConflicts
	if r := h.mustJSON("GET", "/api/v1/padd/sync/ops/conflicts", nil, 200, &none); !strings.Contains(string(r.body), `"conflicts":[]`) {
		t.Errorf("no conflicts answered %s, want an empty list", r.body)
	}

	settled, err := c.SyncResolve(ctx, "w", api.SyncResolve{Ref: "TASK-1", Keep: api.KeepMerged, Value: json.RawMessage(`"b and c"`)})
	if err != nil || len(settled) != 1 || settled[0].State != "resolved" || string(f.resolve.Value) != `"b and c"` {
		t.Fatalf("resolve = %+v, %v (engine got %+v)", settled, err, f.resolve)
	}
	if _, err := c.SyncResolve(ctx, "w", api.SyncResolve{Ref: "TASK-1", Keep: api.KeepLocal}); !api.IsNotFound(err) {
		t.Errorf("resolving a settled conflict again: %v", err)
	}

	r = h.call("DELETE", "/api/v1/padd/sync/ops", nil)
	if r.status != 204 || len(r.body) != 0 {
		t.Fatalf("unlink: %d %s", r.status, r.body)
	}
	if err := c.SyncUnlink(ctx, "ops"); !api.IsNotFound(err) {
		t.Errorf("unlinking twice: %v", err)
	}
	if err := c.SyncUnlink(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if list, err := c.SyncStatuses(ctx); err != nil || len(list) != 1 || list[0].Workspace != "team-docs" {
		t.Errorf("statuses after unlinks = %+v, %v", list, err)
	}
	f.unlinkAll()
	if r := h.mustJSON("GET", "/api/v1/padd/sync", nil, 200, nil); string(r.body) != "{\"workspaces\":[]}\n" {
		t.Errorf("no links answered %s", r.body)
	}
}

// A verify is answered as JSON, or followed as a stream with its
// progress (the answer whole, however long its values); a refusal during
// it comes through coded, and a client that leaves ends it.
func TestSyncVerifyRoute(t *testing.T) {
	h, f := syncHarness(t)
	ctx := context.Background()
	c := h.client()
	var plain api.SyncVerify
	h.mustJSON("GET", "/api/v1/padd/sync/w/verify", nil, 200, &plain)
	if len(plain.Differences) != 1 || len(plain.Differences[0].Remote) != 100_002 {
		t.Fatalf("the JSON answer: %+v", plain.Checked)
	}
	var seen []int
	v, err := c.SyncVerify(ctx, "w", func(done, total int) { seen = append(seen, done, total) })
	if err != nil || len(v.Differences) != 1 || string(v.Differences[0].Local) != `"a\nb"` || len(v.Differences[0].Remote) != 100_002 {
		t.Fatalf("the followed verify = %+v, %v", v, err)
	}
	if len(seen) == 0 || seen[len(seen)-2] != 2 || seen[len(seen)-1] != 2 {
		t.Errorf("progress heard %v, want it to end with 2 of 2", seen)
	}
	if _, err := c.SyncVerify(ctx, "nope", nil); !api.IsNotLinked(err) {
		t.Errorf("verify of an unlinked workspace: %v", err)
	}
	f.mu.Lock()
	f.verifyFail = model.Invalid("https://pad.example.com could not be reached").With("reason", "unreachable")
	f.mu.Unlock()
	var ae *api.Error
	if _, err := c.SyncVerify(ctx, "w", nil); !errors.As(err, &ae) || ae.Code != api.CodeValidation || ae.Details["reason"] != "unreachable" || ae.Status != api.StatusOf(api.CodeValidation) {
		t.Errorf("a verify that failed: %#v", err)
	}
	f.mu.Lock()
	f.verifyFail, f.verifyBlock, f.verifyEnded = nil, true, make(chan error, 1)
	f.mu.Unlock()
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		_, _ = c.SyncVerify(cctx, "w", func(done, total int) {
			if done == total {
				cancel()
			}
		})
	}()
	if err := testwait.Recv(t, "the verify to end with its client", f.verifyEnded); !errors.Is(err, context.Canceled) {
		t.Errorf("the verify ended with %v", err)
	}
}

func (f *fakeSyncEngine) unlinkAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.statuses)
}

// A workspace named "events" is read from the list: its own GET path is
// the stream's.
func TestSyncStatusOfAWorkspaceNamedEvents(t *testing.T) {
	h, f := syncHarness(t)
	f.statuses["events"] = api.SyncStatus{Workspace: "events", State: api.SyncOffline}
	st, err := h.client().SyncStatus(context.Background(), "events")
	if err != nil || st.State != api.SyncOffline {
		t.Fatalf("status of events = %+v, %v", st, err)
	}
	delete(f.statuses, "events")
	if _, err := h.client().SyncStatus(context.Background(), "events"); !api.IsNotLinked(err) {
		t.Fatalf("unlinked events: %v", err)
	}
}

func TestSyncBadInputs(t *testing.T) {
	h, f := syncHarness(t)
	clone := func(kv ...any) map[string]any {
		b := map[string]any{"url": "https://pad.example.com", "remote_workspace": "team", "token": "pad_ok"}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	link := func(kv ...any) map[string]any {
		b := clone(kv...)
		b["workspace"] = "w"
		if v, ok := b["workspace!"]; ok {
			b["workspace"] = v
			delete(b, "workspace!")
		}
		return b
	}
	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		code, field        string
	}{
		{"clone no url", "POST", "/api/v1/padd/sync/clone", clone("url", ""), 400, api.CodeBadRequest, "url"},
		{"clone ftp", "POST", "/api/v1/padd/sync/clone", clone("url", "ftp://pad.example.com"), 400, api.CodeBadRequest, "url"},
		{"clone not a url", "POST", "/api/v1/padd/sync/clone", clone("url", "https://[::1"), 400, api.CodeBadRequest, "url"},
		{"clone no host", "POST", "/api/v1/padd/sync/clone", clone("url", "https:///x"), 400, api.CodeBadRequest, "url"},
		{"clone credentials", "POST", "/api/v1/padd/sync/clone", clone("url", "https://me:pw@pad.example.com"), 400, api.CodeBadRequest, "url"},
		{"clone query", "POST", "/api/v1/padd/sync/clone", clone("url", "https://pad.example.com/?x=1"), 400, api.CodeBadRequest, "url"},
		{"clone plain http", "POST", "/api/v1/padd/sync/clone", clone("url", "http://pad.example.com"), 400, api.CodeBadRequest, "url"},
		{"clone long url", "POST", "/api/v1/padd/sync/clone", clone("url", "https://pad.example.com/"+strings.Repeat("a", maxSyncURL)), 400, api.CodeBadRequest, "url"},
		{"clone no remote", "POST", "/api/v1/padd/sync/clone", clone("remote_workspace", " "), 400, api.CodeBadRequest, "remote_workspace"},
		{"clone remote slash", "POST", "/api/v1/padd/sync/clone", clone("remote_workspace", "a/b"), 400, api.CodeBadRequest, "remote_workspace"},
		{"clone remote long", "POST", "/api/v1/padd/sync/clone", clone("remote_workspace", strings.Repeat("a", 101)), 400, api.CodeValidation, "remote_workspace"},
		{"clone as not a slug", "POST", "/api/v1/padd/sync/clone", clone("as", "Team Docs"), 400, api.CodeBadRequest, "as"},
		{"clone token space", "POST", "/api/v1/padd/sync/clone", clone("token", "pad_a b"), 400, api.CodeBadRequest, "token"},
		{"clone token newline", "POST", "/api/v1/padd/sync/clone", clone("token", "pad_ab\n"), 400, api.CodeBadRequest, "token"},
		{"clone token long", "POST", "/api/v1/padd/sync/clone", clone("token", strings.Repeat("t", maxSyncToken+1)), 400, api.CodeBadRequest, "token"},
		{"clone padd's own token", "POST", "/api/v1/padd/sync/clone", clone("token", h.token), 400, api.CodeBadRequest, "token"},
		{"link padd's own token", "POST", "/api/v1/padd/sync/link", link("token", h.token), 400, api.CodeBadRequest, "token"},
		{"clone token number", "POST", "/api/v1/padd/sync/clone", clone("token", 12), 400, api.CodeBadRequest, ""},
		{"clone not json", "POST", "/api/v1/padd/sync/clone", "{", 400, api.CodeBadRequest, ""},
		{"clone too large", "POST", "/api/v1/padd/sync/clone", clone("as", strings.Repeat("a", MaxBody)), 413, api.CodeTooLarge, ""},
		{"link no workspace", "POST", "/api/v1/padd/sync/link", link("workspace!", ""), 400, api.CodeBadRequest, "workspace"},
		{"link plain http", "POST", "/api/v1/padd/sync/link", link("url", "http://10.0.0.1"), 400, api.CodeBadRequest, "url"},
		{"resolve no ref", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"keep": "local"}, 400, api.CodeBadRequest, "ref"},
		{"resolve long ref", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": strings.Repeat("r", maxSyncRef+1), "keep": "local"}, 400, api.CodeBadRequest, "ref"},
		{"resolve bad keep", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": "TASK-1", "keep": "mine"}, 400, api.CodeBadRequest, "keep"},
		{"resolve no keep", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": "TASK-1"}, 400, api.CodeBadRequest, "keep"},
		{"resolve negative id", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": "TASK-1", "id": -1, "keep": "local"}, 400, api.CodeBadRequest, "id"},
		{"resolve value with local", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": "TASK-1", "keep": "local", "value": "x"}, 400, api.CodeBadRequest, "value"},
		{"resolve merged no value", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": "TASK-1", "keep": "merged"}, 400, api.CodeBadRequest, "value"},
		{"resolve merged null", "POST", "/api/v1/padd/sync/w/resolve", map[string]any{"ref": "TASK-1", "keep": "merged", "value": nil}, 400, api.CodeBadRequest, "value"},
		{"conflicts all=maybe", "GET", "/api/v1/padd/sync/w/conflicts?all=maybe", nil, 400, api.CodeBadRequest, ""},
		{"unknown action", "POST", "/api/v1/padd/sync/w/explode", nil, 404, api.CodeNotFound, ""},
		{"wrong method", "PUT", "/api/v1/padd/sync/w", nil, 405, api.CodeMethodNotAllowed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := h.wantError(c.method, c.path, c.body, c.status, c.code)
			if c.field != "" && e.Details["field"] != c.field {
				t.Errorf("details %v, want field %q", e.Details, c.field)
			}
			if strings.Contains(e.Message, "pad_ok") || strings.Contains(e.Message, "pad_a b") || strings.Contains(e.Message, "me:pw") || strings.Contains(e.Message, h.token) {
				t.Errorf("the refusal echoes a secret: %s", e.Message)
			}
		})
	}
	if got := f.callLog(); slices.ContainsFunc(got, func(c string) bool { return c == "clone" || c == "link" || strings.HasPrefix(c, "resolve") }) {
		t.Errorf("the engine was asked despite bad input: %v", got)
	}
	// An "as" slug with a canonical form says it.
	e := h.wantError("POST", "/api/v1/padd/sync/clone", clone("as", "Team_Docs"), 400, api.CodeBadRequest)
	if e.Details["suggestion"] != "team-docs" {
		t.Errorf("details %v, want the suggestion team-docs", e.Details)
	}
	// insecure_http allows plain http to another machine.
	h.mustJSON("POST", "/api/v1/padd/sync/clone", clone("url", "http://pad.lan:8080", "insecure_http", true), 202, nil)
}

// The remote token never comes back in an answer or goes to a log, even
// when the engine puts it in an error or a panic.
func TestSyncTokenNeverEchoedOrLogged(t *testing.T) {
	h, f := syncHarness(t)
	const token = "pad_SECRET_0123456789"
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logs, &logMu}, nil))
	h.srv.log = logger
	prev := slog.Default()
	slog.SetDefault(logger)
	t.Cleanup(func() { slog.SetDefault(prev) })

	body := map[string]any{"url": "https://pad.example.com", "remote_workspace": "team", "workspace": "w", "token": token}
	for _, c := range []struct {
		name      string
		fail      error
		panicWith string
		status    int
	}{
		{"coded", model.Invalid("the server refused token %s", token).With("token", token).With("nested", map[string]any{"t": token}), "", 400},
		{"uncoded", fmt.Errorf("dial: token=%s: refused", token), "", 500},
		{"api", api.Errorf(api.CodeUnauthorized, "refused %s", token).With("t", token), "", 401},
		{"panic", nil, "engine blew up holding " + token, 500},
	} {
		for _, path := range []string{"/api/v1/padd/sync/clone", "/api/v1/padd/sync/link"} {
			f.mu.Lock()
			f.fail, f.panicWith = c.fail, c.panicWith
			f.mu.Unlock()
			r := h.call("POST", path, body)
			if r.status != c.status {
				t.Errorf("%s %s: status %d, want %d: %s", c.name, path, r.status, c.status, r.body)
			}
			if strings.Contains(string(r.body), token) || c.panicWith == "" && !strings.Contains(string(r.body), redactedToken) {
				t.Errorf("%s %s: answer %s, want the token redacted", c.name, path, r.body)
			}
		}
	}
	logMu.Lock()
	defer logMu.Unlock()
	if strings.Contains(logs.String(), token) {
		t.Errorf("the log holds the token:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "handler panicked") || !strings.Contains(logs.String(), "request failed") {
		t.Errorf("the log lacks the panic and the failure (the test would pass for nothing):\n%s", logs.String())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestSyncEventsStream(t *testing.T) {
	h, f := syncHarness(t)
	f.statuses["x"] = api.SyncStatus{Workspace: "x", State: api.SyncOffline}
	s := h.openSSE(syncEventsPath)
	if got := s.connected(); got["workspaces"] != float64(2) {
		t.Errorf("connected %v, want 2 workspaces", got)
	}
	for _, want := range []string{"w", "x"} {
		fr := s.nextEvent()
		var st api.SyncStatus
		if fr.event != api.EventSyncStatus || fr.hasID || json.Unmarshal([]byte(fr.data), &st) != nil || st.Workspace != want {
			t.Fatalf("frame %+v, want the status of %s", fr, want)
		}
	}
	testwait.Until(t, "the stream's subscription", func() bool { return f.subscribers() == 1 })
	f.publish(api.SyncEvent{Name: api.EventSyncStatus, Status: &api.SyncStatus{Workspace: "w", State: api.SyncPushing, Pending: 2}})
	f.publish(api.SyncEvent{Name: "unknown"}) // not written
	f.publish(api.SyncEvent{Name: api.EventSyncConflict, Conflict: &api.SyncConflict{ID: 9, Kind: "conflict", Ref: "TASK-3", State: "open"}})
	fr := s.nextEvent()
	var st api.SyncStatus
	if fr.event != api.EventSyncStatus || json.Unmarshal([]byte(fr.data), &st) != nil || st.State != api.SyncPushing || st.Pending != 2 {
		t.Fatalf("frame %+v, want the pushing status", fr)
	}
	fr = s.nextEvent()
	var c api.SyncConflict
	if fr.event != api.EventSyncConflict || json.Unmarshal([]byte(fr.data), &c) != nil || c.ID != 9 || c.Ref != "TASK-3" {
		t.Fatalf("frame %+v, want the conflict", fr)
	}
	// The client leaving ends the subscription.
	s.close()
	testwait.Until(t, "the subscription to end with the client", func() bool { return f.subscribers() == 0 })

	// The engine ending the subscription ends the stream.
	s = h.openSSE(syncEventsPath)
	s.connected()
	testwait.Until(t, "the second subscription", func() bool { return f.subscribers() == 1 })
	f.endSubscriptions()
	for {
		fr, ok := <-s.frames
		if !ok {
			break
		}
		if fr.event != api.EventSyncStatus && fr.comment == "" {
			t.Fatalf("frame %+v before the end", fr)
		}
	}
}

func TestSyncEventsKeepaliveShutdownAndAdmission(t *testing.T) {
	h, f := syncHarness(t)
	h.srv.limits.SSEKeepalive = 50 * time.Millisecond
	h.srv.limits.SSEMaxTotal = 1
	s := h.openSSE(syncEventsPath)
	s.connected()
	s.nextEvent() // w's status
	for range 2 {
		if fr := s.next(); fr.comment != "keepalive" {
			t.Fatalf("frame %+v, want a keepalive", fr)
		}
	}
	// The one slot is taken.
	r := h.call("GET", syncEventsPath, nil)
	if r.status != 429 || r.header.Get("Retry-After") != "5" || !strings.Contains(string(r.body), api.CodeSSELimitExceeded) {
		t.Errorf("second stream: %d %v %s", r.status, r.header, r.body)
	}
	h.srv.Close()
	if fr := s.nextEvent(); fr.event != "shutdown" {
		t.Errorf("frame %+v, want shutdown", fr)
	}
	s.ended()
	testwait.Until(t, "the subscription to end at shutdown", func() bool { return f.subscribers() == 0 })
}

func TestSyncEventsThroughTheClient(t *testing.T) {
	h, f := syncHarness(t)
	ctx := context.Background()
	got := make(chan api.SyncEvent, 8)
	stop := errors.New("enough")
	done := make(chan error, 1)
	go func() {
		done <- h.client().SyncEvents(ctx, func(ev api.SyncEvent) error {
			got <- ev
			if ev.Conflict != nil {
				return stop
			}
			return nil
		})
	}()
	if ev := testwait.Recv(t, "the first status", got); ev.Name != api.EventSyncStatus || ev.Status == nil || ev.Status.Workspace != "w" {
		t.Fatalf("first event %+v", ev)
	}
	testwait.Until(t, "the stream's subscription", func() bool { return f.subscribers() == 1 })
	f.publish(api.SyncEvent{Name: api.EventSyncConflict, Conflict: &api.SyncConflict{ID: 3, Ref: "TASK-9"}})
	if ev := testwait.Recv(t, "the conflict", got); ev.Conflict == nil || ev.Conflict.Ref != "TASK-9" || ev.Status != nil {
		t.Fatalf("conflict event %+v", ev)
	}
	if err := testwait.Recv(t, "the client to return", done); !errors.Is(err, stop) {
		t.Fatalf("SyncEvents returned %v, want fn's error", err)
	}

	// padd's shutdown ends it with io.ErrUnexpectedEOF; a padd without
	// the engine answers the coded error.
	go func() { done <- h.client().SyncEvents(ctx, func(api.SyncEvent) error { return nil }) }()
	testwait.Until(t, "the stream's subscription", func() bool { return f.subscribers() == 1 })
	h.srv.Close()
	if err := testwait.Recv(t, "the client to return", done); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("after shutdown SyncEvents returned %v", err)
	}
	bare := newHarness(t)
	if err := bare.client().SyncEvents(ctx, func(api.SyncEvent) error { return nil }); api.ErrorCode(err) != api.CodeUnavailable {
		t.Fatalf("without an engine: %v", err)
	}
}
