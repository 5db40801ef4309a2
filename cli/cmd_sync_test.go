package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/model"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
)

// padctl's sync commands run in-process against padd's real API server
// (daemon.Server over a real store, on loopback HTTP) whose sync engine
// is syncEngineDouble, a test double: the sync engine itself is tested
// in its own package.

// syncEngineDouble is a test double of the sync engine: statuses and
// conflicts in memory, what padctl sent recorded, and a script of status
// changes it publishes to each new subscriber (a clone's progress).
type syncEngineDouble struct {
	mu        sync.Mutex
	statuses  map[string]api.SyncStatus
	conflicts []api.SyncConflict
	clones    []api.SyncClone
	links     []api.SyncLink
	resolves  []api.SyncResolve
	script    []api.SyncStatus
	subs      []chan api.SyncEvent
	verify    *api.SyncVerify // what Verify answers
}

func (e *syncEngineDouble) Status(ws string) ([]api.SyncStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []api.SyncStatus
	for _, st := range e.statuses {
		if ws == "" || st.Workspace == ws {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b api.SyncStatus) int { return strings.Compare(a.Workspace, b.Workspace) })
	return out, nil
}

func (e *syncEngineDouble) Clone(ctx context.Context, in api.SyncClone) (*api.SyncStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clones = append(e.clones, in)
	st := api.SyncStatus{Workspace: firstNonEmpty(in.As, in.RemoteWorkspace), URL: in.URL, RemoteWorkspace: in.RemoteWorkspace,
		State: api.SyncPulling, Cloning: true}
	e.statuses[st.Workspace] = st
	return &st, nil
}

func (e *syncEngineDouble) Link(ctx context.Context, in api.SyncLink) (*api.SyncStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.links = append(e.links, in)
	st := api.SyncStatus{Workspace: in.Workspace, URL: in.URL, RemoteWorkspace: in.RemoteWorkspace, State: api.SyncPushing, Pending: 2}
	e.statuses[st.Workspace] = st
	return &st, nil
}

func (e *syncEngineDouble) linked(ws string) (api.SyncStatus, error) {
	st, ok := e.statuses[ws]
	if !ok {
		return st, model.NotFound("workspace %s is not linked to a Pad server", ws).With("scope", "sync_link")
	}
	return st, nil
}

func (e *syncEngineDouble) Unlink(ws string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.linked(ws); err != nil {
		return err
	}
	delete(e.statuses, ws)
	return nil
}

func (e *syncEngineDouble) set(ws, state string) (*api.SyncStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, err := e.linked(ws)
	if err != nil {
		return nil, err
	}
	st.State = state
	e.statuses[ws] = st
	return &st, nil
}

func (e *syncEngineDouble) Now(ws string) (*api.SyncStatus, error) { return e.set(ws, api.SyncSynced) }
func (e *syncEngineDouble) Pause(ws string) (*api.SyncStatus, error) {
	return e.set(ws, api.SyncPaused)
}
func (e *syncEngineDouble) Resume(ws string) (*api.SyncStatus, error) {
	return e.set(ws, api.SyncSynced)
}

func (e *syncEngineDouble) Conflicts(ws string, all bool) ([]api.SyncConflict, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.linked(ws); err != nil {
		return nil, err
	}
	var out []api.SyncConflict
	for _, c := range e.conflicts {
		if all || c.State == "open" {
			out = append(out, c)
		}
	}
	return out, nil
}

func (e *syncEngineDouble) Resolve(ctx context.Context, ws string, in api.SyncResolve) ([]api.SyncConflict, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.resolves = append(e.resolves, in)
	var out []api.SyncConflict
	for i, c := range e.conflicts {
		if c.Ref == in.Ref && c.State == "open" && (in.ID == 0 || c.ID == in.ID) {
			e.conflicts[i].State = "resolved"
			out = append(out, e.conflicts[i])
		}
	}
	if len(out) == 0 {
		return nil, model.NotFound("%s has no open conflict", in.Ref)
	}
	return out, nil
}

