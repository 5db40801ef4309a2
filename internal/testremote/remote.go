// Package testremote gives the sync engine's tests a remote Pad server
// in every run: a second padd, started by the test on a data directory
// of its own, which speaks Pad's API because padd's API is Pad's.
//
// In front of it sits an in-process reverse proxy on loopback (proxy.go)
// that counts requests, can rate-limit them the way Pad does, can inject
// faults (drops, delays, error answers) and, with Options.Aug2026, makes
// the second padd answer like the Pad of August 2026 where that Pad
// behaves differently (aug2026.go; docs/SYNC.md, "The test remote").
// None of it is a mode of padd itself: padd is the product as built.
package testremote

import (
	"errors"
	"fmt"
	"io"
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

// Options configure a Remote.
type Options struct {
	// Aug2026 makes the proxy answer as the Pad of August 2026 does where
	// it differs from padd: no idempotency keys, no expected_seq, no
	// paged /changes, whole-second times, no list paging headers
	// (aug2026.go).
	Aug2026 bool
	// NoAttachments makes the proxy answer as a Pad without attachment
	// storage: 503 attachments_disabled on every attachment route.
	NoAttachments bool
	// RateLimit is the requests a second the proxy lets through to /api/
	// (one bucket for the remote, as Pad keeps one per user); 0 means no
	// limit. Over it the proxy answers 429 rate_limited with
	// Retry-After: 1, as Pad does.
	RateLimit float64
	// Burst is the bucket's size; 0 means 1.
	Burst int
	// Direct starts no proxy: URL is padd's own. Aug2026, RateLimit,
	// Stats and SetFault need the proxy, so Direct refuses them.
	Direct bool
	// Env adds environment variables (KEY=value) to padd's, such as its
	// limits (daemon.LimitsFromEnv).
	Env []string
}

// Remote is a second padd serving as a remote Pad server, and the proxy
// in front of it.
type Remote struct {
	opts  Options
	bin   string
	dir   string
	port  int
	token string
	hc    *http.Client // to padd itself: health checks and API()
	api   *api.Client
	proxy *proxy // nil with Direct

	mu   sync.Mutex
	proc *proc // the running padd; nil while stopped
}

// proc is one started padd process.
type proc struct {
	cmd    *exec.Cmd
	stderr *testbin.Buffer
	exited chan struct{} // closed once reaped
	state  *os.ProcessState
}

func (p *proc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Start starts padd on a new temporary data directory and a free
// loopback port, waits until it serves, puts the proxy in front (unless
// opts.Direct) and registers the cleanup that stops both and waits for
// padd's exit. A data race padd reports fails t.
func Start(t testing.TB, opts Options) *Remote {
	t.Helper()
	if opts.Direct && (opts.Aug2026 || opts.RateLimit > 0) {
		t.Fatal("testremote: Aug2026 and RateLimit need the proxy; drop Direct")
	}
	bin, err := paddBinary()
	if err != nil {
		t.Fatalf("testremote: build padd: %v", err)
	}
	r := &Remote{opts: opts, bin: bin, dir: t.TempDir()}
	r.hc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(r.hc.CloseIdleConnections)
	if !opts.Direct {
		r.proxy = newProxy(opts)
		t.Cleanup(r.proxy.close) // runs after padd's stop below: streams through it end first
	}
	t.Cleanup(func() { r.stop(t) })
	for attempt := 0; ; attempt++ {
		port, err := testbin.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		r.port = port
		err = r.start(t)
		if err == nil {
			break
		}
		// Another process took the port between FreePort and padd's bind.
		if errors.Is(err, errPortTaken) && attempt < 4 {
			continue
		}
		t.Fatalf("testremote: %v", err)
	}
	r.api = api.NewClient(r.paddURL(), r.token)
	r.api.HTTP = r.hc
	if r.proxy != nil {
		if err := r.proxy.start(r.paddURL()); err != nil {
			t.Fatalf("testremote: start the proxy: %v", err)
		}
	}
	return r
}

// URL is what a sync client talks to: the proxy's base URL, or padd's
// with Direct. Like a Pad server's, without /api/v1.
func (r *Remote) URL() string {
	if r.proxy != nil {
		return r.proxy.url()
	}
	return r.paddURL()
}

// Token is the second padd's API token (a Pad bearer token to a client).
func (r *Remote) Token() string { return r.token }

// DataDir is the second padd's data directory.
func (r *Remote) DataDir() string { return r.dir }

// API is a client straight to the second padd, past the proxy: for a
// test to write as another team member and to read back what landed.
func (r *Remote) API() *api.Client { return r.api }

func (r *Remote) paddURL() string { return "http://127.0.0.1:" + strconv.Itoa(r.port) }

// Restart stops padd (SIGTERM, waiting for a clean exit) and starts it
// again on the same data directory and port, as a remote's restart. The
// proxy stops listening meanwhile, so clients find the remote refusing
// connections, as they would a restarting Pad; its open connections
// are cut.
func (r *Remote) Restart(t testing.TB) {
	t.Helper()
	if r.proxy != nil {
		r.proxy.stopListening()
	}
	r.stop(t)
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if err = r.start(t); !errors.Is(err, errPortTaken) {
			break
		}
		time.Sleep(100 * time.Millisecond) // the port is held by a socket on its way out
	}
	if err != nil {
		t.Fatalf("testremote: restart: %v", err)
	}
	if r.proxy != nil {
		if err := r.proxy.start(r.paddURL()); err != nil {
			t.Fatalf("testremote: restart the proxy: %v", err)
		}
	}
}

var errPortTaken = errors.New("the port is taken")

// start runs padd on r.port and waits until daemon.json names it and
// its health check answers.
func (r *Remote) start(t testing.TB) error {
	cmd := exec.Command(r.bin, "--port", strconv.Itoa(r.port))
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAD_HOME=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(append(env, "PAD_HOME="+r.dir, "GORACE=halt_on_error=0"), r.opts.Env...)
	p := &proc{cmd: cmd, stderr: &testbin.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout = io.Discard
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", r.bin, err)
	}
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	r.mu.Lock()
	r.proc = p
	r.mu.Unlock()
	deadline := time.Now().Add(testwait.Limit)
	for {
		if p.done() {
			r.reap(t, p)
			out := p.stderr.String()
			if strings.Contains(out, "address already in use") {
				return errPortTaken
			}
			return fmt.Errorf("padd exited with code %d while starting; stderr:\n%s", p.state.ExitCode(), tail(out, 4000))
		}
		if info, err := launch.ReadInfo(r.dir); err == nil && info.PID == cmd.Process.Pid && info.Port == r.port {
			if resp, err := r.hc.Get(r.paddURL() + "/api/v1/health"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					r.token = info.Token
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("padd pid %d did not serve within %v; stderr:\n%s", cmd.Process.Pid, testwait.Limit, tail(p.stderr.String(), 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the running padd, if any: SIGTERM and a clean exit, or
// SIGKILL (and a failed test) when it does not exit within the limit.
func (r *Remote) stop(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	p := r.proc
	r.mu.Unlock()
	if p == nil {
		return
	}
	r.hc.CloseIdleConnections()
	if !p.done() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	timer := time.NewTimer(testwait.Limit)
	defer timer.Stop()
	select {
	case <-p.exited:
		if code := p.state.ExitCode(); code != 0 {
			t.Errorf("testremote: padd pid %d exited %d after SIGTERM, want 0; stderr:\n%s", p.cmd.Process.Pid, code, tail(p.stderr.String(), 4000))
		}
	case <-timer.C:
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("testremote: padd pid %d did not exit within %v of SIGTERM; killed", p.cmd.Process.Pid, testwait.Limit)
	}
	r.reap(t, p)
}

// reap forgets an exited padd and fails t on a data race it reported.
func (r *Remote) reap(t testing.TB, p *proc) {
	t.Helper()
	r.mu.Lock()
	if r.proc == p {
		r.proc = nil
	}
	r.mu.Unlock()
	out := p.stderr.String()
	if strings.Contains(out, "WARNING: DATA RACE") {
		t.Errorf("testremote: padd pid %d reported a data race:\n%s", p.cmd.Process.Pid, out)
	} else if t.Failed() {
		t.Logf("stderr of padd pid %d:\n%s", p.cmd.Process.Pid, tail(out, 6000))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// The padd binary is built once per process (testbin.PaddForRun shares
// it with the other packages of the `go test` run).
var (
	buildOnce sync.Once
	builtPadd string
	buildErr  error
)

func paddBinary() (string, error) {
	buildOnce.Do(func() {
		root, err := testbin.ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		// Done is never called: the build lives as long as the process
		// (a run's shared build is swept by the next run; a private one,
		// from a test binary started by hand, stays in the temp dir).
		bins, err := testbin.PaddForRun(root, testbin.Race())
		builtPadd, buildErr = bins.Padd, err
	})
	return builtPadd, buildErr
}
