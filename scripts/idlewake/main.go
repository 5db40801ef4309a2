//go:build linux

// Command idlewake measures what an idle padd costs (issue 24): how often
// its threads wake and how much CPU it uses while nothing asks anything
// of it.
//
//	go run ./scripts/idlewake                    # builds padd from this checkout
//	go run ./scripts/idlewake -padd /tmp/old/padd # any other build
//
// It starts padd on a temporary PAD_HOME, writes a workspace of -items
// items, waits until the search index holds them and padd has gone quiet
// (its start-up work done), and then measures three idle padds in turn
// over -long, reporting the first -short and the whole:
//
//   - padd alone, nothing connected;
//   - padd with one idle relay: `padd mcp-serve` (the same binary) that
//     was sent initialize and notifications/initialized and then nothing,
//     measured with padd;
//   - padd with one idle event stream client (GET /api/v1/events/stream):
//     its keepalive comment every 15 s is the stream's, and counted;
//   - padd with a workspace linked to a remote (a second padd of the same
//     binary on its own PAD_HOME, cloned from it over loopback) once the
//     link is live and synced: the remote's event stream, held open by
//     the sync engine, sends its keepalives to padd (one every 15 s);
//     that padd asks nothing else of the remote meanwhile is
//     syncer's TestIdleLinkMakesNoRequests.
//
// A wake is a context switch of any of the process's threads, voluntary
// or not (/proc/<pid>/task/*/status): a thread that nothing wakes is
// never switched out. CPU is utime+stime (/proc/<pid>/stat, 10 ms ticks).
// padd runs with GODEBUG=gctrace=1 so that the Go runtime's own collections
// (one forced when none ran for 2 minutes) are counted beside the wakes
// they cause; a window waits out a forced collection that would fall
// within it, so that it measures padd between two.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/procstat"
	"github.com/padd/padd/internal/testbin"
)

func main() {
	bin := flag.String("padd", "", "padd binary to measure (default: build ./cmd/padd of this checkout)")
	items := flag.Int("items", 200, "items in the workspace padd holds while idle")
	short := flag.Duration("short", 10*time.Second, "the first, shorter window reported")
	long := flag.Duration("long", 60*time.Second, "each scenario's whole window")
	settle := flag.Duration("settle", time.Minute, "longest wait for padd to go quiet before a measure")
	flag.Parse()
	if err := run(*bin, *items, *short, *long, *settle); err != nil {
		fmt.Fprintln(os.Stderr, "idlewake:", err)
		os.Exit(2)
	}
}

func run(bin string, items int, short, long, settle time.Duration) error {
	tmp, err := os.MkdirTemp("", "padd-idlewake-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin != "" {
		if bin, err = filepath.Abs(bin); err != nil {
			return err
		}
	} else {
		root, err := testbin.ModuleRoot()
		if err != nil {
			return err
		}
		bin = filepath.Join(tmp, "padd")
		if err := testbin.GoBuild(root, bin, false, nil, "./cmd/padd"); err != nil {
			return err
		}
	}
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return err
	}
	p, err := startPadd(bin, home)
	if err != nil {
		return err
	}
	defer p.kill()
	if err := seed(p.client, items); err != nil {
		return err
	}
	// A kept-alive connection that times out later would wake padd
	// inside a window: close them now.
	p.client.HTTP.CloseIdleConnections()
	fmt.Printf("padd %s, pid %d, a workspace of %d items; load average %s\n", bin, p.pid(), items, procstat.LoadAvg())
	fmt.Printf("%-40s %7s %16s %9s %16s %9s %4s %10s\n", "", "window", "padd wakes (/s)", "padd CPU", "relay wakes (/s)", "relay CPU", "GCs", "keepalives")

	// padd alone.
	if err := measure(p, "alone", nil, short, long, settle, nil); err != nil {
		return err
	}

	// padd and an idle relay.
	relay, err := startRelay(bin, home, tmp)
	if err != nil {
		return err
	}
	err = measure(p, "one idle relay", relay, short, long, settle, nil)
	relay.Stop()
	if err != nil {
		return err
	}

	// padd and an idle event stream client.
	var keepalives atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	connected := make(chan error, 1)
	go stream(ctx, p, connected, &keepalives)
	select {
	case err := <-connected:
		if err != nil {
			cancel()
			return err
		}
	case <-time.After(30 * time.Second):
		cancel()
		return fmt.Errorf("the event stream did not connect within 30s")
	}
	err = measure(p, "one idle event stream", nil, short, long, settle, &keepalives)
	cancel()
	if err != nil {
		return err
	}

	// padd with a linked workspace, live and synced.
	remoteHome := filepath.Join(tmp, "remote")
	if err := os.Mkdir(remoteHome, 0o700); err != nil {
		return err
	}
	rem, err := startPadd(bin, remoteHome)
	if err != nil {
		return err
	}
	defer rem.kill()
	if err := link(p, rem, items); err != nil {
		return err
	}
	p.client.HTTP.CloseIdleConnections()
	return measure(p, "linked, live", nil, short, long, settle, nil)
}

