//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
)

// The README's first command and its tour reach one padd: `make run`
// serves the data directory padctl finds, with nothing exported, and
// padctl then talks to that padd instead of starting a second one.
// The recipe runs as written, on this run's padd (make -o build: the
// binaries are the test's, not rebuilt into bin/).
func TestMakeRunAndPadctlShareOnePadd(t *testing.T) {
	t.Parallel()
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on this machine")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// A user of their own: the per-user data directory is under it, and
	// nothing names PAD_HOME.
	xdg := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PAD_HOME", "PAD_WORKSPACE", "XDG_DATA_HOME", "MAKEFLAGS", "MAKELEVEL":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "XDG_DATA_HOME="+xdg)
	data, err := launch.DataDirEnv(func(k string) string {
		if k == "XDG_DATA_HOME" {
			return xdg
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}

	run := exec.Command(mk, "-o", "build", "run", "BIN="+filepath.Dir(paddBin))
	run.Dir, run.Env = root, env
	var out testbin.Buffer
	run.Stdout, run.Stderr = &out, &out
	run.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = run.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-run.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(testwait.Limit):
			_ = syscall.Kill(-run.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("make run printed:\n%s", tail(out.String(), 4000))
		}
	})

	// make run's padd serves the per-user data directory.
	var info *launch.Info
	testwait.UntilOK(t, func() error {
		select {
		case <-exited:
			t.Fatalf("make run exited: %s", out.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, i, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: data})
		info = i
		return err
	})

	// padctl, with the same nothing exported, reaches it.
	cmd := exec.Command(padctlBin, "workspace", "create", "Shared")
	cmd.Dir, cmd.Env = t.TempDir(), env
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("padctl: %v\n%s", err, got)
	}
	if strings.Contains(string(got), "started padd") {
		t.Errorf("padctl started a second padd:\n%s", got)
	}
	now, err := launch.ReadInfo(data)
	if err != nil || now.PID != info.PID {
		t.Errorf("the padd of %s is pid %d (%v), make run's was %d", data, now.PID, err, info.PID)
	}
}
