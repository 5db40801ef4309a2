//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/procstat"
	"github.com/padd/padd/internal/testbin"
)

// An idle padd is quiet (issue 24): once its start-up work is done, a
// padd that nothing asks anything of wakes at most once a second on
// average, and so does an agent's relay (`padd mcp-serve`) left idle
// after initialize, and padd beside it. A wake is a context switch of
// any of the process's threads (procstat.Usage.Switches): a thread
// nothing wakes is never switched out. scripts/idlewake measures the
// same over a minute (docs/PERFORMANCE.md).

const (
	// idleWindow is how long the wakes are counted.
	idleWindow = 5 * time.Second
	// idleQuiet is the span without a single wake that says the work
	// padd was given is over: longer than any timer padd arms after work
	// (an MCP session's idle request runner ends 10 s after its last
	// call), and than the gaps of the Go runtime's scavenger returning
	// the work's memory. idleSettle is the longest wait for it; a padd
	// that never goes quiet is measured anyway, and fails.
	idleQuiet  = 12 * time.Second
	idleSettle = time.Minute
	// idleSlack is the wakes allowed beside one a second, for the
	// measure itself: reading /proc wakes nothing, but the window starts
	// at an arbitrary moment of the Go runtime's monitor thread, which
	// sleeps up to a minute while the process is idle and then wakes
	// once (itself and, at times, a thread it hands a timer to: up to
	// three switches), whatever the process does.
	idleSlack = 3
	// idleTries bounds the windows measured: a window that holds one of
	// the Go runtime's forced collections (one every two minutes, seen
	// in GODEBUG=gctrace=1's lines) is the runtime's, not padd's, and is
	// measured again.
	idleTries = 3
)

func TestIdlePaddAndRelayAreQuiet(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPaddEnv(t, home, []string{"GODEBUG=gctrace=1"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws, err := d.client.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Idle"})
	if err != nil {
		t.Fatal(err)
	}
	// Items to index and hold: the idle padd has something to keep.
	var head int64
	for i := range 30 {
		r := d.do(t, "POST", "/api/v1/workspaces/"+ws.Slug+"/collections/tasks/items",
			mustJSON(t, map[string]any{"title": fmt.Sprintf("Idle task %d", i), "content": "something to search for"}))
		wantStatus(t, r, 201)
		head, _ = strconv.ParseInt(r.Header.Get(api.SeqHeader), 10, 64)
	}
	waitIndexed(t, d, ws.ID, head)
	// A kept-alive connection that times out later would wake padd
	// inside a window: close them now.
	d.http.CloseIdleConnections()
	paddP := idleProc{name: "padd", pid: d.pid(), stderr: d.stderr}
	wantIdle(t, "padd alone", paddP)

	cmd := exec.Command(paddBin, "mcp-serve")
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "PAD_HOME" && k != "PAD_WORKSPACE" && k != "GORACE" && k != "GODEBUG" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PAD_HOME="+home, "GORACE=halt_on_error=0", "GODEBUG=gctrace=1")
	relayErr := &testbin.Buffer{}
	cmd.Stderr = relayErr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	relay, err := testbin.StartRelay(cmd, 30*time.Second)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, relayErr.String())
	}
	t.Cleanup(func() {
		relay.Stop()
		if out := relayErr.String(); strings.Contains(out, "WARNING: DATA RACE") {
			t.Errorf("padd mcp-serve reported a data race:\n%s", out)
		}
	})
	wantIdle(t, "padd with one idle relay", paddP, idleProc{name: "padd mcp-serve", pid: relay.Pid(), stderr: relayErr})
}

// idleProc is a process whose wakes are counted; its stderr carries
// GODEBUG=gctrace=1's line for each collection.
type idleProc struct {
	name   string
	pid    int
	stderr *testbin.Buffer
}

func (p idleProc) collections() int { return strings.Count(p.stderr.String(), "\ngc ") }

// wantIdle waits for the processes to go quiet, then fails if any of
// them wakes more than once a second over idleWindow (plus idleSlack).
func wantIdle(t *testing.T, label string, procs ...idleProc) {
	t.Helper()
	pids := make([]int, len(procs))
	for i, p := range procs {
		pids[i] = p.pid
	}
	for try := 1; ; try++ {
		took, quietErr := procstat.WaitQuiet(idleQuiet, idleSettle, pids...)
		before := make([]procstat.Usage, len(procs))
		gcsBefore := make([]int, len(procs))
		for i, p := range procs {
			u, err := procstat.Read(p.pid)
			if err != nil {
				t.Fatalf("%s: %s: %v", label, p.name, err)
			}
			before[i], gcsBefore[i] = u, p.collections()
		}
		start := time.Now()
		time.Sleep(idleWindow) // the window the wakes are counted over
		window := time.Since(start)
		// One a second of the window as it was: on a busy machine the
		// sleep can run past idleWindow.
		limit := int64(window/time.Second) + idleSlack
		var failed, report []string
		collected := false
		for i, p := range procs {
			u, err := procstat.Read(p.pid)
			if err != nil {
				t.Fatalf("%s: %s: %v", label, p.name, err)
			}
			d := u.Sub(before[i])
			collected = collected || p.collections() != gcsBefore[i]
			line := fmt.Sprintf("%s woke %d times in %.1fs (%s of CPU)", p.name, d.Switches, window.Seconds(), d.CPU())
			report = append(report, line)
			if d.Switches > limit {
				failed = append(failed, line)
			}
		}
		if collected && try < idleTries {
			t.Logf("%s: the Go runtime collected during the window (%s); measuring again", label, strings.Join(report, "; "))
			continue
		}
		settled := fmt.Sprintf("quiet for %s after %s", idleQuiet, took.Round(time.Second))
		if quietErr != nil {
			settled = "never quiet: " + quietErr.Error()
		}
		if len(failed) > 0 {
			t.Fatalf("%s: idle, %s, but %s; want at most %d (one a second, and %d for the measure)",
				label, settled, strings.Join(failed, "; "), limit, idleSlack)
		}
		t.Logf("%s: %s (%s)", label, strings.Join(report, "; "), settled)
		return
	}
}

// waitIndexed waits until the search index is ready and holds the
// workspace up to head: padd's start-up work is then done.
func waitIndexed(t *testing.T, d *instance, wsID string, head int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		st, err := d.client.IndexStatus(ctx)
		cancel()
		if err == nil && st.State == api.IndexReady && st.Watermarks[wsID] >= head {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("search index not at seq %d within 2 minutes: %+v %v", head, st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