func (e *syncEngineDouble) Verify(ctx context.Context, ws string, progress func(done, total int)) (*api.SyncVerify, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.linked(ws); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(1, 1)
	}
	v := *e.verify
	v.Workspace = ws
	return &v, nil
}

// Subscribe hands the new subscriber the script, as if the statuses
// changed right after it subscribed (Status keeps answering the old).
func (e *syncEngineDouble) Subscribe() (<-chan api.SyncEvent, func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ch := make(chan api.SyncEvent, len(e.script)+1)
	for i := range e.script {
		st := e.script[i]
		ch <- api.SyncEvent{Name: api.EventSyncStatus, Status: &st}
	}
	e.subs = append(e.subs, ch)
	return ch, func() {}
}

// syncPadd is padd's API server with the double as its engine (nil
// engine: none), a workspace w and one task in it; env runs padctl
// against it in-process.
type syncPadd struct {
	t      *testing.T
	engine *syncEngineDouble
	base   string
	token  string
	dir    string
	vars   map[string]string
}

func newSyncPadd(t *testing.T, withEngine bool) *syncPadd {
	t.Helper()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{NoSync: true, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	index, err := searchindex.Open(dir, store, log)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	const token = "padd_cli_sync_test_token"
	srv := daemon.NewServer(store, index, token, log)
	p := &syncPadd{t: t, dir: t.TempDir(), vars: map[string]string{}}
	if withEngine {
		p.engine = &syncEngineDouble{statuses: map[string]api.SyncStatus{}}
		srv.SetSync(p.engine)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
		index.Close()
		store.Close()
	})
	p.base, p.token = ts.URL, token
	if r := p.run("workspace", "create", "Work", "--slug", "w"); r.code != 0 {
		t.Fatal(r)
	}
	if r := p.run("-w", "w", "item", "create", "task", "Fix the login"); r.code != 0 {
		t.Fatal(r)
	}
	return p
}

type syncRun struct {
	stdout, stderr string
	code           int
}

func (r syncRun) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// run runs padctl with args against the padd.
func (p *syncPadd) run(args ...string) syncRun {
	p.t.Helper()
	var out, errb strings.Builder
	code := Run(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: p.dir,
		Now: func() time.Time { return goldenNow }, LookupEnv: env(p.vars), Style: &Style{Width: DefaultWidth},
		Connect: func(ctx context.Context, start bool) (*api.Client, *launch.Info, error) {
			return api.NewClient(p.base, p.token), &launch.Info{}, nil
		}})
	return syncRun{out.String(), errb.String(), code}
}

// edit changes the double's state under its lock.
func (p *syncPadd) edit(fn func(e *syncEngineDouble)) {
	p.engine.mu.Lock()
	defer p.engine.mu.Unlock()
	fn(p.engine)
}

// engineSaw reads what the double recorded.
func (p *syncPadd) engineSaw() (clones []api.SyncClone, links []api.SyncLink, resolves []api.SyncResolve) {
	p.engine.mu.Lock()
	defer p.engine.mu.Unlock()
	return slices.Clone(p.engine.clones), slices.Clone(p.engine.links), slices.Clone(p.engine.resolves)
}

// withPrompt makes the terminal prompt answer line (ok false: stdin is
// not a terminal) for the test.
func withPrompt(t *testing.T, line string, ok bool) *[]string {
	var prompts []string
	prev := readHidden
	readHidden = func(a *App, prompt string) (string, bool, error) {
		prompts = append(prompts, prompt)
		return line, ok, nil
	}
	t.Cleanup(func() { readHidden = prev })
	return &prompts
}