// link seeds a workspace of n items on rem, clones it into p and waits
// until the link is synced with the remote's event stream live.
func link(p, rem *padd, n int) error {
	ctx := context.Background()
	if err := seed(rem.client, n); err != nil {
		return err
	}
	rem.client.HTTP.CloseIdleConnections()
	st, err := p.client.SyncClone(ctx, api.SyncClone{URL: rem.base, RemoteWorkspace: "idle", As: "linked", SyncToken: api.SyncToken{Token: rem.token}})
	if err != nil {
		return fmt.Errorf("sync clone: %w", err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if st, err = p.client.SyncStatus(ctx, "linked"); err != nil {
			return err
		}
		if st.State == api.SyncSynced && st.Live && !st.Cloning && st.Pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the link was not live and synced within 2 minutes: %+v", st)
		}
	}
}

// quietSpan is how long padd (and the relay) must not wake before a
// measure starts, as in e2e's TestIdlePaddAndRelayAreQuiet: longer than
// any timer padd arms after work (an MCP session's idle request runner
// ends 10 s after its last call) and than the gaps of the Go runtime's
// scavenger returning the work's memory.
const quietSpan = 12 * time.Second

// measure waits for padd (and the relay) to go quiet, then reads their
// wakes and CPU at the start of the window, after short and after long.
func measure(p *padd, name string, relay *testbin.Relay, short, long, settle time.Duration, keepalives *atomic.Int64) error {
	pids := []int{p.pid()}
	if relay != nil {
		pids = append(pids, relay.Pid())
	}
	p.awaitForcedGC(quietSpan + long + 5*time.Second)
	took, qerr := procstat.WaitQuiet(quietSpan, settle, pids...)
	note := fmt.Sprintf("(quiet after %.0fs)", took.Seconds())
	if qerr != nil {
		note = fmt.Sprintf("(not quiet in %s)", settle)
	}
	read := func() (padd, rel procstat.Usage, gcs, ka int64, err error) {
		if padd, err = procstat.Read(p.pid()); err != nil {
			return
		}
		if relay != nil {
			if rel, err = procstat.Read(relay.Pid()); err != nil {
				return
			}
		}
		gcs = int64(p.collections())
		if keepalives != nil {
			ka = keepalives.Load()
		}
		return
	}
	p0, r0, g0, k0, err := read()
	if err != nil {
		return err
	}
	t0 := time.Now()
	for i, w := range []time.Duration{short, long} {
		time.Sleep(time.Until(t0.Add(w)))
		p1, r1, g1, k1, err := read()
		if err != nil {
			return err
		}
		label := name + " " + note
		if i > 0 {
			label = ""
		}
		secs := w.Seconds()
		dp, dr := p1.Sub(p0), r1.Sub(r0)
		relayWakes, relayCPU := "-", "-"
		if relay != nil {
			relayWakes = fmt.Sprintf("%d (%.2f)", dr.Switches, float64(dr.Switches)/secs)
			relayCPU = fmt.Sprintf("%d ms", dr.CPU().Milliseconds())
		}
		ka := "-"
		if keepalives != nil {
			ka = strconv.FormatInt(k1-k0, 10)
		}
		fmt.Printf("%-40s %7s %16s %9s %16s %9s %4d %10s\n", label, fmt.Sprintf("%.0f s", secs),
			fmt.Sprintf("%d (%.2f)", dp.Switches, float64(dp.Switches)/secs), fmt.Sprintf("%d ms", dp.CPU().Milliseconds()),
			relayWakes, relayCPU, g1-g0, ka)
	}
	return nil
}

// padd is the padd under measure.
type padd struct {
	cmd     *exec.Cmd
	started time.Time
	stderr  *testbin.Buffer
	client  *api.Client
	base    string
	token   string
}

