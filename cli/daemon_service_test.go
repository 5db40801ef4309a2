//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/userservice"
)

// The in-process tests never reach this machine's service manager: a
// host with no manager and no home of its own answers them, unless a
// test puts another in its place.
func init() {
	serviceHost = func() (*userservice.Host, error) {
		return &userservice.Host{GOOS: "linux", Home: "/nonexistent/padd-test-home", Run: noManager{}}, nil
	}
}

type noManager struct{}

func (noManager) Run(_ context.Context, _ io.Writer, name string, args ...string) error {
	return fmt.Errorf("%s %s: exit status 1: Failed to connect to bus: No medium found", name, strings.Join(args, " "))
}

// fakeSystemd is a user manager for one unit, reached through the
// Runner seam: it records each command and does what systemd would with
// padd's unit: runs its ExecStart verbatim with its Environment= and
// stderr connected to a journal (JOURNAL_STREAM names the stream), stops
// it with SIGTERM, and answers show and journalctl from that.
type fakeSystemd struct {
	t    *testing.T
	host *userservice.Host

	mu      sync.Mutex
	calls   []string
	enabled bool
	proc    *exec.Cmd
	exited  chan struct{}
	exits   []int // exit codes of the padds it ran, in order
	journal bytes.Buffer
}

func (f *fakeSystemd) Run(ctx context.Context, out io.Writer, name string, args ...string) error {
	f.mu.Lock()
	f.calls = append(f.calls, strings.Join(append([]string{name}, args...), " "))
	f.mu.Unlock()
	if name == "journalctl" {
		f.mu.Lock()
		defer f.mu.Unlock()
		_, err := out.Write(f.journal.Bytes())
		return err
	}
	if name != "systemctl" || len(args) < 2 || args[0] != "--user" {
		return fmt.Errorf("not a user manager's command: %s %q", name, args)
	}
	switch args[1] {
	case "show-environment", "daemon-reload":
		return nil
	case "enable":
		f.enabled = true
		return nil
	case "disable":
		f.enabled = false
		if slices.Contains(args, "--now") {
			f.stop()
		}
		return nil
	case "start":
		if f.running() {
			return nil
		}
		return f.start()
	case "restart":
		f.stop()
		return f.start()
	case "stop":
		f.stop()
		return nil
	case "show":
		_, err := os.Stat(f.host.Path(userservice.SystemdUser))
		load, state, pid := "not-found", "disabled", 0
		if err == nil {
			load = "loaded"
		}
		if f.enabled {
			state = "enabled"
		}
		active := "inactive"
		if f.running() {
			active, pid = "active", f.proc.Process.Pid
		}
		fmt.Fprintf(out, "LoadState=%s\nUnitFileState=%s\nActiveState=%s\nMainPID=%d\nFragmentPath=%s\n",
			load, state, active, pid, f.host.Path(userservice.SystemdUser))
		return nil
	}
	return fmt.Errorf("systemctl %q: not in the fake", args)
}

func (f *fakeSystemd) running() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.proc == nil {
		return false
	}
	select {
	case <-f.exited:
		return false
	default:
		return true
	}
}

func (f *fakeSystemd) start() error {
	unit, err := os.ReadFile(f.host.Path(userservice.SystemdUser))
	if err != nil {
		return err
	}
	argv, env, err := userservice.UnitCommand(string(unit))
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(w.Fd()), &st); err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(testEnv(""), "INVOCATION_ID=fake", fmt.Sprintf("JOURNAL_STREAM=%d:%d", st.Dev, st.Ino)), env...)
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		w.Close()
		r.Close()
		return err
	}
	w.Close()
	exited := make(chan struct{})
	f.mu.Lock()
	f.proc, f.exited = cmd, exited
	f.mu.Unlock()
	go func() {
		b, _ := io.ReadAll(r)
		r.Close()
		_ = cmd.Wait()
		f.mu.Lock()
		f.journal.Write(b)
		f.exits = append(f.exits, cmd.ProcessState.ExitCode())
		f.mu.Unlock()
		close(exited)
	}()
	return nil
}

// stop is systemd's stop: SIGTERM, and wait for the exit.
func (f *fakeSystemd) stop() {
	if !f.running() {
		return
	}
	f.mu.Lock()
	p, exited := f.proc, f.exited
	f.mu.Unlock()
	_ = p.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second): // the unit's TimeoutStopSec
		_ = p.Process.Kill()
		<-exited
		f.t.Errorf("padd pid %d did not stop within 20s of SIGTERM", p.Process.Pid)
	}
}