func TestSyncCloneFollowsProgressUntilSynced(t *testing.T) {
	p := newSyncPadd(t, true)
	at := goldenNow.Add(-time.Minute)
	p.edit(func(e *syncEngineDouble) {
		e.script = []api.SyncStatus{
			{Workspace: "team", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncPulling, Cloning: true},
			{Workspace: "team", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncPushing, Pending: 1},
			{Workspace: "team", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncSynced, LastExchange: &at,
				RemoteVersion: "1.4.0", Capabilities: []string{"item_patch"}, NotSynced: api.SyncNotCarried},
		}
	})
	p.vars["PAD_TOKEN"] = " pad_from_env\n"
	r := p.run("sync", "clone", "https://pad.example.com", "team", "--token-env", "PAD_TOKEN")
	if r.code != 0 {
		t.Fatal(r)
	}
	for _, want := range []string{"cloning team from https://pad.example.com into workspace team", "team: pulling (cloning)", "team: pushing 1", "team: synced"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r)
		}
	}
	if !strings.Contains(r.stdout, "Cloned team with https://pad.example.com") || !strings.Contains(r.stdout, "remote version  1.4.0") ||
		!strings.Contains(r.stdout, "not synced      attachments: kept on the side that has them") {
		t.Errorf("result:\n%s", r)
	}
	if clones, _, _ := p.engineSaw(); len(clones) != 1 || clones[0].Token != "pad_from_env" || clones[0].As != "" {
		t.Errorf("engine got %+v", clones)
	}
	if strings.Contains(r.stdout+r.stderr, "pad_from_env") {
		t.Errorf("padctl printed the token:\n%s", r)
	}
}

func TestSyncCloneStopsOnOfflineAndNoWait(t *testing.T) {
	p := newSyncPadd(t, true)
	since, next := goldenNow.Add(-2*time.Minute), goldenNow.Add(90*time.Second)
	p.edit(func(e *syncEngineDouble) {
		e.script = []api.SyncStatus{{Workspace: "docs", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncOffline,
			OfflineSince: &since, NextTry: &next, LastError: "dial tcp: connection refused"}}
	})
	tokenFile := filepath.Join(p.dir, "token")
	if err := os.WriteFile(tokenFile, []byte("pad_in_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := p.run("sync", "clone", "https://pad.example.com", "team", "--as", "docs", "--token-file", "token")
	if r.code != ExitError || !strings.Contains(r.stderr, "(sync_offline)") || !strings.Contains(r.stderr, "next try in 2m") ||
		!strings.Contains(r.stderr, "connection refused") {
		t.Fatalf("offline clone:\n%s", r)
	}
	if clones, _, _ := p.engineSaw(); len(clones) != 1 || clones[0].Token != "pad_in_file" || clones[0].As != "docs" {
		t.Errorf("engine got %+v", clones)
	}
	p.edit(func(e *syncEngineDouble) {
		e.script = nil
	})
	r = p.run("sync", "clone", "https://pad.example.com", "ops", "--token-file", "token", "--no-wait", "--format", "json")
	var st api.SyncStatus
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || !st.Cloning || st.Workspace != "ops" {
		t.Fatalf("--no-wait:\n%s", r)
	}
}

func TestSyncTokenSources(t *testing.T) {
	p := newSyncPadd(t, true)
	// Not on a terminal and no flag: a clone is refused before padd is asked.
	withPrompt(t, "", false)
	r := p.run("sync", "clone", "https://pad.example.com", "team")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "(no_token)") {
		t.Fatalf("clone without a token:\n%s", r)
	}
	r = p.run("sync", "link", "w", "https://pad.example.com", "empty")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "(no_token)") {
		t.Fatalf("link of an unlinked workspace without a token:\n%s", r)
	}
	r = p.run("sync", "clone", "https://pad.example.com", "team", "--token-env", "NOPE")
	if r.code != ExitError || !strings.Contains(r.stderr, "NOPE is not set") {
		t.Fatalf("unset variable:\n%s", r)
	}
	r = p.run("sync", "clone", "https://pad.example.com", "team", "--token-env", "A", "--token-file", "b")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "(conflicting_args)") {
		t.Fatalf("two sources:\n%s", r)
	}
	if clones, links, _ := p.engineSaw(); len(clones)+len(links) != 0 {
		t.Fatalf("the engine was asked: %+v %+v", clones, links)
	}

	// On a terminal: asked without echo.
	prompts := withPrompt(t, "pad_typed\n", true)
	if r := p.run("sync", "link", "w", "https://pad.example.com", "empty", "--no-wait"); r.code != 0 {
		t.Fatal(r)
	}
	if _, links, _ := p.engineSaw(); len(links) != 1 || links[0].Token != "pad_typed" || len(*prompts) != 1 ||
		strings.Contains((*prompts)[0], "keep the saved") {
		t.Fatalf("prompted link: %+v, prompts %q", links, *prompts)
	}
	// Linked now: an empty answer keeps the saved token, and so does no
	// terminal at all.
	prompts = withPrompt(t, "", true)
	if r := p.run("sync", "link", "w", "https://pad.example.com", "empty", "--no-wait"); r.code != 0 {
		t.Fatal(r)
	}
	withPrompt(t, "", false)
	if r := p.run("sync", "link", "w", "https://pad.example.com", "empty", "--no-wait"); r.code != 0 {
		t.Fatal(r)
	}
	if _, links, _ := p.engineSaw(); len(links) != 3 || links[1].Token != "" || links[2].Token != "" || !strings.Contains((*prompts)[0], "keep the saved") {
		t.Fatalf("relinks: %+v, prompts %q", links, *prompts)
	}
	// padd's refusal of a URL comes through with a hint.
	p.vars["T"] = "pad_t"
	r = p.run("sync", "link", "w", "http://pad.lan", "empty", "--token-env", "T")
	if r.code != ExitError || !strings.Contains(r.stderr, "--insecure-http") || strings.Contains(r.stderr, "pad_t") {
		t.Fatalf("plain http:\n%s", r)
	}
	if r := p.run("sync", "link", "w", "http://pad.lan", "empty", "--token-env", "T", "--insecure-http", "--no-wait"); r.code != 0 {
		t.Fatal(r)
	}
}

