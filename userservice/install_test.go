package userservice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder is the Runner of the tests: it records each command and
// answers from a table keyed by the command's words.
type recorder struct {
	mu      sync.Mutex
	calls   []string
	answers map[string]string // command → stdout
	fail    map[string]bool   // command → exits 1
}

func (r *recorder) Run(_ context.Context, out io.Writer, name string, args ...string) error {
	line := strings.Join(append([]string{name}, args...), " ")
	r.mu.Lock()
	r.calls = append(r.calls, line)
	ans, failed := r.answers[line], r.fail[line]
	r.mu.Unlock()
	if failed {
		return fmt.Errorf("%s: exit status 1: Failed to connect to bus: No medium found", line)
	}
	if out != nil {
		io.WriteString(out, ans)
	}
	return nil
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

func host(t *testing.T, goos string, r *recorder) *Host {
	return &Host{GOOS: goos, Home: t.TempDir(), UID: 501, Run: r}
}

func wantCalls(t *testing.T, r *recorder, want ...string) {
	t.Helper()
	got := r.take()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("manager calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var spec = Spec{Executable: "/usr/local/bin/padd", PadHome: "/data/pad"}

func TestInstallSystemdUser(t *testing.T) {
	ctx := context.Background()
	r := &recorder{answers: map[string]string{}}
	h := host(t, "linux", r)
	// An autostart entry from a time without systemd goes.
	if err := write(h.Path(XDGAutostart), "old"); err != nil {
		t.Fatal(err)
	}
	c := h.Choose(ctx)
	if c.Manager != SystemdUser || c.Why != "" {
		t.Fatalf("chose %+v", c)
	}
	if err := h.Install(ctx, c, spec); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, "systemctl --user show-environment", "systemctl --user daemon-reload",
		"systemctl --user enable padd.service", "systemctl --user restart padd.service")
	unit, err := os.ReadFile(filepath.Join(h.Home, ".config/systemd/user/padd.service"))
	if err != nil || string(unit) != SystemdUnit(spec) {
		t.Fatalf("unit file: %v\n%s", err, unit)
	}
	if _, err := os.Stat(h.Path(XDGAutostart)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the autostart entry is still there: %v", err)
	}

	show := "systemctl --user show padd.service --property=LoadState,UnitFileState,ActiveState,MainPID,FragmentPath"
	r.answers[show] = "LoadState=loaded\nUnitFileState=enabled\nActiveState=active\nMainPID=4242\nFragmentPath=" + h.Path(SystemdUser) + "\n"
	st, err := h.Query(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Installed: true, Manager: SystemdUser, Enabled: true, Active: true, PID: 4242, Path: h.Path(SystemdUser), PadHome: "/data/pad"}
	if st != want {
		t.Errorf("status %+v, want %+v", st, want)
	}
	wantCalls(t, r, show)

	if err := h.Stop(ctx, st.Manager); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx, st.Manager); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, "systemctl --user stop padd.service", "systemctl --user start padd.service")

	if err := h.Uninstall(ctx, st); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, "systemctl --user disable --now padd.service", "systemctl --user daemon-reload")
	if _, err := os.Stat(h.Path(SystemdUser)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
	r.answers[show] = "LoadState=not-found\nUnitFileState=\nActiveState=inactive\nMainPID=0\nFragmentPath=\n"
	if st, _ := h.Query(ctx); st.Installed || st.Manager != None {
		t.Errorf("after uninstall: %+v", st)
	}
}

// A unit a package installed in /usr/lib/systemd/user counts once enabled.
func TestPackagedUnitCountsWhenEnabled(t *testing.T) {
	show := "systemctl --user show padd.service --property=LoadState,UnitFileState,ActiveState,MainPID,FragmentPath"
	r := &recorder{answers: map[string]string{show: "LoadState=loaded\nUnitFileState=disabled\nActiveState=inactive\nMainPID=0\nFragmentPath=/usr/lib/systemd/user/padd.service\n"}}
	h := host(t, "linux", r)
	if st, _ := h.Query(context.Background()); st.Installed {
		t.Errorf("a disabled packaged unit counts as installed: %+v", st)
	}
	r.answers[show] = strings.Replace(r.answers[show], "disabled", "enabled", 1)
	st, _ := h.Query(context.Background())
	if !st.Installed || st.Path != "/usr/lib/systemd/user/padd.service" {
		t.Errorf("an enabled packaged unit: %+v", st)
	}
}

