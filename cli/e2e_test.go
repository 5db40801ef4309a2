//go:build unix

package cli

// End-to-end tests: the real padd and padctl binaries, built by go build
// into a temporary directory (with -race when the tests run with -race),
// a temporary PAD_HOME per test, and padctl run as a subprocess exactly
// as a user would. Some tests run padctl in-process (cli.Run) against a
// real padd subprocess instead, which is faster and still talks HTTP to
// the real daemon. Skipped with -short.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
)

var (
	binDir    string // where TestMain's directory holds the built binaries
	buildOnce sync.Once
	buildErr  error
	// paddBin and padctlBin are this go test run's (testbin.PaddForRun).
	paddBin, padctlBin string
	doneBin            func()
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "padctl-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	if doneBin != nil {
		doneBin()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// goBuild builds packages of this module into out (a directory, or a
// file for one package), with extra go build flags, and -race when this
// test binary has it.
func goBuild(out string, flags []string, pkgs ...string) error {
	return testbin.GoBuild("..", out, testbin.Race(), flags, pkgs...)
}

// binaries builds padd and padctl once for all tests.
func binaries(t testing.TB) (padd, padctl string) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the binaries")
	}
	buildOnce.Do(func() {
		var bins testbin.Binaries
		bins, buildErr = testbin.PaddForRun("..", testbin.Race())
		paddBin, padctlBin, doneBin = bins.Padd, bins.Padctl, bins.Done
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return paddBin, padctlBin
}

// stopPaddOf stops whatever padd daemon.json in home names, so no test
// leaks a daemon; registered by every test that may start one.
func stopPaddOf(t testing.TB, home string) {
	t.Cleanup(func() {
		info, err := launch.ReadInfo(home)
		if err != nil || !launch.ProcessAlive(info.PID) {
			return
		}
		_ = terminate(info.PID)
		if !waitExit(context.Background(), info.PID, 10*time.Second) {
			t.Errorf("padd pid %d did not exit on SIGTERM", info.PID)
		}
	})
}

// result is one padctl run.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// testEnv is the environment padctl subprocesses get: the test's own,
// minus anything that would change padctl's behaviour, plus PAD_HOME.
func testEnv(home string, extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PAD_HOME", "PAD_WORKSPACE", "PAD_AGENT", "NO_COLOR", "COMP_LINE", "COMP_POINT", "XDG_DATA_HOME":
			continue
		}
		out = append(out, kv)
	}
	if _, set := os.LookupEnv("GORACE"); !set {
		// A -race binary sleeps a second at exit (atexit_sleep_ms) so
		// late race reports get out; 50ms does for these short runs and
		// keeps a test of dozens of runs from taking a minute longer.
		out = append(out, "GORACE=atexit_sleep_ms=50")
	}
	return append(append(out, "PAD_HOME="+home), extra...)
}

// padctl runs the padctl binary in dir with PAD_HOME=home.
func padctl(t testing.TB, home, dir, stdin string, args ...string) result {
	t.Helper()
	_, bin := binaries(t)
	return runBin(t, bin, testEnv(home), dir, stdin, args...)
}

func runBin(t testing.TB, bin string, env []string, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Logf("padctl %s took %s", strings.Join(args, " "), d.Round(time.Millisecond))
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run padctl %v: %v", args, err)
	}
	if strings.Contains(errb.String(), "WARNING: DATA RACE") {
		t.Errorf("padctl %v reported a data race:\n%s", args, errb.String())
	}
	return result{out.String(), errb.String(), code}
}