func TestSyncStatusActionsAndUnlink(t *testing.T) {
	p := newSyncPadd(t, true)
	r := p.run("sync", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "No workspace is linked") {
		t.Fatalf("no links:\n%s", r)
	}
	p.edit(func(e *syncEngineDouble) {
		e.statuses["w"] = api.SyncStatus{Workspace: "w", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncSynced}
	})
	p.edit(func(e *syncEngineDouble) {
		e.statuses["x"] = api.SyncStatus{Workspace: "x", URL: "https://pad.example.com", RemoteWorkspace: "x", State: api.SyncRemoteGone}
	})
	r = p.run("sync", "status", "--format", "json")
	var all api.SyncStatuses
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &all) != nil || len(all.Workspaces) != 2 {
		t.Fatalf("all statuses:\n%s", r)
	}
	// Bare, it lists every linked workspace, even where the current one
	// is not linked (it failed there, with a hint pointing back at it).
	if r := p.run("workspace", "create", "Local", "--slug", "local"); r.code != 0 {
		t.Fatal(r)
	}
	for _, current := range []string{"x", "local"} {
		write(t, filepath.Join(p.dir, PadTomlName), "workspace = \""+current+"\"\n")
		r = p.run("sync", "status")
		if r.code != 0 || !strings.Contains(r.stdout, "remote workspace gone") || !strings.Contains(r.stdout, "w ⇄") {
			t.Fatalf("bare, in a directory linked to workspace %s:\n%s", current, r)
		}
	}
	if err := os.Remove(filepath.Join(p.dir, PadTomlName)); err != nil {
		t.Fatal(err)
	}
	r = p.run("sync", "status", "x")
	if r.code != 0 || !strings.Contains(r.stdout, "remote workspace gone") || strings.Contains(r.stdout, "w ⇄") {
		t.Fatalf("one workspace:\n%s", r)
	}
	r = p.run("sync", "status", "nope")
	if r.code != ExitError || !strings.Contains(r.stderr, "not linked") || !strings.Contains(r.stderr, "padctl sync link") {
		t.Fatalf("unlinked:\n%s", r)
	}
	for _, c := range []struct{ cmd, want string }{
		{"pause", "w: paused"}, {"resume", "w: synced"}, {"now", "w: synced"},
	} {
		if r := p.run("sync", c.cmd, "w"); r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("sync %s:\n%s", c.cmd, r)
		}
	}
	// [ws] defaults to the current workspace.
	p.vars["PAD_WORKSPACE"] = "w"
	if r := p.run("sync", "unlink"); r.code != 0 || !strings.Contains(r.stdout, "Unlinked w: its items stay here") {
		t.Fatalf("unlink:\n%s", r)
	}
	if r := p.run("item", "show", "TASK-1"); r.code != 0 {
		t.Fatalf("the items stay:\n%s", r)
	}
	if r := p.run("sync", "now"); r.code != ExitError || !strings.Contains(r.stderr, "not linked") {
		t.Fatalf("now after unlink:\n%s", r)
	}
}

