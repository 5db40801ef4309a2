//go:build unix

// Package e2e drives the real padd binary as a separate process: built
// once by TestMain with `go build`, started with a temporary PAD_HOME and
// a free loopback port, and talked to with api.Client and raw net/http.
// Every started padd is killed (and reaped) by t.Cleanup; on Linux it
// also dies with the test binary (Pdeathsig), so none is ever leaked.
//
// When the tests run with -race, padd is built with -race too and any
// data race it reports on stderr fails the test that started it.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
)

var (
	paddBin   string // the padd binary under test
	padctlBin string // the padctl binary
	raceBuild bool   // binaries were built with -race
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	raceBuild = testbin.Race()
	bins, err := testbin.PaddForRun(root, raceBuild)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer bins.Done()
	paddBin, padctlBin = bins.Padd, bins.Padctl
	defer func() {
		if seedDir != "" {
			os.RemoveAll(seedDir) // the benchmarks' generated workspace
		}
	}()
	return m.Run()
}

// proc is one started padd process.
type proc struct {
	t      testing.TB
	home   string
	port   int
	cmd    *exec.Cmd
	stderr *testbin.Buffer
	exited chan struct{} // closed once the process is reaped
	state  *os.ProcessState
}

// spawn starts padd on home with args and registers its cleanup: kill -9
// if still running, reap, and fail the test on a data race report.
func spawn(t testing.TB, home string, args ...string) *proc {
	t.Helper()
	return spawnEnv(t, home, nil, args...)
}

// spawnEnv is spawn with extra environment variables (KEY=value).
func spawnEnv(t testing.TB, home string, extra []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(paddBin, args...)
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAD_HOME=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(append(env, "PAD_HOME="+home, "GORACE=halt_on_error=0"), extra...)
	p := &proc{t: t, home: home, cmd: cmd, stderr: &testbin.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout = io.Discard
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", paddBin, err)
	}
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	t.Cleanup(func() {
		if !p.done() {
			_ = cmd.Process.Kill()
		}
		select {
		case <-p.exited:
		case <-time.After(15 * time.Second):
			t.Errorf("padd pid %d was not reaped 15s after SIGKILL", cmd.Process.Pid)
		}
		out := p.stderr.String()
		if strings.Contains(out, "WARNING: DATA RACE") {
			t.Errorf("padd pid %d reported a data race:\n%s", cmd.Process.Pid, out)
		} else if t.Failed() {
			t.Logf("stderr of padd pid %d:\n%s", cmd.Process.Pid, tail(out, 6000))
		}
	})
	return p
}

// quietLog is the logger of the databases the tests open themselves
// (padd stopped): warnings and errors, not INFO lines such as the
// replay after a kill, which the tests expect.
var quietLog = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

// runSeed is the seed a randomized test runs with: v, or one from the
// clock when v is 0. It logs the seed with the flag that replays it.
func runSeed(t testing.TB, flagName string, v uint64) uint64 {
	t.Helper()
	if v == 0 {
		v = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun: -%s=%d)", v, flagName, v)
	return v
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// waitExit waits up to d for the process to exit and returns its exit
// code (-1 when a signal ended it); ok is false on timeout.
func (p *proc) waitExit(d time.Duration) (code int, ok bool) {
	select {
	case <-p.exited:
		return p.state.ExitCode(), true
	case <-time.After(d):
		return 0, false
	}
}

func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil && !p.done() {
		p.t.Fatalf("signal %v to padd pid %d: %v", sig, p.pid(), err)
	}
}

// kill9 kills padd with SIGKILL and waits until it is reaped, so its pid
// is really gone and its file locks are released.
func (p *proc) kill9() {
	p.t.Helper()
	p.signal(syscall.SIGKILL)
	if _, ok := p.waitExit(10 * time.Second); !ok {
		p.t.Fatalf("padd pid %d did not die within 10s of SIGKILL", p.pid())
	}
}

