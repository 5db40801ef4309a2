//go:build linux

// Command svcstart measures padd started the way its service manager
// starts it (issue 27): the command of the systemd user unit that
// userservice renders, run verbatim with the unit's environment, timed
// from the exec until GET /api/v1/health answers 200 (the first poll
// after daemon.json names the new pid), then stopped with SIGTERM.
//
//	go run ./scripts/svcstart                      # builds padd from this checkout, as make dist does
//	go run ./scripts/svcstart -padd bin/padd -n 20
//	go run ./scripts/svcstart -base old/padd       # before/after: the two alternate
//
// Cold: before each start the padd binary and the data directory are
// dropped from the page cache (posix_fadvise DONTNEED, as a reboot would
// leave them; /proc/sys/vm/drop_caches needs root). Warm: the same
// start right after a previous one. The data directory holds one
// workspace of -items items, written by a first padd.
//
// With -base, every start of the padd under test is followed by one of
// the base padd on the same data directory, so that a before/after
// comparison on a shared machine meets the same load on both sides; the
// base's padctl (beside it) is timed too.
//
// It also times `padd --version` (exec, the runtime's and the packages'
// initialisers, exit: the floor under any start), and `padctl daemon
// install` and `padctl daemon uninstall` on a temporary HOME: on a
// machine with a systemd user manager that is the unit's install and
// start; where none runs, the autostart fallback and padctl starting
// padd.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/userservice"
)

func main() {
	paddFlag := flag.String("padd", "", "padd binary (default: built from this checkout into a temporary directory, with padctl, the way make dist builds them)")
	base := flag.String("base", "", "a second padd (with its padctl beside it) to alternate with, for a before/after comparison")
	n := flag.Int("n", 15, "starts of each kind")
	items := flag.Int("items", 500, "items in the data directory")
	flag.Parse()
	if err := run(*paddFlag, *base, *n, *items); err != nil {
		fmt.Fprintln(os.Stderr, "svcstart:", err)
		os.Exit(1)
	}
}

func run(padd, base string, n, items int) error {
	tmp, err := os.MkdirTemp("", "svcstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if padd == "" {
		padd = filepath.Join(tmp, "bin", "padd")
		// As make dist builds the packaged padd that a manager starts: no
		// cgo (a static binary, no dynamic loader), no symbols, no build id.
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -buildid=",
			"-o", filepath.Dir(padd)+"/", "./cmd/padd", "./cmd/padctl")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	padd, _ = filepath.Abs(padd)
	home := filepath.Join(tmp, "data")
	sides := []string{padd}
	if base != "" {
		base, _ = filepath.Abs(base)
		sides = append(sides, base)
	}
	argvs := make([][]string, len(sides))
	var env []string
	for i, p := range sides {
		argv, e, err := userservice.UnitCommand(userservice.SystemdUnit(userservice.Spec{Executable: p, PadHome: home}))
		if err != nil {
			return err
		}
		argvs[i], env = argv, e
	}
	if err := seed(argvs[0], env, home, items); err != nil {
		return err
	}
	// The floor under a start: `padd --version` runs the runtime's and the
	// packages' initialisers, then exits; no data is touched.
	floor := make([][]time.Duration, len(sides))
	for range n {
		for i, p := range sides {
			t0 := time.Now()
			if out, err := exec.Command(p, "--version").CombinedOutput(); err != nil {
				return fmt.Errorf("%s --version: %v\n%s", p, err, out)
			}
			floor[i] = append(floor[i], time.Since(t0))
		}
	}
	for i := range sides {
		fmt.Printf("%spadd --version (exec, initialisers, exit), warm: %s\n", label(sides, i), summary(floor[i]))
	}
	for _, cold := range []bool{true, false} {
		ds := make([][]time.Duration, len(sides))
		for range n {
			for i, argv := range argvs {
				if cold {
					evict(sides[i])
					evict(home)
				}
				d, err := startStop(argv, env, home)
				if err != nil {
					return err
				}
				ds[i] = append(ds[i], d)
			}
		}
		kind := "warm"
		if cold {
			kind = "cold"
		}
		for i := range sides {
			fmt.Printf("%shealth after start, %s page cache, %d starts: %s\n", label(sides, i), kind, n, summary(ds[i]))
		}
	}
	in, un := make([][]time.Duration, len(sides)), make([][]time.Duration, len(sides))
	for range n {
		for i, p := range sides {
			padctl := filepath.Join(filepath.Dir(p), "padctl")
			if _, err := os.Stat(padctl); err != nil {
				continue
			}
			h := filepath.Join(tmp, "home")
			os.RemoveAll(h)
			e := append(os.Environ(), "HOME="+h, "PAD_HOME="+home, "XDG_CONFIG_HOME=")
			t0 := time.Now()
			if out, err := padctlRun(padctl, e, "daemon", "install"); err != nil {
				return fmt.Errorf("padctl daemon install: %v\n%s", err, out)
			}
			in[i] = append(in[i], time.Since(t0))
			t0 = time.Now()
			if out, err := padctlRun(padctl, e, "daemon", "uninstall"); err != nil {
				return fmt.Errorf("padctl daemon uninstall: %v\n%s", err, out)
			}
			un[i] = append(un[i], time.Since(t0))
		}
	}
	for i := range sides {
		if len(in[i]) == 0 {
			continue
		}
		fmt.Printf("%spadctl daemon install (HOME empty, padd started and answering): %s\n", label(sides, i), summary(in[i]))
		fmt.Printf("%spadctl daemon uninstall (padd stopped): %s\n", label(sides, i), summary(un[i]))
	}
	return nil
}

// label names the side of a before/after comparison ("" without one).
func label(sides []string, i int) string {
	switch {
	case len(sides) == 1:
		return ""
	case i == 0:
		return "padd:  "
	default:
		return "base:  "
	}
}

func padctlRun(padctl string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(padctl, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

func summary(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
	}
	return fmt.Sprintf("median %s, min %s, max %s", ms(s[len(s)/2]), ms(s[0]), ms(s[len(s)-1]))
}

// startStop runs the unit's command, waits for health, SIGTERMs padd and
// waits for its exit; it returns the time from exec to health.
func startStop(argv, env []string, home string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	hc := &http.Client{Timeout: 5 * time.Second}
	for time.Since(t0) < 30*time.Second {
		if info, err := launch.ReadInfo(home); err == nil && info.PID == cmd.Process.Pid {
			if resp, err := hc.Get(info.URL() + "/api/v1/health"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					d := time.Since(t0)
					hc.CloseIdleConnections()
					cmd.Process.Signal(syscall.SIGTERM)
					return d, nil
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Kill()
	return 0, fmt.Errorf("padd did not answer health within 30s")
}

// seed starts padd once and writes a workspace of n items.
func seed(argv, env []string, home string, n int) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	ctx := context.Background()
	var c *api.Client
	for i := 0; ; i++ {
		cl, _, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home})
		if err == nil {
			c = cl
			break
		}
		if i > 3000 {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	var ws api.Workspace
	if _, err := c.Do(ctx, "POST", "/workspaces", nil, api.WorkspaceCreate{Name: "Bench"}, &ws); err != nil {
		return err
	}
	for i := range n {
		in := api.ItemCreate{Title: fmt.Sprintf("item %d", i), Content: "some words for the index"}
		if _, err := c.Do(ctx, "POST", "/workspaces/"+ws.Slug+"/collections/tasks/items", nil, in, nil); err != nil {
			return err
		}
	}
	return nil
}

func evict(root string) {
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if f, err := os.Open(path); err == nil {
			f.Sync()
			unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
			f.Close()
		}
		return nil
	})
}
