// Package userservice renders, installs, removes and queries padd's
// per-user service entry: a systemd user unit on Linux (an XDG autostart
// entry where no user manager runs), a LaunchAgent on macOS, and a value
// under the user's Run key on Windows. None needs elevation.
//
// Every command of a service manager (systemctl --user, launchctl, reg,
// journalctl) goes through one Runner, so tests record the calls where no
// manager runs; the real Runner runs them.
package userservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/padd/padd/internal/atomicfile"
)

// Manager names what starts padd at login.
type Manager string

const (
	SystemdUser  Manager = "systemd-user"
	Launchd      Manager = "launchd"
	WindowsLogon Manager = "windows-logon"
	XDGAutostart Manager = "xdg-autostart"
	None         Manager = "none"
)

// MarshalText writes the zero Manager as "none".
func (m Manager) MarshalText() ([]byte, error) {
	if m == "" {
		return []byte(None), nil
	}
	return []byte(m), nil
}

// Controls reports whether the manager starts and stops padd on request
// (and restarts it after a crash). The logon entries only start padd at
// login: padctl starts and stops it itself.
func (m Manager) Controls() bool { return m == SystemdUser || m == Launchd }

// Runner runs a manager's command: stdout goes to out (nil: discarded);
// a failure's error carries the command's stderr.
type Runner interface {
	Run(ctx context.Context, out io.Writer, name string, args ...string) error
}

// Exec is the Runner that runs the commands.
type Exec struct{}

// Run runs name with args.
func (Exec) Run(ctx context.Context, out io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
		}
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// Host is the user's system as the entries see it.
type Host struct {
	GOOS       string // runtime.GOOS; tests render other systems' entries
	Home       string // the user's home directory
	ConfigHome string // $XDG_CONFIG_HOME; "" means Home/.config
	UID        int    // launchd's gui/<uid> domain
	Run        Runner
}

// Local is this user's host, running commands through run (nil: Exec).
func Local(run Runner) (*Host, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("no home directory to install padd's service entry in: %w", err)
	}
	if run == nil {
		run = Exec{}
	}
	return &Host{GOOS: runtime.GOOS, Home: home, ConfigHome: os.Getenv("XDG_CONFIG_HOME"), UID: os.Getuid(), Run: run}, nil
}

func (h *Host) configHome() string {
	if h.ConfigHome != "" {
		return h.ConfigHome
	}
	return filepath.Join(h.Home, ".config")
}

