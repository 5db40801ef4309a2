package mcpstdio_test

// The end-to-end tests run the real binaries: TestMain builds padd and
// padctl, each test starts its own padd on a temporary PAD_HOME, and the
// official MCP Go SDK client (a client we did not write) launches
// `padctl mcp serve` as a subprocess and talks to it over real stdio.
//
// When the tests run with -race the binaries are built with -race too,
// and a data race reported on any child's stderr fails the test.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/leakcheck"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
)

var (
	paddBin, padctlBin string
	raceBuild          bool
)

// Protocol versions the tests play: the go-sdk default (stateless
// server/discover) and the initialize handshake.
const (
	protoModern = "2026-07-28"
	protoLegacy = "2025-11-25"
)

// TestMain runs the tests (runMain) and fails them if a goroutine they
// started is still running after them.
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(mainRun{m}) }

// mainRun is runMain as leakcheck's (goleak's) TestingM.
type mainRun struct{ m *testing.M }

func (r mainRun) Run() int { return runMain(r.m) }

func runMain(m *testing.M) int {
	if dir := os.Getenv(cannedEnv); dir != "" {
		if err := serveCanned(dir); err != nil {
			fmt.Fprintln(os.Stderr, "canned server:", err)
			return 1
		}
		return 0
	}
	raceBuild = testbin.Race()
	bins, err := testbin.PaddForRun("..", raceBuild)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer bins.Done()
	paddBin, padctlBin = bins.Padd, bins.Padctl
	return m.Run()
}

// checkChild fails the test on a race report in a child's stderr, and
// shows the stderr when the test failed anyway.
func checkChild(t testing.TB, what string, stderr *testbin.Buffer) {
	out := stderr.String()
	if strings.Contains(out, "WARNING: DATA RACE") {
		t.Errorf("%s reported a data race:\n%s", what, out)
	} else if t.Failed() && out != "" {
		t.Logf("stderr of %s:\n%s", what, out)
	}
}

// childEnv is the environment of a child: ours without the variables
// that would point it at the user's own padd or workspace.
func childEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PAD_HOME", "PAD_WORKSPACE", "PAD_AGENT", "GORACE":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "PAD_HOME="+home, "GORACE=halt_on_error=0"), extra...)
}

// env is one padd on its own data directory.
type env struct {
	t    testing.TB
	home string
	api  *api.Client // straight to padd, for setup and checks
}

// newEnv starts padd on a fresh PAD_HOME and waits until it answers.
func newEnv(t testing.TB) *env {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(paddBin)
	cmd.Env = childEnv(home)
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		checkChild(t, "padd", stderr)
	})
	e := &env{t: t, home: home}
	deadline := time.Now().Add(testwait.Limit)
	for {
		c, _, err := launch.Connect(context.Background(), launch.ConnectOptions{DataDir: home})
		if err == nil {
			e.api = c
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("padd did not answer: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// do calls padd's API directly.
func (e *env) do(method, path string, body, out any) {
	e.t.Helper()
	if _, err := e.api.Do(context.Background(), method, path, nil, body, out); err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
}

func (e *env) workspace(name string) string {
	e.t.Helper()
	var w api.Workspace
	e.do("POST", "/workspaces", api.WorkspaceCreate{Name: name}, &w)
	return w.Slug
}

func (e *env) item(ws, ref string) api.Item {
	e.t.Helper()
	var it api.Item
	e.do("GET", "/workspaces/"+ws+"/items/"+url.PathEscape(ref), nil, &it)
	return it
}

// sessionOpts say how a client starts its server.
type sessionOpts struct {
	proto   string   // "" = the go-sdk default (2026-07-28)
	name    string   // clientInfo.name
	dir     string   // the server's working directory ("" = a fresh temp dir)
	env     []string // extra environment
	roots   []string // file:// roots the client offers
	noRoots bool     // declare no roots capability at all
}

// session launches `padctl mcp serve` through the go-sdk client.
func (e *env) session(o sessionOpts) *sdk.ClientSession {
	e.t.Helper()
	if o.name == "" {
		o.name = "e2e-agent"
	}
	if o.dir == "" {
		o.dir = e.t.TempDir()
	}
	var copts *sdk.ClientOptions
	if o.noRoots {
		copts = &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: o.name, Version: "1.0"}, copts)
	for _, r := range o.roots {
		client.AddRoots(&sdk.Root{URI: "file://" + r, Name: filepath.Base(r)})
	}
	cmd := exec.Command(padctlBin, "mcp", "serve")
	cmd.Env = childEnv(e.home, o.env...)
	cmd.Dir = o.dir
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
		&sdk.ClientSessionOptions{ProtocolVersion: o.proto})
	if err != nil {
		e.t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	e.t.Cleanup(func() {
		_ = cs.Close()
		checkChild(e.t, "padctl mcp serve", stderr)
	})
	return cs
}

// result is a decoded tool answer.
type result struct {
	isError bool
	value   map[string]any // the first text block as JSON
	texts   []string       // every text block
}

func (r result) str(path ...string) string {
	v := r.get(path...)
	if s, ok := v.(string); ok {
		return s
	}
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return fmt.Sprint(v)
}

// get walks a path of object keys and array indexes ("0").
func (r result) get(path ...string) any {
	var v any = r.value
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (r result) list(path ...string) []any {
	l, _ := r.get(path...).([]any)
	return l
}

func decodeJSON(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	err := dec.Decode(&m)
	return m, err
}

// callTool calls a tool and decodes its answer; a protocol error fails.
func callTool(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	var r result
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			r.texts = append(r.texts, tc.Text)
		}
	}
	if len(r.texts) == 0 {
		t.Fatalf("%s: no text content", tool)
	}
	m, err := decodeJSON(r.texts[0])
	if err != nil {
		t.Fatalf("%s: answer is not a JSON object: %v\n%s", tool, err, r.texts[0])
	}
	r.value = m
	return r
}

// ok calls a tool that must succeed.
func ok(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) result {
	t.Helper()
	r := callTool(t, cs, tool, args)
	if r.isError {
		t.Fatalf("%s %v refused: %s", tool, args, r.texts[0])
	}
	return r
}

// refused calls a tool that must answer a tool error with code, and
// checks the error's shape: {code, message, hint, details}.
func refused(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any, code string) result {
	t.Helper()
	r := callTool(t, cs, tool, args)
	if !r.isError {
		t.Fatalf("%s %v: accepted, want %s:\n%s", tool, args, code, r.texts[0])
	}
	if r.str("code") != code {
		t.Fatalf("%s %v: code %s, want %s: %s", tool, args, r.str("code"), code, r.texts[0])
	}
	if r.str("message") == "" || r.str("hint") == "" {
		t.Errorf("%s: refusal without message or hint: %s", tool, r.texts[0])
	}
	return r
}

func readResource(t testing.TB, cs *sdk.ClientSession, uri string) []*sdk.ResourceContents {
	t.Helper()
	rr, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return rr.Contents
}

// stopPaddOf shuts down a padd that padctl started on home, and waits
// for it to leave.
func stopPaddOf(t testing.TB, home string) {
	info, err := launch.ReadInfo(home)
	if err != nil {
		return
	}
	c := api.NewClient(info.URL(), info.Token)
	_, _ = c.Do(context.Background(), "POST", "/padd/shutdown", nil, nil, nil)
	deadline := time.Now().Add(testwait.Limit)
	for launch.ProcessAlive(info.PID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if launch.ProcessAlive(info.PID) {
		if p, err := os.FindProcess(info.PID); err == nil {
			_ = p.Kill()
		}
		t.Errorf("padd pid %d did not stop", info.PID)
	}
}