func TestSyncConflictsResolveAndItemMark(t *testing.T) {
	p := newSyncPadd(t, true)
	p.vars["PAD_WORKSPACE"] = "w"
	// Not linked: item show asks once, shows no mark and no error.
	r := p.run("item", "show", "TASK-1")
	if r.code != 0 || strings.Contains(r.stdout, "sync") || r.stderr != "" {
		t.Fatalf("unlinked item show:\n%s", r)
	}
	at := goldenNow.Add(-time.Hour)
	p.edit(func(e *syncEngineDouble) {
		e.statuses["w"] = api.SyncStatus{Workspace: "w", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncSynced, Conflicts: 2}
	})
	p.edit(func(e *syncEngineDouble) {
		e.conflicts = []api.SyncConflict{
			{ID: 1, Kind: "conflict", Ref: "TASK-1", Part: "title", Base: json.RawMessage(`"Fix login"`), Local: json.RawMessage(`"Fix the login"`),
				Remote: json.RawMessage(`"Fix login on Safari"`), At: at, State: "open"},
			{ID: 2, Kind: "conflict", Ref: "TASK-1", Part: "fields.status", Local: json.RawMessage(`"done"`), Remote: json.RawMessage(`"blocked"`), At: at, State: "open"},
			{ID: 3, Kind: "set_aside", Ref: "TASK-7", Reason: "the server refused it: validation_error", At: at, State: "open"},
		}
	})
	r = p.run("item", "show", "TASK-1")
	if r.code != 0 || !strings.Contains(r.stdout, "sync        2 open conflicts (title, fields.status)") {
		t.Fatalf("marked item show:\n%s", r)
	}
	r = p.run("item", "show", "TASK-1", "--format", "json")
	var shown struct {
		Ref           string
		SyncConflicts []api.SyncConflict `json:"sync_conflicts"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &shown) != nil || shown.Ref != "TASK-1" || len(shown.SyncConflicts) != 2 {
		t.Fatalf("item show json:\n%s", r)
	}

	r = p.run("sync", "conflicts")
	if r.code != 0 || !strings.Contains(r.stdout, "Fix login on Safari") || !strings.Contains(r.stdout, "set aside") {
		t.Fatalf("conflicts:\n%s", r)
	}
	// A merged value needs one conflict and a file.
	if r := p.run("sync", "resolve", "TASK-1", "--keep", "merged"); r.code != ExitUsage || !strings.Contains(r.stderr, "--file") {
		t.Fatalf("merged without a file:\n%s", r)
	}
	if r := p.run("sync", "resolve", "TASK-1", "--keep", "local", "--file", "x"); r.code != ExitUsage {
		t.Fatalf("a file with local:\n%s", r)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "merged"), []byte("Fix the login on Safari\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := p.run("sync", "resolve", "TASK-1", "--keep", "merged", "--file", "merged"); r.code != ExitUsage ||
		!strings.Contains(r.stderr, "--id 1 (title)") {
		t.Fatalf("ambiguous merge:\n%s", r)
	}
	r = p.run("sync", "resolve", "TASK-1", "--keep", "merged", "--file", "merged", "--id", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "Settled 1 conflict of TASK-1 (title): kept merged.") {
		t.Fatalf("merged title:\n%s", r)
	}
	// A field's merged value is JSON.
	if err := os.WriteFile(filepath.Join(p.dir, "status"), []byte("review"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := p.run("sync", "resolve", "TASK-1", "--keep", "merged", "--file", "status"); r.code != ExitError || !strings.Contains(r.stderr, "not JSON") {
		t.Fatalf("a field value that is not JSON:\n%s", r)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "status"), []byte(` "review" `), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := p.run("sync", "resolve", "TASK-1", "--keep", "merged", "--file", "status"); r.code != 0 {
		t.Fatal(r)
	}
	if _, _, res := p.engineSaw(); len(res) != 2 || string(res[0].Value) != `"Fix the login on Safari"` || res[0].ID != 1 ||
		string(res[1].Value) != `"review"` {
		t.Fatalf("engine got %+v", res)
	}
	r = p.run("sync", "resolve", "TASK-7", "--keep", "remote", "--format", "json")
	var settled api.SyncConflicts
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &settled) != nil || len(settled.Conflicts) != 1 || settled.Conflicts[0].ID != 3 {
		t.Fatalf("resolve set-aside:\n%s", r)
	}
	if r := p.run("item", "show", "TASK-1"); r.code != 0 || strings.Contains(r.stdout, "open conflict") {
		t.Fatalf("settled item still marked:\n%s", r)
	}
	if r := p.run("sync", "conflicts", "--all"); r.code != 0 || strings.Count(r.stdout, "resolved") != 3 {
		t.Fatalf("conflicts --all:\n%s", r)
	}
}

// `sync verify` exits 0 when the two sides are equal and 1 with
// sync_differs when they are not (or local changes are not pushed yet),
// printing each difference; --format json gives padd's answer.
func TestSyncVerify(t *testing.T) {
	p := newSyncPadd(t, true)
	v := verifyFixture()
	p.edit(func(e *syncEngineDouble) {
		e.statuses["w"] = api.SyncStatus{Workspace: "w", URL: "https://pad.example.com", RemoteWorkspace: "team", State: api.SyncSynced}
		e.verify = &api.SyncVerify{URL: "https://pad.example.com", RemoteWorkspace: "team", Equal: true, Checked: v.Checked,
			Differences: []api.SyncDifference{}, Conflicts: []api.SyncDifference{}}
	})
	r := p.run("sync", "verify", "w")
	if r.code != 0 || !strings.Contains(r.stdout, "w is the same here and on https://pad.example.com (workspace team): compared") {
		t.Fatalf("equal:\n%s", r)
	}
	p.edit(func(e *syncEngineDouble) { e.verify = v })
	p.vars["PAD_WORKSPACE"] = "w"
	r = p.run("sync", "verify")
	if r.code != ExitError || !strings.Contains(r.stderr, "(sync_differs)") || !strings.Contains(r.stderr, "w differs from its remote: 3 differences, 2 local changes not pushed yet") ||
		!strings.Contains(r.stdout, `TASK-5: the title differs: here "Fix login", there "Fix the login"`) || strings.Contains(r.stdout, "\x1b") {
		t.Fatalf("differences:\n%s", r)
	}
	r = p.run("sync", "verify", "--format", "json")
	var got api.SyncVerify
	if r.code != ExitError || json.Unmarshal([]byte(r.stdout), &got) != nil || len(got.Differences) != 3 || got.Pending != 2 {
		t.Fatalf("json:\n%s", r)
	}
	if r := p.run("sync", "verify", "nope"); r.code != ExitError || !strings.Contains(r.stderr, "not linked") {
		t.Fatalf("unlinked:\n%s", r)
	}
}

// verifyFixture is a verify that found differences of each kind of
// view: a sentence, a content difference with its lines, one an open
// conflict explains, remote text with a terminal escape in it.
func verifyFixture() *api.SyncVerify {
	return &api.SyncVerify{Workspace: "w", URL: "https://pad.example.com", RemoteWorkspace: "team", Pending: 2,
		Checked: api.SyncVerifyCounts{Collections: 3, Items: 12, Comments: 5, Links: 2, Attachments: 1},
		Differences: []api.SyncDifference{
			{Kind: api.VerifyItem, Ref: "TASK-5", Part: "title", Local: json.RawMessage(`"Fix login"`), Remote: json.RawMessage(`"Fix the login"`),
				Words: `TASK-5: the title differs: here "Fix login", there "Fix the login"`},
			{Kind: api.VerifyItem, Ref: "TASK-6", Part: "content", Local: json.RawMessage(`"steps:\n1. open\n2. close\n"`),
				Remote: json.RawMessage(`"steps:\n1. open\n2. save\u001b[31m\n"`), Words: "TASK-6: the content differs (here 4 lines, 24 bytes, there 4 lines, 28 bytes)"},
			{Kind: api.VerifyComment, Ref: "TASK-2", Part: api.PartOnlyHere, Local: json.RawMessage(`"LGTM"`),
				Words: "comment by Admin on TASK-2 is here only: \"LGTM\x1b[0m\""},
		},
		Conflicts: []api.SyncDifference{{Kind: api.VerifyItem, Ref: "TASK-9", Part: "fields.status", Local: json.RawMessage(`"done"`),
			Remote: json.RawMessage(`"open"`), Words: "TASK-9: field status differs: here \"done\", there \"open\" (an open conflict: `padctl sync conflicts` shows it)"}},
		Notes: []string{"the remote keeps no attachments: they were not compared"},
	}
}

func TestSyncWithoutEngine(t *testing.T) {
	p := newSyncPadd(t, false)
	r := p.run("sync", "status")
	if r.code != ExitError || !strings.Contains(r.stderr, "(unavailable)") || !strings.Contains(r.stderr, "padctl daemon restart") {
		t.Fatalf("status without sync:\n%s", r)
	}
	if r := p.run("-w", "w", "item", "show", "TASK-1"); r.code != 0 || strings.Contains(r.stdout, "sync") {
		t.Fatalf("item show without sync:\n%s", r)
	}
}

// syncGoldenCases pin the sync views (golden_test.go runs them).
func syncGoldenCases() []renderCase {
	last, since, next := before(4*time.Minute), before(20*time.Minute), goldenNow.Add(45*time.Second)
	list := []api.SyncStatus{
		{Workspace: "padd", URL: "https://pad.example.com", RemoteWorkspace: "padd", State: api.SyncSynced, Live: true, LastExchange: &last,
			RemoteVersion: "1.4.0", Capabilities: []string{"item_patch", "idempotency_keys"}},
		{Workspace: "home", URL: "https://pad.example.com", RemoteWorkspace: "chores", State: api.SyncOffline, Pending: 12,
			Conflicts: 2, SetAside: 1, LastExchange: &since, OfflineSince: &since, NextTry: &next, LastError: "dial tcp: connection refused \x1b[31m",
			RemoteVersion: "1.3.2"},
		{Workspace: "ops", URL: "https://pad.example.com", RemoteWorkspace: "ops", State: api.SyncTokenRefused, Pending: 1},
		{Workspace: "lab", URL: "http://127.0.0.1:7777", RemoteWorkspace: "lab", State: api.SyncPushing, Pending: 1, NextTry: &next,
			Waiting: "a comment sent when the connection failed: padd looks for it on the remote before sending it again"},
		{Workspace: "new", URL: "https://pad.example.com", RemoteWorkspace: "new", State: api.SyncPulling, Cloning: true},
		{Workspace: "old", URL: "https://pad.example.com", RemoteWorkspace: "old", State: api.SyncPaused},
		{Workspace: "gone", URL: "https://pad.example.com", RemoteWorkspace: "gone", State: api.SyncRemoteGone},
	}
	sv := syncStatusView{list: list, now: goldenNow}
	conflicts := []api.SyncConflict{
		{ID: 4, Kind: "conflict", Ref: "TASK-12", Title: "Fix it", Part: "content", Local: json.RawMessage(`"line one\nmine | *here*"`),
			Remote: json.RawMessage(`"line one\ntheirs"`), At: before(3 * time.Hour), State: "open"},
		{ID: 5, Kind: "conflict", Ref: "TASK-12", Part: "fields.labels", Local: json.RawMessage(`[ "a", "b" ]`), Remote: json.RawMessage(`null`),
			At: before(time.Hour), State: "resolved"},
		{ID: 6, Kind: "set_aside", Ref: "IDEA-7", Reason: "the server refused it: validation_error (status: no such option)", At: before(time.Minute), State: "open"},
	}
	cv := syncConflictsView{list: conflicts, now: goldenNow}
	cvAll := syncConflictsView{list: conflicts, now: goldenNow, all: true}
	it := fixtureItems()[0]
	mark := "2 open conflicts (content, fields.labels): `padctl sync conflicts` shows them"
	vf := verifyFixture()
	equal := &api.SyncVerify{Workspace: "w", URL: "https://pad.example.com", RemoteWorkspace: "team", Equal: true, Checked: vf.Checked,
		Differences: []api.SyncDifference{}, Conflicts: []api.SyncDifference{}}
	marked := itemDetail{it: &it, now: goldenNow, syncMark: mark}
	return []renderCase{
		{"sync-status.table", func(w io.Writer) error { return sv.writeTable(w, piped) }},
		{"sync-status.narrow", func(w io.Writer) error { return sv.writeTable(w, narrow) }},
		{"sync-status.color", func(w io.Writer) error { return sv.writeTable(w, colour) }},
		{"sync-status.markdown", sv.writeMarkdown},
		{"sync-status.json", func(w io.Writer) error { return writeJSON(w, api.SyncStatuses{Workspaces: list[:2]}) }},
		{"sync-status-empty.table", func(w io.Writer) error { return syncStatusView{}.writeTable(w, piped) }},
		{"sync-conflicts.table", func(w io.Writer) error { return cv.writeTable(w, piped) }},
		{"sync-conflicts-all.table", func(w io.Writer) error { return cvAll.writeTable(w, piped) }},
		{"sync-conflicts.narrow", func(w io.Writer) error { return cv.writeTable(w, narrow) }},
		{"sync-conflicts.markdown", cvAll.writeMarkdown},
		{"sync-conflicts-empty.table", func(w io.Writer) error { return syncConflictsView{}.writeTable(w, piped) }},
		{"item-sync-conflict.table", func(w io.Writer) error { return marked.writeTable(w, piped) }},
		{"item-sync-conflict.markdown", marked.writeMarkdown},
		{"sync-verify.table", func(w io.Writer) error { return syncVerifyView{v: vf}.writeTable(w, piped) }},
		{"sync-verify.color", func(w io.Writer) error { return syncVerifyView{v: vf}.writeTable(w, colour) }},
		{"sync-verify.markdown", syncVerifyView{v: vf}.writeMarkdown},
		{"sync-verify.json", func(w io.Writer) error { return writeJSON(w, vf) }},
		{"sync-verify-equal.table", func(w io.Writer) error { return syncVerifyView{v: equal}.writeTable(w, piped) }},
	}
}
