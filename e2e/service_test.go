//go:build unix

package e2e

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/userservice"
)

// TestServiceUnitExecStart runs padd as its systemd user unit says, from
// the unit's own ExecStart and Environment= lines read the way systemd
// reads them (the executable in a directory whose name needs quoting, a
// PAD_HOME with a space): padd serves, takes writes, and on SIGTERM (the
// manager's stop) exits 0 within the unit's TimeoutStopSec, having kept
// every write it acknowledged.
func TestServiceUnitExecStart(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "bin dir 100%")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "padd")
	if err := os.Symlink(paddBin, exe); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "pad data")
	unit := userservice.SystemdUnit(userservice.Spec{Executable: exe, PadHome: home})
	argv, env, err := userservice.UnitCommand(unit)
	if err != nil {
		t.Fatalf("%v\n%s", err, unit)
	}
	if argv[0] != exe || len(env) != 1 || env[0] != "PAD_HOME="+home {
		t.Fatalf("the unit reads back as %q %q:\n%s", argv, env, unit)
	}

	started := time.Now()
	p := spawnArgv(t, home, argv, env)
	d, err := waitServing(p, testwait.Limit)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, tail(p.stderr.String(), 4000))
	}
	t.Logf("health answered %s after the unit's command started", time.Since(started).Round(time.Millisecond))

	ws := d.mkWorkspace(t, "Service")
	a := newAcks()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.createLoop(ctx, ws, "svc"+strconv.Itoa(w), a)
		}()
	}
	target := 50 + rand.New(rand.NewPCG(runSeed(t, "crash.seed", *crashSeed), 3)).IntN(100)
	testwait.Until(t, "acknowledged creates", func() bool { return a.n() >= target || ctx.Err() != nil })
	p.signal(syscall.SIGTERM) // the manager's stop, writers still sending
	code, ok := p.waitExit(20 * time.Second)
	if !ok {
		t.Fatalf("padd did not exit within the unit's TimeoutStopSec (20s) of SIGTERM")
	}
	wg.Wait()
	got, errs := a.snapshot()
	if code != 0 {
		t.Errorf("padd exited %d after SIGTERM, want 0 (a failure to the manager's restart policy)", code)
	}
	for _, e := range errs {
		t.Errorf("unexpected answer during the stop: %s", e)
	}
	if _, err := launch.ReadInfo(home); err == nil {
		t.Errorf("daemon.json left behind after SIGTERM")
	}
	t.Logf("SIGTERM after %d acknowledged creates (target %d)", len(got), target)

	d2 := startPadd(t, home)
	verifyItems(t, d2, ws, got)
	d2.stop()
}

// spawnArgv starts a padd from a service entry's own command line with
// the entry's environment, as spawn does for the tests' usual command.
func spawnArgv(t testing.TB, home string, argv, extra []string) *proc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAD_HOME=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(append(env, "GORACE=halt_on_error=0"), extra...)
	p := &proc{t: t, home: home, cmd: cmd, stderr: &testbin.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", argv[0], err)
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
		<-p.exited
		if out := p.stderr.String(); strings.Contains(out, "WARNING: DATA RACE") {
			t.Errorf("padd reported a data race:\n%s", out)
		}
	})
	return p
}