// Path is where the entry of manager m lives ("" for the registry).
func (h *Host) Path(m Manager) string {
	switch m {
	case SystemdUser:
		return filepath.Join(h.configHome(), "systemd", "user", UnitName)
	case XDGAutostart:
		return filepath.Join(h.configHome(), "autostart", Desktop)
	case Launchd:
		return filepath.Join(h.Home, "Library", "LaunchAgents", PlistName)
	case WindowsLogon:
		return RunKey + `\` + Name
	}
	return ""
}

func (h *Host) systemctl(ctx context.Context, out io.Writer, args ...string) error {
	return h.Run.Run(ctx, out, "systemctl", append([]string{"--user"}, args...)...)
}

func (h *Host) domain() string { return "gui/" + strconv.Itoa(h.UID) }

// Choice is the manager Install would use, and, when it is the fallback,
// why.
type Choice struct {
	Manager Manager
	Why     string // set when the first choice is not available
}

// Choose picks the manager for this host. On Linux it asks systemd for
// the user manager; none answering (a container, WSL without systemd)
// means the XDG autostart entry.
func (h *Host) Choose(ctx context.Context) Choice {
	switch h.GOOS {
	case "darwin":
		return Choice{Manager: Launchd}
	case "windows":
		return Choice{Manager: WindowsLogon}
	}
	if err := h.systemctl(ctx, nil, "show-environment"); err != nil {
		return Choice{Manager: XDGAutostart, Why: "no systemd user manager runs here (" + firstLine(err.Error()) + ")"}
	}
	return Choice{Manager: SystemdUser}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Status is what the manager says of padd's entry.
type Status struct {
	Installed bool
	Manager   Manager // None when not installed
	Enabled   bool    // starts at login
	Active    bool    // the manager runs padd now (managers that control padd only)
	PID       int     // the manager's main pid, when it knows one
	Path      string  // the unit, plist, desktop file or registry value
	// PadHome is the data directory the entry runs padd with ("": the
	// default), read back from the entry, so that padctl working on
	// another data directory leaves this padd alone.
	PadHome string
}

// Query finds padd's entry and asks its manager about it.
func (h *Host) Query(ctx context.Context) (Status, error) {
	switch h.GOOS {
	case "darwin":
		return h.queryLaunchd(ctx)
	case "windows":
		return h.queryWindows(ctx)
	}
	st, err := h.querySystemd(ctx)
	if err != nil || st.Installed {
		return st, err
	}
	p := h.Path(XDGAutostart)
	if b, err := os.ReadFile(p); err == nil {
		return Status{Installed: true, Manager: XDGAutostart, Enabled: true, Path: p, PadHome: desktopPadHome(string(b))}, nil
	}
	return Status{Manager: None}, nil
}

// querySystemd asks the user manager; with none running, the unit file
// alone says it is installed. A unit a package put in
// /usr/lib/systemd/user counts once the user enabled it.
func (h *Host) querySystemd(ctx context.Context) (Status, error) {
	p := h.Path(SystemdUser)
	_, statErr := os.Stat(p)
	var out bytes.Buffer
	err := h.systemctl(ctx, &out, "show", UnitName, "--property=LoadState,UnitFileState,ActiveState,MainPID,FragmentPath")
	if err != nil {
		if statErr == nil {
			st := Status{Installed: true, Manager: SystemdUser, Path: p}
			if b, err := os.ReadFile(p); err == nil {
				st.PadHome = unitPadHome(string(b))
			}
			return st, nil
		}
		return Status{Manager: None}, nil
	}
	props := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			props[k] = v
		}
	}
	st := Status{Manager: SystemdUser, Path: p}
	st.Enabled = props["UnitFileState"] == "enabled"
	st.Active = props["ActiveState"] == "active" || props["ActiveState"] == "activating" || props["ActiveState"] == "reloading"
	st.PID, _ = strconv.Atoi(props["MainPID"])
	st.Installed = statErr == nil || (props["LoadState"] == "loaded" && st.Enabled)
	if statErr != nil && props["FragmentPath"] != "" {
		st.Path = props["FragmentPath"]
	}
	if !st.Installed {
		return Status{Manager: None}, nil
	}
	if b, err := os.ReadFile(st.Path); err == nil {
		st.PadHome = unitPadHome(string(b))
	}
	return st, nil
}

func (h *Host) queryLaunchd(ctx context.Context) (Status, error) {
	p := h.Path(Launchd)
	b, err := os.ReadFile(p)
	if err != nil {
		return Status{Manager: None}, nil
	}
	st := Status{Installed: true, Manager: Launchd, Path: p, PadHome: plistPadHome(string(b))}
	var out bytes.Buffer
	if err := h.Run.Run(ctx, &out, "launchctl", "print", h.domain()+"/"+Name); err != nil {
		return st, nil // installed, not loaded
	}
	st.Enabled = true
	for _, l := range strings.Split(out.String(), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), " = ")
		switch {
		case !ok:
		case k == "state":
			st.Active = v == "running"
		case k == "pid":
			st.PID, _ = strconv.Atoi(v)
		}
	}
	return st, nil
}

func (h *Host) queryWindows(ctx context.Context) (Status, error) {
	var out bytes.Buffer
	if err := h.Run.Run(ctx, &out, "reg", "query", RunKey, "/v", Name); err != nil {
		return Status{Manager: None}, nil
	}
	st := Status{Installed: true, Manager: WindowsLogon, Enabled: true, Path: h.Path(WindowsLogon)}
	// reg prints "    padd    REG_SZ    <data>".
	for _, l := range strings.Split(out.String(), "\n") {
		if _, data, ok := strings.Cut(l, "REG_SZ"); ok {
			st.PadHome = homeFlag(windowsSplit(strings.TrimSpace(data)))
		}
	}
	return st, nil
}

// Install writes padd's entry for the chosen manager and enables it;
// under a manager that controls padd it also (re)starts it, so a changed
// entry takes effect. An entry of the other Linux kind (the autostart
// file when systemd is chosen, or the unit when it is not) is removed, so
// padd is never started twice at login.
func (h *Host) Install(ctx context.Context, c Choice, s Spec) error {
	switch c.Manager {
	case SystemdUser:
		if err := write(h.Path(SystemdUser), SystemdUnit(s)); err != nil {
			return err
		}
		if err := removeIfThere(h.Path(XDGAutostart)); err != nil {
			return err
		}
		if err := h.systemctl(ctx, nil, "daemon-reload"); err != nil {
			return err
		}
		if err := h.systemctl(ctx, nil, "enable", UnitName); err != nil {
			return err
		}
		return h.systemctl(ctx, nil, "restart", UnitName)
	case XDGAutostart:
		if err := write(h.Path(XDGAutostart), AutostartEntry(s)); err != nil {
			return err
		}
		// A unit left from a time systemd ran would start a second padd.
		return removeIfThere(h.Path(SystemdUser))
	case Launchd:
		p := h.Path(Launchd)
		if err := write(p, LaunchAgent(s)); err != nil {
			return err
		}
		// A loaded older entry goes first: bootstrap refuses a loaded label.
		_ = h.Run.Run(ctx, nil, "launchctl", "bootout", h.domain()+"/"+Name)
		if err := h.Run.Run(ctx, nil, "launchctl", "enable", h.domain()+"/"+Name); err != nil {
			return err
		}
		return h.Run.Run(ctx, nil, "launchctl", "bootstrap", h.domain(), p)
	case WindowsLogon:
		return h.Run.Run(ctx, nil, "reg", WindowsEntry(s).RegAddArgs()...)
	}
	return fmt.Errorf("no service manager to install padd under on %s", h.GOOS)
}

// Uninstall stops padd through its manager and removes the entry. It
// leaves padd's data. Not installed is not an error.
func (h *Host) Uninstall(ctx context.Context, st Status) error {
	switch st.Manager {
	case SystemdUser:
		// disable --now stops padd; a unit a package installed stays
		// there, disabled.
		// A manager that is not running has nothing to stop: then only
		// our own file is removed.
		p := h.Path(SystemdUser)
		_, statErr := os.Stat(p)
		if err := h.systemctl(ctx, nil, "disable", "--now", UnitName); err != nil && statErr != nil {
			return err
		}
		if err := removeIfThere(p); err != nil {
			return err
		}
		_ = h.systemctl(ctx, nil, "daemon-reload")
		return nil
	case XDGAutostart:
		return removeIfThere(h.Path(XDGAutostart))
	case Launchd:
		// bootout stops padd and unloads the agent; not loaded is fine.
		_ = h.Run.Run(ctx, nil, "launchctl", "bootout", h.domain()+"/"+Name)
		return removeIfThere(h.Path(Launchd))
	case WindowsLogon:
		return h.Run.Run(ctx, nil, "reg", "delete", RunKey, "/v", Name, "/f")
	}
	return nil
}

// ErrNoControl is returned by Start, Stop and Restart for an entry whose
// manager does not run padd (a logon entry): padctl does it itself.
var ErrNoControl = errors.New("this entry only starts padd at login")

// Start asks the manager to start padd.
func (h *Host) Start(ctx context.Context, m Manager) error {
	switch m {
	case SystemdUser:
		return h.systemctl(ctx, nil, "start", UnitName)
	case Launchd:
		// Loads the agent when it is not (RunAtLoad starts it), else
		// starts the loaded one.
		if err := h.Run.Run(ctx, nil, "launchctl", "print", h.domain()+"/"+Name); err != nil {
			return h.Run.Run(ctx, nil, "launchctl", "bootstrap", h.domain(), h.Path(Launchd))
		}
		return h.Run.Run(ctx, nil, "launchctl", "kickstart", h.domain()+"/"+Name)
	}
	return ErrNoControl
}

// Stop asks the manager to stop padd; it stays stopped (a clean exit is
// not a failure to either manager's restart policy) until the next start
// or login.
func (h *Host) Stop(ctx context.Context, m Manager) error {
	switch m {
	case SystemdUser:
		return h.systemctl(ctx, nil, "stop", UnitName)
	case Launchd:
		return h.Run.Run(ctx, nil, "launchctl", "kill", "SIGTERM", h.domain()+"/"+Name)
	}
	return ErrNoControl
}

// Logs writes padd's journal when it runs under systemd: the last n
// lines, then (follow) new ones until ctx ends. asJSON asks journald's
// JSON export, one object per line.
func (h *Host) Logs(ctx context.Context, w io.Writer, n int, follow, asJSON bool) error {
	args := []string{"--user", "--unit", UnitName, "--no-pager", "--lines", strconv.Itoa(n)}
	if asJSON {
		args = append(args, "--output", "json")
	} else {
		args = append(args, "--output", "short-iso")
	}
	if follow {
		args = append(args, "--follow")
	}
	return h.Run.Run(ctx, w, "journalctl", args...)
}

func write(path, body string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(body))
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