func (f *fakeSystemd) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func (f *fakeSystemd) mainPID() int {
	if !f.running() {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.proc.Process.Pid
}

// serviceJSON is the shape the tray reads from `daemon status --format json`.
type serviceJSON struct {
	Installed bool   `json:"installed"`
	Manager   string `json:"manager"`
	Enabled   bool   `json:"enabled"`
	Running   bool   `json:"running"`
	UnitPath  string `json:"unit_path"`
	PID       int    `json:"pid"`
	DataDir   string `json:"data_dir"`
}

// TestDaemonInstallUninstall installs padd as a systemd user service in a
// temporary HOME, with the user manager reached through the seam: the
// unit is written, enabled and started, padd runs from the unit's own
// command, start/stop/restart/logs go through the manager, and uninstall
// stops padd, removes the unit and keeps the data.
func TestDaemonInstallUninstall(t *testing.T) {
	padd, _ := binaries(t)
	home := t.TempDir()
	data := filepath.Join(home, "pad data")
	t.Setenv("PAD_HOME", data)
	t.Setenv("PATH", filepath.Dir(padd)+string(os.PathListSeparator)+os.Getenv("PATH"))
	host := &userservice.Host{GOOS: "linux", Home: home}
	fake := &fakeSystemd{t: t, host: host}
	host.Run = fake
	old := serviceHost
	serviceHost = func() (*userservice.Host, error) { return host, nil }
	t.Cleanup(func() { serviceHost = old; fake.stop() })
	stopPaddOf(t, data)

	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			LookupEnv: env(map[string]string{"PAD_HOME": data}), Now: time.Now, Style: &Style{Width: 100}})
		if code != want {
			t.Fatalf("padctl %s exited %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	status := func(want int) serviceJSON {
		t.Helper()
		out, _ := run(want, "daemon", "status", "--format", "json")
		var s serviceJSON
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("status JSON: %v\n%s", err, out)
		}
		return s
	}
	unitPath := filepath.Join(home, ".config/systemd/user/padd.service")
	wantCalls := func(want ...string) {
		t.Helper()
		var got []string
		for _, c := range fake.take() {
			if !strings.HasPrefix(c, "systemctl --user show ") { // status queries, asked often
				got = append(got, c)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("manager calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	if s := status(ExitNotRunning); s.Installed || s.Manager != "none" || s.Running {
		t.Fatalf("before install: %+v", s)
	}
	out, _ := run(0, "daemon", "install")
	if !strings.Contains(out, "Installed padd under systemd-user") {
		t.Errorf("install says %q", out)
	}
	wantCalls("systemctl --user show-environment", "systemctl --user daemon-reload",
		"systemctl --user enable padd.service", "systemctl --user restart padd.service")
	unit, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := userservice.SystemdUnit(userservice.Spec{Executable: padd, PadHome: data}); string(unit) != want {
		t.Errorf("unit:\n%s\nwant:\n%s", unit, want)
	}
	s := status(0)
	if want := (serviceJSON{Installed: true, Manager: "systemd-user", Enabled: true, Running: true, UnitPath: unitPath,
		PID: fake.mainPID(), DataDir: data}); s != want || s.PID == 0 {
		t.Fatalf("installed: %+v\nwant %+v", s, want)
	}

	// stop goes through the manager (which sees a clean exit), start too.
	run(0, "daemon", "stop")
	wantCalls("systemctl --user stop padd.service")
	if s := status(ExitNotRunning); !s.Installed || s.Running {
		t.Fatalf("after stop: %+v", s)
	}
	run(0, "daemon", "start")
	wantCalls("systemctl --user start padd.service")
	first := status(0).PID
	run(0, "daemon", "restart")
	wantCalls("systemctl --user stop padd.service", "systemctl --user start padd.service")
	if s := status(0); s.PID == first || s.PID != fake.mainPID() {
		t.Errorf("restart: pid %d before, %d after, manager's %d", first, s.PID, fake.mainPID())
	}

	// The log is journald's: padd wrote it to the stream systemd gave it.
	out, _ = run(0, "daemon", "logs", "-n", "5")
	wantCalls("journalctl --user --unit padd.service --no-pager --lines 5 --output short-iso")
	if !strings.Contains(out, "level=INFO") {
		t.Errorf("logs: %q", out)
	}
	if _, err := os.Stat(filepath.Join(data, launch.LogFile)); err == nil {
		t.Errorf("padd under systemd wrote %s too", launch.LogFile)
	}

	out, _ = run(0, "daemon", "uninstall")
	wantCalls("systemctl --user disable --now padd.service", "systemctl --user daemon-reload")
	if !strings.Contains(out, "Removed padd's systemd-user entry") {
		t.Errorf("uninstall says %q", out)
	}
	if _, err := os.Stat(unitPath); err == nil {
		t.Error("the unit is still there")
	}
	if s := status(ExitNotRunning); s.Installed || s.Running || s.Manager != "none" {
		t.Errorf("after uninstall: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(data, "padd.db")); err != nil {
		t.Errorf("the data went with the service: %v", err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	for i, code := range fake.exits {
		if code != 0 {
			t.Errorf("padd %d under the manager exited %d, want a clean 0", i, code)
		}
	}
}

// An entry that sets no PAD_HOME runs padd on the default data
// directory: a padctl given that directory as PAD_HOME (the tray does)
// sees it installed; one on another directory sees it as another's.
func TestEntryBelongsToItsDataDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	host := &userservice.Host{GOOS: "linux", Home: home, Run: noManager{}}
	old := serviceHost
	serviceHost = func() (*userservice.Host, error) { return host, nil }
	t.Cleanup(func() { serviceHost = old })
	p := host.Path(userservice.XDGAutostart)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(userservice.AutostartEntry(userservice.Spec{Executable: "/usr/bin/padd"})), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &App{}
	t.Setenv("PAD_HOME", filepath.Join(home, ".local", "share", "padd"))
	if s := a.serviceState(context.Background()); !s.Installed || s.Manager != userservice.XDGAutostart {
		t.Errorf("PAD_HOME at the default directory: %+v", s)
	}
	t.Setenv("PAD_HOME", filepath.Join(home, "elsewhere"))
	if s := a.serviceState(context.Background()); s.Installed || !strings.Contains(s.ServiceNote, "not this one") {
		t.Errorf("PAD_HOME elsewhere: %+v", s)
	}
}