// stop sends SIGTERM and requires a clean exit (code 0) within 15s.
func (p *proc) stop() {
	p.t.Helper()
	p.signal(syscall.SIGTERM)
	code, ok := p.waitExit(15 * time.Second)
	if !ok {
		p.t.Fatalf("padd pid %d did not exit within 15s of SIGTERM", p.pid())
	}
	if code != 0 {
		p.t.Fatalf("padd pid %d exited %d after SIGTERM, want 0; stderr:\n%s", p.pid(), code, tail(p.stderr.String(), 4000))
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := testbin.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// instance is a padd that is serving.
type instance struct {
	*proc
	info   *launch.Info
	base   string // http://127.0.0.1:<port>
	http   *http.Client
	client *api.Client
}

// startPadd starts padd on home with a free port and waits until it
// serves: daemon.json names its pid and health answers.
func startPadd(t testing.TB, home string) *instance {
	t.Helper()
	return startPaddEnv(t, home, nil)
}

// startPaddEnv is startPadd with extra environment variables.
func startPaddEnv(t testing.TB, home string, env []string) *instance {
	t.Helper()
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		p := spawnEnv(t, home, env, "--port", strconv.Itoa(port))
		p.port = port
		d, err := waitServing(p, testwait.Limit)
		if err == nil {
			return d
		}
		// Another process took the port between freePort and padd's bind.
		if p.done() && strings.Contains(p.stderr.String(), "address already in use") && attempt < 4 {
			continue
		}
		t.Fatalf("padd did not start: %v\nstderr:\n%s", err, tail(p.stderr.String(), 4000))
	}
}

func waitServing(p *proc, timeout time.Duration) (*instance, error) {
	deadline := time.Now().Add(timeout)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: 128, MaxIdleConnsPerHost: 128, IdleConnTimeout: 30 * time.Second}}
	for time.Now().Before(deadline) {
		if p.done() {
			return nil, fmt.Errorf("padd exited with code %d while starting", p.state.ExitCode())
		}
		info, err := launch.ReadInfo(p.home)
		if err == nil && info.PID == p.pid() {
			base := "http://127.0.0.1:" + strconv.Itoa(info.Port)
			req, _ := http.NewRequest("GET", base+"/api/v1/health", nil)
			if resp, err := hc.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					c := api.NewClient(base, info.Token)
					c.HTTP = hc
					d := &instance{proc: p, info: info, base: base, http: hc, client: c}
					p.t.Cleanup(hc.CloseIdleConnections)
					return d, nil
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, fmt.Errorf("padd pid %d did not serve within %s", p.pid(), timeout)
}

// reply is a raw HTTP answer.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.Status, tail(string(r.Body), 600)) }

// request makes a request to padd with its token; path starts with /api/v1.
func (d *instance) request(ctx context.Context, method, path string, body []byte) *http.Request {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, rd)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.info.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// send sends a request and reads the whole answer.
func (d *instance) send(req *http.Request) (reply, error) {
	resp, err := d.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// do sends an authenticated request and fails the test on a transport
// error.
func (d *instance) do(t testing.TB, method, path string, body []byte) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := d.send(d.request(ctx, method, path, body))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// mustJSON encodes v.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decode decodes a JSON answer into v, failing the test otherwise.
func decode(t testing.TB, r reply, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("answer is not JSON (%v): %s", err, r)
	}
}

// wantStatus fails the test unless r has status.
func wantStatus(t testing.TB, r reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r)
	}
}

// wantError checks Pad's error envelope {"error":{"code","message"[,
// "details"]}} with status and code, and returns the details.
func wantError(t testing.TB, r reply, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d (%s): %s", r.Status, status, code, r)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error answer has Content-Type %q, want application/json", ct)
	}
	if r.Header.Get(api.VersionHeader) == "" {
		t.Errorf("error answer has no %s header (every padd answer carries its version)", api.VersionHeader)
	}
	var env map[string]json.RawMessage
	decode(t, r, &env)
	if len(env) != 1 || env["error"] == nil {
		t.Fatalf("error answer is not {\"error\":{...}}: %s", r.Body)
	}
	var e struct {
		Code    *string        `json:"code"`
		Message *string        `json:"message"`
		Details map[string]any `json:"details"`
	}
	dec := json.NewDecoder(bytes.NewReader(env["error"]))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("error member is not an object: %s", r.Body)
	}
	if e.Code == nil || *e.Code != code {
		t.Fatalf("error code %v, want %q: %s", strp(e.Code), code, r.Body)
	}
	if e.Message == nil || strings.TrimSpace(*e.Message) == "" {
		t.Fatalf("error has no message: %s", r.Body)
	}
	return e.Details
}