// ok runs padctl and fails the test unless it exits 0.
func ok(t testing.TB, home, dir string, args ...string) result {
	t.Helper()
	r := padctl(t, home, dir, "", args...)
	if r.code != 0 {
		t.Fatalf("padctl %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// decode parses a --format json answer.
func decode[T any](t testing.TB, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("stdout is not the JSON expected (%v): %s", err, r)
	}
	return v
}

// itemResult is an item as padctl prints it: the wire item with fields and
// tags as native JSON.
type itemResult struct {
	ID             string         `json:"id"`
	Ref            string         `json:"ref"`
	Title          string         `json:"title"`
	Content        string         `json:"content"`
	Fields         map[string]any `json:"fields"`
	Tags           []string       `json:"tags"`
	Seq            int64          `json:"seq"`
	CollectionSlug string         `json:"collection_slug"`
	DeletedAt      *time.Time     `json:"deleted_at"`
}

// TestE2EWorkflow is a user's session: padd starts on the first
// command, init links a directory, every command below it finds the
// workspace, items go through their life, errors are clean, and the
// daemon stops on request.
func TestE2EWorkflow(t *testing.T) {
	home := t.TempDir()
	stopPaddOf(t, home)
	proj := filepath.Join(t.TempDir(), "proj")
	deep := filepath.Join(proj, "src", "pkg")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}

	// Auto-start: no padd yet; init starts it and creates the workspace.
	if _, err := launch.ReadInfo(home); !errors.Is(err, launch.ErrNoDaemon) {
		t.Fatalf("daemon.json before the first command: %v", err)
	}
	r := ok(t, home, proj, "init", "--name", "E2E Project", "--format", "json")
	initOut := decode[struct {
		Workspace struct{ Slug string } `json:"workspace"`
		Created   bool                  `json:"created"`
		PadToml   string                `json:"pad_toml"`
	}](t, r)
	if initOut.Workspace.Slug != "e2e-project" || !initOut.Created || initOut.PadToml != filepath.Join(proj, PadTomlName) {
		t.Fatalf("init answered %+v", initOut)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, PadTomlName)); string(b) != "workspace = \"e2e-project\"\n" {
		t.Fatalf(".pad.toml = %q", b)
	}
	info, err := launch.ReadInfo(home)
	if err != nil || !launch.ProcessAlive(info.PID) {
		t.Fatalf("padd was not started by the first command: %v", err)
	}
	// init again is idempotent: the existing workspace is reused.
	if r := ok(t, home, proj, "init"); !strings.Contains(r.stdout, "Using workspace e2e-project") {
		t.Errorf("second init: %s", r)
	}
	// A second workspace, so only .pad.toml can pick the right one below.
	ok(t, home, proj, "workspace", "create", "Other")

	// Create from a subdirectory: .pad.toml is found upward; the alias
	// "task" resolves to tasks; --field values are typed by padd.
	r = ok(t, home, deep, "item", "create", "task", "First task", "--priority", "high", "--tags", "a,b",
		"-f", "due_date=2026-05-01", "--format", "json")
	first := decode[itemResult](t, r)
	if first.Ref != "TASK-1" || first.CollectionSlug != "tasks" || first.Fields["priority"] != "high" ||
		first.Fields["status"] != "open" || first.Fields["due_date"] != "2026-05-01" || strings.Join(first.Tags, ",") != "a,b" {
		t.Fatalf("created %+v", first)
	}
	r = padctl(t, home, deep, "Body from\nstdin\n", "item", "create", "tasks", "Second task", "--stdin", "--format", "json")
	second := decode[itemResult](t, r)
	if r.code != 0 || second.Content != "Body from\nstdin\n" {
		t.Fatalf("create --stdin: %s", r)
	}

	list := decode[[]itemResult](t, ok(t, home, deep, "item", "list", "--format", "json"))
	if len(list) != 2 {
		t.Fatalf("list: %d items, want 2", len(list))
	}
	if got := decode[[]itemResult](t, ok(t, home, deep, "item", "list", "--priority", "high", "--format", "json")); len(got) != 1 || got[0].Ref != "TASK-1" {
		t.Errorf("list --priority high = %+v", got)
	}

	// Update guarded by seq; the stale seq is then refused.
	shown := decode[itemResult](t, ok(t, home, deep, "item", "show", "TASK-1", "--format", "json"))
	r = ok(t, home, deep, "item", "update", "TASK-1", "--status", "done", "--expected-seq", fmt.Sprint(shown.Seq), "--format", "json")
	if done := decode[itemResult](t, r); done.Fields["status"] != "done" || done.Seq <= shown.Seq {
		t.Fatalf("update: %+v", done)
	}
	r = padctl(t, home, deep, "", "item", "update", "TASK-1", "--title", "stale", "--expected-seq", fmt.Sprint(shown.Seq))
	assertFailure(t, r, ExitError, "update_conflict")

	// Open items only by default (non_terminal), everything with --all.
	if got := decode[[]itemResult](t, ok(t, home, deep, "item", "list", "--format", "json")); len(got) != 1 || got[0].Ref != "TASK-2" {
		t.Errorf("default list after closing TASK-1 = %+v", got)
	}
	if got := decode[[]itemResult](t, ok(t, home, deep, "item", "list", "--all", "--format", "json")); len(got) != 2 {
		t.Errorf("list --all = %d items", len(got))
	}

	// Move: a new ref in the new collection; the old ref still resolves.
	moved := decode[itemResult](t, ok(t, home, deep, "item", "move", "TASK-2", "ideas", "--format", "json"))
	if moved.CollectionSlug != "ideas" || !strings.HasPrefix(moved.Ref, "IDEA-") {
		t.Fatalf("move: %+v", moved)
	}
	if again := decode[itemResult](t, ok(t, home, deep, "item", "show", "TASK-2", "--format", "json")); again.ID != second.ID {
		t.Errorf("old ref after move resolves to %+v", again)
	}

	// Delete (archive), read it archived, restore it.
	del := decode[map[string]any](t, ok(t, home, deep, "item", "delete", moved.Ref, "--format", "json"))
	if del["ref"] != moved.Ref || del["archived"] != true || del["title"] != "Second task" {
		t.Errorf("delete answered %v", del)
	}
	if gone := decode[itemResult](t, ok(t, home, deep, "item", "show", moved.Ref, "--format", "json")); gone.DeletedAt == nil {
		t.Errorf("archived item shows no deleted_at: %+v", gone)
	}
	if back := decode[itemResult](t, ok(t, home, deep, "item", "restore", moved.Ref, "--format", "json")); back.DeletedAt != nil {
		t.Errorf("restore: %+v", back)
	}

	// Failures: message and hint on stderr, nothing on stdout.
	assertFailure(t, padctl(t, home, deep, "", "item", "show", "NOPE-99", "--format", "json"), ExitError, "not_found")
	assertFailure(t, padctl(t, home, deep, "", "item", "list", "--limit", "5000"), ExitUsage, "bad_limit")
	assertFailure(t, padctl(t, home, deep, "", "item", "frobnicate"), ExitUsage, "usage")
	// Outside the linked tree with two workspaces: no guess.
	r = padctl(t, home, t.TempDir(), "", "item", "list")
	assertFailure(t, r, ExitError, "no_workspace")
	if !strings.Contains(r.stderr, "available: e2e-project, other") {
		t.Errorf("no_workspace does not list the workspaces:\n%s", r.stderr)
	}

	// Daemon status and stop.
	st := decode[map[string]any](t, ok(t, home, deep, "daemon", "status", "--format", "json"))
	if st["running"] != true || st["pid"] != float64(info.PID) || st["version"] != api.Version || st["mcp_sessions"] != float64(0) {
		t.Errorf("daemon status = %v", st)
	}
	if r := ok(t, home, deep, "daemon", "status"); !strings.Contains(r.stdout, "0 connected over MCP") {
		t.Errorf("daemon status does not count the agents:\n%s", r.stdout)
	} else if runtime.GOOS == "linux" && !regexp.MustCompile(`memory +[0-9.]+ [KM]iB its own \(Go heap [0-9.]+ [KM]iB\) \+ [0-9.]+ MiB file cache`).MatchString(r.stdout) {
		t.Errorf("daemon status does not tell padd's own memory and heap from its file cache:\n%s", r.stdout)
	} else if mem, _ := st["memory"].(map[string]any); runtime.GOOS == "linux" && (mem["heap_bytes"] == nil || mem["peak_bytes"] == nil) {
		t.Errorf("daemon status --format json has no heap_bytes or peak_bytes: %v", mem)
	}
	if r := ok(t, home, deep, "daemon", "stop"); !strings.Contains(r.stdout, fmt.Sprintf("Stopped padd (pid %d)", info.PID)) {
		t.Errorf("daemon stop: %s", r)
	}
	if launch.ProcessAlive(info.PID) {
		t.Errorf("padd pid %d still alive after daemon stop", info.PID)
	}
	if _, err := os.Stat(filepath.Join(home, launch.InfoFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("daemon.json still there after stop: %v", err)
	}
	if r := padctl(t, home, deep, "", "daemon", "status"); r.code != ExitNotRunning || !strings.Contains(r.stdout, "not running") {
		t.Errorf("status after stop: %s", r)
	}
	if r := ok(t, home, deep, "daemon", "stop"); !strings.Contains(r.stdout, "not running") {
		t.Errorf("second stop: %s", r)
	}
}

// TestE2ENoPadd: with no padd binary to start, the first command says
// so clearly instead of hanging.
func TestE2ENoPadd(t *testing.T) {
	_, bin := binaries(t)
	alone := filepath.Join(t.TempDir(), "padctl")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := append(testEnv(home), "PATH="+filepath.Dir(alone)) // no padd anywhere
	start := time.Now()
	r := runBin(t, alone, env, t.TempDir(), "", "item", "list")
	assertFailure(t, r, ExitError, "padd_unavailable")
	if !strings.Contains(r.stderr, "cannot find the padd binary") {
		t.Errorf("the reason is not given:\n%s", r.stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failing took %s", d)
	}
}

// assertFailure checks a failed run: the exit code, stdout empty, and
// stderr holding `error: ... (<code>)` and a hint.
func assertFailure(t testing.TB, r result, exit int, code string) {
	t.Helper()
	if r.code != exit {
		t.Errorf("exit %d, want %d: %s", r.code, exit, r)
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty on failure: %s", r)
	}
	if !strings.HasPrefix(r.stderr, "error: ") || !strings.Contains(r.stderr, "("+code+")\n") || !strings.Contains(r.stderr, "\nhint: ") {
		t.Errorf("stderr lacks `error: ... (%s)` and a hint:\n%s", code, r.stderr)
	}
}

// TestE2EVersionMismatch: a padd of another version is used, and
// padctl warns once on stderr, however many requests the command makes,
// while stdout stays valid JSON.
func TestE2EVersionMismatch(t *testing.T) {
	binaries(t)
	other := filepath.Join(t.TempDir(), "padd")
	if err := goBuild(other, []string{"-ldflags", "-X github.com/padd/padd/api.Version=v0.0.0-other"}, "./cmd/padd"); err != nil {
		t.Fatal(err)
	}
	home := startPadd(t, other)
	dir := t.TempDir()
	r := ok(t, home, dir, "init", "--name", "mismatch", "--format", "json") // lists, then creates: several answers
	decode[map[string]any](t, r)
	want := "warning: padd is version v0.0.0-other but padctl is " + api.Version
	if n := strings.Count(r.stderr, want); n != 1 {
		t.Errorf("mismatch warned %d times, want once:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "padctl daemon restart") {
		t.Errorf("warning gives no fix: %s", r.stderr)
	}
}

// startPadd runs a padd binary on a fresh PAD_HOME, waits until it
// answers, and stops it at the end of the test.
func startPadd(t testing.TB, bin string) string {
	t.Helper()
	return startPaddIn(t, bin, t.TempDir())
}

// startPaddIn starts padd on home and waits until it answers.
func startPaddIn(t testing.TB, bin, home string) string {
	t.Helper()
	cmd := exec.Command(bin, "--quiet", "--port", "0")
	cmd.Env = testEnv(home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(reaped) }()
	t.Cleanup(func() {
		_ = terminate(cmd.Process.Pid)
		select {
		case <-reaped:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("padd did not exit on SIGTERM")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		if _, _, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home}); err == nil {
			return home
		}
		select {
		case <-reaped:
			t.Fatalf("padd exited while starting: %s", errb.String())
		case <-ctx.Done():
			t.Fatalf("padd did not answer: %s", errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// runInProcess runs cli.Run against the padd of home without starting
// one, with a fixed style, and returns what it printed.
func runInProcess(t testing.TB, home, dir string, envVars map[string]string, args ...string) result {
	t.Helper()
	var out, errb testbin.Buffer
	code := Run(context.Background(), args, inProcessEnv(home, dir, envVars, &out, &errb))
	return result{out.String(), errb.String(), code}
}

// inProcess runs padctl in-process against the padd of home, in dir:
// run answers what it printed, must also fails the test unless it exits 0.
func inProcess(t *testing.T, home, dir string) (run, must func(args ...string) result) {
	run = func(args ...string) result {
		t.Helper()
		return runInProcess(t, home, dir, nil, args...)
	}
	must = func(args ...string) result {
		t.Helper()
		r := run(args...)
		if r.code != 0 {
			t.Fatalf("padctl %v: %s", args, r)
		}
		return r
	}
	return run, must
}

func inProcessEnv(home, dir string, envVars map[string]string, out, errw io.Writer) Env {
	return Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errw, Dir: dir, Now: time.Now,
		LookupEnv: env(envVars), Style: &Style{Width: DefaultWidth},
		Connect: func(ctx context.Context, start bool) (*api.Client, *launch.Info, error) {
			return launch.Connect(ctx, launch.ConnectOptions{DataDir: home})
		}}
}

// TestWorkspaceResolution runs padctl in-process against a real padd:
// --workspace beats PAD_WORKSPACE beats .pad.toml beats the only
// workspace.
func TestWorkspaceResolution(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	linked := t.TempDir()
	write(t, filepath.Join(linked, PadTomlName), "workspace = \"beta\"\n")
	bare := t.TempDir()
	run := func(dir string, vars map[string]string, args ...string) result {
		t.Helper()
		return runInProcess(t, home, dir, vars, args...)
	}
	// One workspace: it is implied.
	if r := run(bare, nil, "workspace", "create", "Alpha"); r.code != 0 {
		t.Fatal(r)
	}
	if r := run(bare, nil, "workspace", "show", "--format", "json"); !strings.Contains(r.stdout, `"slug": "alpha"`) {
		t.Errorf("only workspace not implied: %s", r)
	}
	if r := run(bare, nil, "workspace", "create", "Beta"); r.code != 0 {
		t.Fatal(r)
	}
	if r := run(bare, nil, "workspace", "create", "Gamma"); r.code != 0 {
		t.Fatal(r)
	}
	slugOf := func(r result) string {
		t.Helper()
		var ws struct{ Slug string }
		if err := json.Unmarshal([]byte(r.stdout), &ws); err != nil {
			t.Fatalf("%v: %s", err, r)
		}
		return ws.Slug
	}
	cases := []struct {
		name string
		dir  string
		vars map[string]string
		args []string
		want string
	}{
		{".pad.toml", linked, nil, nil, "beta"},
		{"PAD_WORKSPACE beats .pad.toml", linked, map[string]string{"PAD_WORKSPACE": "gamma"}, nil, "gamma"},
		{"--workspace beats PAD_WORKSPACE", linked, map[string]string{"PAD_WORKSPACE": "gamma"}, []string{"-w", "alpha"}, "alpha"},
		{"PAD_WORKSPACE without .pad.toml", bare, map[string]string{"PAD_WORKSPACE": "beta"}, nil, "beta"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(c.dir, c.vars, append(c.args, "workspace", "show", "--format", "json")...)
			if got := slugOf(r); got != c.want {
				t.Errorf("resolved %q, want %q", got, c.want)
			}
		})
	}
	// Several workspaces and nothing to choose: a clear refusal.
	r := run(bare, nil, "item", "list")
	if r.code != ExitError || !strings.Contains(r.stderr, "(no_workspace)") || !strings.Contains(r.stderr, "available: alpha, beta, gamma") {
		t.Errorf("ambiguous workspace: %s", r)
	}
	// A .pad.toml naming a workspace padd does not know says where the
	// name came from.
	write(t, filepath.Join(linked, PadTomlName), "workspace = \"ghost\"\n")
	r = run(linked, nil, "item", "list")
	if r.code != ExitError || !strings.Contains(r.stderr, `"ghost" comes from `+filepath.Join(linked, PadTomlName)) {
		t.Errorf("unknown workspace from .pad.toml: %s", r)
	}
}

// TestListPagingAndWarnings: notes and warnings go to stderr only, so
// --format json output stays parseable.
func TestListPagingAndWarnings(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run := func(args ...string) result {
		t.Helper()
		r := runInProcess(t, home, dir, nil, args...)
		if r.code != 0 {
			t.Fatalf("padctl %v: %s", args, r)
		}
		return r
	}
	run("workspace", "create", "Paging")
	for i := 0; i < 3; i++ {
		run("item", "create", "tasks", fmt.Sprintf("item %d", i))
	}
	r := run("item", "list", "--limit", "2", "--format", "json")
	if got := decode[[]itemResult](t, r); len(got) != 2 {
		t.Errorf("--limit 2 gave %d items", len(got))
	}
	if !strings.Contains(r.stderr, "note: more items match than the 2 shown; add --offset 2") {
		t.Errorf("no paging note on stderr: %s", r)
	}
	r = run("item", "list", "--limit", "2", "--offset", "2", "--format", "json")
	if got := decode[[]itemResult](t, r); len(got) != 1 || r.stderr != "" {
		t.Errorf("last page: %d items, stderr %q", len(got), r.stderr)
	}
	// A write warning from padd (an undeclared field) goes to stderr.
	r = run("item", "create", "tasks", "odd", "-f", "mood=happy", "--format", "json")
	if it := decode[itemResult](t, r); it.Fields["mood"] != "happy" {
		t.Errorf("undeclared field not stored: %+v", it)
	}
	if !strings.Contains(r.stderr, "warning: fields not declared by the collection were stored as given: mood") {
		t.Errorf("no undeclared-field warning on stderr: %s", r)
	}
	// --fields-json carries typed values; -f values are typed by padd
	// from the schema.
	run("collection", "create", "Estimates", "--fields", "estimate:number; status:select:open,done")
	r = run("item", "create", "estimates", "typed", "--fields-json", `{"estimate": 2.5}`, "--format", "json")
	if it := decode[itemResult](t, r); it.Fields["estimate"] != 2.5 {
		t.Errorf("--fields-json estimate = %#v", it.Fields["estimate"])
	}
	r = run("item", "create", "estimates", "entry", "-f", "estimate=3", "--format", "json")
	if it := decode[itemResult](t, r); it.Fields["estimate"] != float64(3) {
		t.Errorf("-f estimate=3 stored as %#v, want the number 3", it.Fields["estimate"])
	}
	// Nothing to update is a usage error, before any request.
	if r := runInProcess(t, home, dir, nil, "item", "update", "TASK-1"); r.code != ExitUsage || !strings.Contains(r.stderr, "(nothing_to_update)") {
		t.Errorf("empty update: %s", r)
	}
}

// TestE2ECompletion: the shell calls padctl with COMP_LINE; candidates
// come from the kong model and, for names, from the running padd.
func TestE2ECompletion(t *testing.T) {
	_, bin := binaries(t)
	home := t.TempDir()
	stopPaddOf(t, home)
	dir := t.TempDir()
	complete := func(line string) []string {
		t.Helper()
		r := runBin(t, bin, testEnv(home, "COMP_LINE="+line, fmt.Sprintf("COMP_POINT=%d", len(line))), dir, "")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("completion of %q: %s", line, r)
		}
		return strings.Fields(r.stdout)
	}
	if got := complete("padctl it"); strings.Join(got, " ") != "item" {
		t.Errorf("padctl it<TAB> = %v", got)
	}
	if got := complete("padctl --format "); strings.Join(slices.Sorted(slices.Values(got)), " ") != "json markdown table" {
		t.Errorf("--format <TAB> = %v", got)
	}
	// Completion never starts padd.
	if got := complete("padctl item create "); len(got) != 0 {
		t.Errorf("collections completed with no padd running: %v", got)
	}
	if _, err := launch.ReadInfo(home); !errors.Is(err, launch.ErrNoDaemon) {
		t.Fatalf("completion started padd")
	}
	ok(t, home, dir, "init", "--name", "comp")
	if got := complete("padctl item list "); !slices.Contains(got, "tasks") || !slices.Contains(got, "ideas") {
		t.Errorf("item list <TAB> = %v, want the collections", got)
	}
	if got := complete("padctl workspace show c"); strings.Join(got, " ") != "comp" {
		t.Errorf("workspace show c<TAB> = %v", got)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := ok(t, home, dir, "completion", shell)
		if !strings.Contains(r.stdout, bin) {
			t.Errorf("%s script does not run %s:\n%s", shell, bin, r.stdout)
		}
	}
}

// TestE2EDaemonCommands: start, logs, restart.
func TestE2EDaemonCommands(t *testing.T) {
	home := t.TempDir()
	stopPaddOf(t, home)
	dir := t.TempDir()
	r := ok(t, home, dir, "daemon", "start")
	if !strings.HasPrefix(r.stdout, "Started padd ") {
		t.Errorf("start: %s", r)
	}
	if r := ok(t, home, dir, "daemon", "start"); !strings.HasPrefix(r.stdout, "Already running: padd ") {
		t.Errorf("second start: %s", r)
	}
	before, _ := launch.ReadInfo(home)
	r = ok(t, home, dir, "daemon", "logs", "-n", "2", "--format", "json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("logs -n 2: %s", r)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("log line is not JSON: %q", l)
		}
	}
	if r := ok(t, home, dir, "daemon", "logs"); !strings.Contains(r.stdout, "padd serving") {
		t.Errorf("logs lack the serving line: %s", r)
	}
	r = ok(t, home, dir, "daemon", "restart")
	after, err := launch.ReadInfo(home)
	if err != nil || after.PID == before.PID || launch.ProcessAlive(before.PID) || !launch.ProcessAlive(after.PID) {
		t.Errorf("restart: before %+v after %+v (%v): %s", before, after, err, r)
	}
}

// TestCommentsLinksWatch covers the commands over the routes around
// items, in-process against a real padd.
func TestCommentsLinksWatch(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run, must := inProcess(t, home, dir)
	must("workspace", "create", "Around")
	for _, title := range []string{"A", "B", "C"} {
		must("item", "create", "tasks", title)
	}

	// Comments: a comment, a reply to it, the list.
	first := decode[api.Comment](t, must("item", "comment", "TASK-1", "looks good", "--format", "json"))
	reply := decode[api.Comment](t, must("item", "comment", "TASK-1", "thanks", "--reply-to", first.ID, "--format", "json"))
	if reply.ParentID != first.ID {
		t.Errorf("reply parent_id = %q, want %q", reply.ParentID, first.ID)
	}
	list := decode[[]api.Comment](t, must("item", "comments", "TASK-1", "--format", "json"))
	if len(list) != 2 || list[0].Body != "looks good" || list[1].Body != "thanks" {
		t.Errorf("comments = %+v", list)
	}
	if r := must("item", "comments", "TASK-1"); !strings.Contains(r.stdout, "\n    ") {
		t.Errorf("reply not indented under its comment:\n%s", r.stdout)
	}
	if r := run("item", "comment", "TASK-1", "  "); r.code != ExitUsage {
		t.Errorf("empty comment: %s", r)
	}

	// Reactions: one, the same again (one stays), the sum under the
	// comment, taken back, and one not there.
	react := decode[api.Reaction](t, must("item", "react", first.ID, "👍", "--format", "json"))
	if again := decode[api.Reaction](t, must("item", "react", first.ID, "👍", "--format", "json")); again.ID != react.ID || react.Emoji != "👍" {
		t.Errorf("reactions %+v then %+v", react, again)
	}
	if r := must("item", "comments", "TASK-1"); !strings.Contains(r.stdout, "👍 1") {
		t.Errorf("reaction not under its comment:\n%s", r.stdout)
	}
	must("item", "react", first.ID, "👍", "--remove")
	if r := run("item", "react", first.ID, "👍", "--remove"); r.code == 0 || !strings.Contains(r.stderr, "Reaction not found") {
		t.Errorf("taking back one not there: %s", r)
	}

	// Links: create, refuse a duplicate, list from both sides, remove by
	// the inverse name.
	l := decode[api.ItemLink](t, must("item", "link", "TASK-1", "blocks", "TASK-2", "--format", "json"))
	if l.SourceRef != "TASK-1" || l.TargetRef != "TASK-2" || l.LinkType != "blocks" {
		t.Errorf("link = %+v", l)
	}
	assertFailure(t, run("item", "link", "TASK-1", "blocks", "TASK-2"), ExitError, "conflict")
	if r := must("item", "links", "TASK-2"); !strings.Contains(r.stdout, "blocked-by  TASK-1") {
		t.Errorf("links from the target's side:\n%s", r.stdout)
	}
	if got := decode[map[string]any](t, must("item", "unlink", "TASK-2", "blocked-by", "TASK-1", "--format", "json")); got["status"] != "removed" || got["link_id"] != l.ID {
		t.Errorf("unlink = %v", got)
	}
	assertFailure(t, run("item", "unlink", "TASK-1", "blocks", "TASK-2"), ExitError, "not_found")
	r := run("item", "link", "TASK-1", "frobs", "TASK-2")
	assertFailure(t, r, ExitError, "bad_request")
	if !strings.Contains(r.stderr, "hint: use one of: blocks, blocked-by") {
		t.Errorf("bad link type hint:\n%s", r.stderr)
	}

	// Watch: events as they happen, filtered to one item, one JSON
	// object per line; Ctrl-C (the context) ends it with exit 0.
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb testbin.Buffer
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"watch", "TASK-2", "--format", "json"}, inProcessEnv(home, dir, nil, &out, &errb))
	}()
	cl, _, err := launch.Connect(context.Background(), launch.ConnectOptions{DataDir: home})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testwait.Limit)
	for n := 0; !strings.Contains(out.String(), `"ref":"TASK-2"`); n++ {
		if time.Now().After(deadline) {
			t.Fatalf("watch printed nothing for TASK-2's update:\n%s\n%s", out.String(), errb.String())
		}
		// Until the stream is connected an update goes unseen, so keep
		// writing: TASK-3's first, which the filter must drop.
		for _, ref := range []string{"TASK-3", "TASK-2"} {
			if _, err := cl.UpdateItem(context.Background(), "around", ref, api.ItemUpdate{Title: strp(fmt.Sprintf("%s %d", ref, n))}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch exited %d: %s", code, errb.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e api.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("watch line is not an event: %q", line)
		}
		if e.Ref != "TASK-2" || e.Type != "item_updated" {
			t.Errorf("watch printed %+v, want TASK-2's updates only", e)
		}
	}
}