// forcedGC is the Go runtime's period of forced collections: one comes
// when none ran for two minutes.
const forcedGC = 2 * time.Minute

// collections counts GODEBUG=gctrace=1's lines: one per collection.
func (p *padd) collections() int { return strings.Count(p.stderr.String(), "\ngc ") }

// awaitForcedGC waits out the runtime's forced collection when it would
// fall within the next d, so that a window sits between two of them:
// its wakes are the runtime's, and the collection after start-up work,
// with the scavenger returning the memory it freed, costs a hundred or
// more. The GCs column reports any that still falls in a window.
func (p *padd) awaitForcedGC(d time.Duration) {
	out := p.stderr.String()
	i := strings.LastIndex(out, "\ngc ")
	if i < 0 {
		return
	}
	_, rest, _ := strings.Cut(out[i:], "@")
	at, _, _ := strings.Cut(rest, "s ")
	secs, err := strconv.ParseFloat(at, 64)
	if err != nil {
		return
	}
	due := p.started.Add(time.Duration(secs*float64(time.Second)) + forcedGC)
	if time.Until(due) > d {
		return
	}
	n := p.collections()
	for deadline := due.Add(30 * time.Second); p.collections() == n && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *padd) pid() int { return p.cmd.Process.Pid }

func (p *padd) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// startPadd starts padd on home and waits until it answers health.
func startPadd(bin, home string) (*padd, error) {
	port, err := testbin.FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port))
	cmd.Env = childEnv(home, "GODEBUG=gctrace=1")
	p := &padd{cmd: cmd, stderr: &testbin.Buffer{}}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.started = time.Now()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		info, err := launch.ReadInfo(home)
		if err != nil || info.PID != p.pid() {
			continue
		}
		p.base, p.token = "http://127.0.0.1:"+strconv.Itoa(info.Port), info.Token
		p.client = api.NewClient(p.base, info.Token)
		if _, err := p.client.Health(context.Background()); err == nil {
			return p, nil
		}
	}
	p.kill()
	return nil, fmt.Errorf("padd did not serve within 60s:\n%s", p.stderr.String())
}

// seed writes a workspace of n items and waits until the search index
// holds them.
func seed(c *api.Client, n int) error {
	ctx := context.Background()
	ws, err := c.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Idle"})
	if err != nil {
		return err
	}
	var head int64
	for i := range n {
		resp, err := c.Do(ctx, "POST", "/workspaces/"+ws.Slug+"/collections/tasks/items", nil,
			api.ItemCreate{Title: fmt.Sprintf("Task %d of the idle workspace", i), Content: "Something to search for, number " + strconv.Itoa(i)}, nil)
		if err != nil {
			return err
		}
		head, _ = strconv.ParseInt(resp.Header.Get(api.SeqHeader), 10, 64)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		st, err := c.IndexStatus(ctx)
		if err == nil && st.State == api.IndexReady && st.Watermarks[ws.ID] >= head {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the search index did not reach seq %d within 2 minutes: %+v %v", head, st, err)
		}
	}
}

// startRelay starts `padd mcp-serve` as an agent would, initializes the
// session and leaves it.
func startRelay(bin, home, dir string) (*testbin.Relay, error) {
	cmd := exec.Command(bin, "mcp-serve")
	cmd.Dir = dir
	cmd.Env = childEnv(home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return testbin.StartRelay(cmd, 30*time.Second)
}

// stream holds GET /api/v1/events/stream open until ctx ends, reporting
// the connection on connected and counting the keepalive comments.
func stream(ctx context.Context, p *padd, connected chan<- error, keepalives *atomic.Int64) {
	req, _ := http.NewRequestWithContext(ctx, "GET", p.base+"/api/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		connected <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		connected <- fmt.Errorf("event stream answered %s", resp.Status)
		return
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		switch line := sc.Text(); {
		case line == "event: connected":
			connected <- nil
		case strings.HasPrefix(line, ": keepalive"):
			keepalives.Add(1)
		}
	}
}

// childEnv is our environment without what would point padd at the
// user's own data, plus PAD_HOME and extra.
func childEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PAD_HOME", "PAD_WORKSPACE", "PAD_URL", "PAD_TOKEN", "GODEBUG", "PADD_CPUPROFILE":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "PAD_HOME="+home), extra...)
}