func TestInstallFallsBackToAutostart(t *testing.T) {
	ctx := context.Background()
	r := &recorder{fail: map[string]bool{
		"systemctl --user show-environment": true,
		"systemctl --user show padd.service --property=LoadState,UnitFileState,ActiveState,MainPID,FragmentPath": true,
	}}
	h := host(t, "linux", r)
	h.ConfigHome = filepath.Join(h.Home, "cfg")
	c := h.Choose(ctx)
	if c.Manager != XDGAutostart || !strings.Contains(c.Why, "no systemd user manager") || !strings.Contains(c.Why, "Failed to connect to bus") {
		t.Fatalf("chose %+v", c)
	}
	if err := h.Install(ctx, c, spec); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, "systemctl --user show-environment")
	p := filepath.Join(h.Home, "cfg/autostart/padd.desktop")
	if b, err := os.ReadFile(p); err != nil || string(b) != AutostartEntry(spec) {
		t.Fatalf("autostart entry: %v\n%s", err, b)
	}
	st, err := h.Query(ctx)
	if err != nil || st != (Status{Installed: true, Manager: XDGAutostart, Enabled: true, Path: p, PadHome: "/data/pad"}) {
		t.Fatalf("status %+v, %v", st, err)
	}
	if err := h.Stop(ctx, st.Manager); !errors.Is(err, ErrNoControl) {
		t.Errorf("stop through an autostart entry: %v", err)
	}
	r.take()
	if err := h.Uninstall(ctx, st); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r)
	if st, _ := h.Query(ctx); st.Installed {
		t.Errorf("after uninstall: %+v", st)
	}
}

func TestInstallLaunchAgent(t *testing.T) {
	ctx := context.Background()
	r := &recorder{answers: map[string]string{
		"launchctl print gui/501/padd": "gui/501/padd = {\n\tactive count = 1\n\tstate = running\n\tpid = 777\n}\n",
	}}
	h := host(t, "darwin", r)
	c := h.Choose(ctx)
	if err := h.Install(ctx, c, spec); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(h.Home, "Library/LaunchAgents/padd.plist")
	wantCalls(t, r, "launchctl bootout gui/501/padd", "launchctl enable gui/501/padd", "launchctl bootstrap gui/501 "+p)
	if b, err := os.ReadFile(p); err != nil || string(b) != LaunchAgent(spec) {
		t.Fatalf("plist: %v\n%s", err, b)
	}
	st, err := h.Query(ctx)
	if err != nil || st != (Status{Installed: true, Manager: Launchd, Enabled: true, Active: true, PID: 777, Path: p, PadHome: "/data/pad"}) {
		t.Fatalf("status %+v, %v", st, err)
	}
	r.take()
	if err := h.Stop(ctx, Launchd); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx, Launchd); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, "launchctl kill SIGTERM gui/501/padd", "launchctl print gui/501/padd", "launchctl kickstart gui/501/padd")
	if err := h.Uninstall(ctx, st); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, "launchctl bootout gui/501/padd")
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plist is still there: %v", err)
	}
}

func TestInstallWindowsLogon(t *testing.T) {
	ctx := context.Background()
	r := &recorder{fail: map[string]bool{}}
	h := host(t, "windows", r)
	s := Spec{Executable: `C:\Program Files\padd\padd.exe`}
	if err := h.Install(ctx, h.Choose(ctx), s); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, `reg add HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v padd /t REG_SZ /d "C:\Program Files\padd\padd.exe" --quiet /f`)
	r.answers = map[string]string{`reg query HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v padd`: "\r\nHKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\r\n" +
		`    padd    REG_SZ    "C:\Program Files\padd\padd.exe" --quiet --home "D:\pad data\\"` + "\r\n\r\n"}
	st, _ := h.Query(ctx)
	if !st.Installed || st.Manager != WindowsLogon || st.Manager.Controls() || st.PadHome != `D:\pad data\` {
		t.Fatalf("status %+v", st)
	}
	r.take()
	if err := h.Uninstall(ctx, st); err != nil {
		t.Fatal(err)
	}
	wantCalls(t, r, `reg delete HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v padd /f`)
	r.fail[`reg query HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v padd`] = true
	if st, _ := h.Query(ctx); st.Installed {
		t.Errorf("after uninstall: %+v", st)
	}
}