func strp(s *string) string {
	if s == nil {
		return "<absent>"
	}
	return *s
}

// mkWorkspace creates a workspace (startup template: tasks, ideas, ...)
// and returns its slug.
func (d *instance) mkWorkspace(t testing.TB, name string) string {
	t.Helper()
	var ws api.Workspace
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.client.Do(ctx, "POST", "/workspaces", nil, api.WorkspaceCreate{Name: name}, &ws); err != nil {
		t.Fatalf("create workspace %q: %v", name, err)
	}
	if ws.Slug == "" {
		t.Fatalf("created workspace %q has no slug", name)
	}
	return ws.Slug
}

// createItem creates an item through api.Client and returns it.
func (d *instance) createItem(t testing.TB, ws, coll string, in api.ItemCreate) api.Item {
	t.Helper()
	var it api.Item
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.client.Do(ctx, "POST", "/workspaces/"+ws+"/collections/"+coll+"/items", nil, in, &it); err != nil {
		t.Fatalf("create item %q: %v", in.Title, err)
	}
	return it
}

// getItem reads an item through api.Client.
func (d *instance) getItem(t testing.TB, ws, ref string) (api.Item, error) {
	t.Helper()
	var it api.Item
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := d.client.Do(ctx, "GET", "/workspaces/"+ws+"/items/"+api.PathEscape(ref), nil, nil, &it)
	return it, err
}

// acks records the writes padd acknowledged, safe for many writers.
type acks struct {
	mu     sync.Mutex
	titles map[string]string // item id -> title
	errs   []string          // unexpected answers
}

func newAcks() *acks { return &acks{titles: map[string]string{}} }

func (a *acks) add(id, title string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.titles[id] = title
	return len(a.titles)
}

func (a *acks) fail(msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.errs) < 20 {
		a.errs = append(a.errs, msg)
	}
}

func (a *acks) n() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.titles)
}

func (a *acks) snapshot() (map[string]string, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := make(map[string]string, len(a.titles))
	for k, v := range a.titles {
		m[k] = v
	}
	return m, append([]string(nil), a.errs...)
}

// searchMarker is a word in the content of every item createLoop makes.
const searchMarker = "zanzibar"

// createLoop creates items in ws/tasks as fast as it can until ctx ends
// or padd stops answering, recording every 201. A transport error (padd
// died or is shutting down) ends the loop quietly; any other non-201
// answer is recorded as unexpected.
func (d *instance) createLoop(ctx context.Context, ws, prefix string, a *acks) {
	path := "/api/v1/workspaces/" + ws + "/collections/tasks/items"
	for i := 0; ctx.Err() == nil; i++ {
		title := fmt.Sprintf("%s-%d", prefix, i)
		body, _ := json.Marshal(map[string]any{"title": title, "content": "body of " + title + " " + searchMarker,
			"fields": map[string]any{"priority": "high"}, "tags": []string{prefix}})
		r, err := d.send(d.request(ctx, "POST", path, body))
		if err != nil {
			if ctx.Err() == nil && !isGone(err) {
				a.fail(fmt.Sprintf("POST %s: %v", title, err))
			}
			return
		}
		if r.Status != 201 {
			a.fail(fmt.Sprintf("POST %s: %s", title, r))
			continue
		}
		var it struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		}
		if json.Unmarshal(r.Body, &it) != nil || it.ID == "" || it.Title != title {
			a.fail(fmt.Sprintf("POST %s: 201 with an odd body: %s", title, r))
			continue
		}
		a.add(it.ID, title)
	}
}

// isGone reports a transport error that means padd went away (killed or
// shut down) mid-request.
func isGone(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "server closed idle connection") ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe") ||
		strings.Contains(err.Error(), "connection refused")
}
