package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/userservice"
)

// DaemonCmd groups the commands that manage padd itself.
type DaemonCmd struct {
	Start     DaemonStartCmd     `cmd:"" help:"Start padd in the background (if it is not running); through its service manager when installed."`
	Stop      DaemonStopCmd      `cmd:"" help:"Stop padd and wait until it has exited; through its service manager when installed."`
	Restart   DaemonRestartCmd   `cmd:"" help:"Stop padd, then start it again."`
	Status    DaemonStatusCmd    `cmd:"" help:"Say whether padd is running, and its pid, port, version, data and service entry. Exit code 3 when it is not running."`
	Logs      DaemonLogsCmd      `cmd:"" help:"Print padd's log (journald's when systemd runs padd, else padd.log in the data directory)."`
	Install   DaemonInstallCmd   `cmd:"" help:"Install padd as your per-user service (systemd user unit, LaunchAgent or logon entry) and start it."`
	Uninstall DaemonUninstallCmd `cmd:"" help:"Stop padd and remove its per-user service entry; padd's data stays."`
	Config    DaemonConfigCmd    `cmd:"" help:"Show padd's settings (padd.toml): those in force, a change waiting for a restart, and why the file is not applied when it is broken."`
}

// How long stop waits for padd to exit after asking, and again after
// SIGTERM. padd's own graceful shutdown is bounded at 10s.
var (
	stopWait = 12 * time.Second
	termWait = 5 * time.Second
)

// daemonState is what `daemon status` (and start) print as JSON. The
// status members are present only while padd runs.
type daemonState struct {
	Running       bool   `json:"running"`
	DataDir       string `json:"data_dir"`
	ClientVersion string `json:"client_version"`
	Port          int    `json:"port,omitempty"`
	URL           string `json:"url,omitempty"`
	serviceState
	*api.DaemonStatus
}

func (s daemonState) pairs() *keyValues {
	kv := &keyValues{}
	if !s.Running {
		kv.add("status", cell{text: "not running", color: ansiRed})
		kv.add("data", plain(s.DataDir))
		kv.add("service", plain(s.serviceState.line()))
		return kv
	}
	kv.add("status", cell{text: "running", color: ansiGreen})
	kv.add("pid", plain(fmt.Sprint(s.PID)))
	kv.add("url", plain(s.URL))
	version := s.Version
	if s.Version != s.ClientVersion {
		version += " (padctl is " + s.ClientVersion + ": `padctl daemon restart`)"
	}
	kv.add("version", plain(version))
	kv.add("uptime", plain((time.Duration(s.UptimeSeconds) * time.Second).String()))
	kv.add("data", plain(s.DataDir))
	kv.add("service", plain(s.serviceState.line()))
	kv.add("database", plain(fmt.Sprintf("%s (%s)", s.DBPath, humanBytes(s.DBBytes))))
	kv.add("workspaces", plain(fmt.Sprint(s.Workspaces)))
	kv.add("agents", plain(fmt.Sprintf("%d connected over MCP", s.MCPSessions)))
	if m := s.Memory; m != nil {
		addMemory(kv, m)
	}
	// The daemon's clock at its answer, so an import's age does not
	// depend on this machine's.
	now := s.StartedAt.Add(time.Duration(s.UptimeSeconds) * time.Second)
	for _, im := range s.Imports {
		kv.add("importing", plain(importLine(im, now)))
	}
	return kv
}

// importLine is one import being written: its workspace appears once
// all of its items are.
func importLine(im api.ImportProgress, now time.Time) string {
	line := im.Name + ": " + progressText(im.ItemsWritten, im.Items) + " written"
	if age := now.Sub(im.StartedAt).Round(time.Second); !im.StartedAt.IsZero() && age >= 0 {
		line += ", for " + age.String()
	}
	return line + " (appears when whole)"
}

// addMemory puts first the memory padd owns (anonymous, of which the Go
// heap), then the file pages it maps, which top counts in RES too but
// which are the system's page cache, taken back when it needs them.
func addMemory(kv *keyValues, m *api.MemoryUse) {
	own := humanBytes(m.OwnBytes) + " its own"
	if m.HeapBytes > 0 {
		own += fmt.Sprintf(" (Go heap %s)", humanBytes(m.HeapBytes))
	}
	mapped := m.DatabaseBytes + m.IndexBytes + m.ProgramBytes
	if mapped == 0 {
		kv.add("memory", plain(own))
		return
	}
	kv.add("memory", plain(fmt.Sprintf("%s + %s file cache (reclaimable)", own, humanBytes(mapped))))
	kv.add("file cache", plain(fmt.Sprintf("database %s, index %s, program %s",
		humanBytes(m.DatabaseBytes), humanBytes(m.IndexBytes), humanBytes(m.ProgramBytes))))
	if m.PeakBytes > 0 {
		kv.add("peak RES", plain(humanBytes(m.PeakBytes)+" (both together, at their highest)"))
	}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// state asks the running padd for its status; Running is false when no
// padd answers.
func (a *App) daemonState(ctx context.Context) (daemonState, error) {
	dir, err := launch.DataDir()
	if err != nil {
		return daemonState{}, err
	}
	st := daemonState{DataDir: dir, ClientVersion: api.Version, serviceState: a.serviceState(ctx)}
	cl, info, err := a.connect(ctx, false)
	if err != nil {
		return st, nil
	}
	ds, err := cl.DaemonStatus(ctx)
	if err != nil {
		return st, err
	}
	st.Running, st.Port, st.URL, st.DaemonStatus = true, info.Port, info.URL(), ds
	return st, nil
}

func (a *App) emitDaemonState(st daemonState, line string) error {
	return a.emit(st, func(w io.Writer) error {
		if line != "" {
			_, err := fmt.Fprintln(w, line)
			return err
		}
		st.pairs().write(w, a.style, "")
		return nil
	}, func(w io.Writer) error {
		if line != "" {
			_, err := fmt.Fprintln(w, line)
			return err
		}
		return st.pairs().writeMarkdown(w)
	})
}

// DaemonStatusCmd is `daemon status`.
type DaemonStatusCmd struct{}

// Run reports padd's state without starting it.
func (c *DaemonStatusCmd) Run(ctx context.Context, a *App) error {
	st, err := a.daemonState(ctx)
	if err != nil {
		return err
	}
	if err := a.emitDaemonState(st, ""); err != nil {
		return err
	}
	if !st.Running {
		return &exitCode{ExitNotRunning}
	}
	return nil
}

// exitCode ends a command with a code but no error message: the output
// already said it.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit %d", e.code) }

// DaemonStartCmd is `daemon start`.
type DaemonStartCmd struct{}

// Run starts padd unless one is running.
func (c *DaemonStartCmd) Run(ctx context.Context, a *App) error {
	return a.startDaemon(ctx)
}

func (a *App) startDaemon(ctx context.Context) error {
	_, _, err := a.connect(ctx, false)
	wasRunning := err == nil
	if !wasRunning {
		if err := a.managerStart(ctx); err != nil {
			return err
		}
	}
	if _, err := a.Client(ctx); err != nil {
		return err
	}
	st, err := a.daemonState(ctx)
	if err != nil {
		return err
	}
	verb := "Started"
	if wasRunning {
		verb = "Already running:"
	}
	return a.emitDaemonState(st, fmt.Sprintf("%s padd %s (pid %d) on %s, data in %s", verb, st.Version, st.PID, st.URL, st.DataDir))
}

// DaemonStopCmd is `daemon stop`.
type DaemonStopCmd struct{}

// Run stops padd: it asks over the API, waits for the pid to exit, and
// falls back to SIGTERM when padd does not answer or does not exit.
func (c *DaemonStopCmd) Run(ctx context.Context, a *App) error {
	dir, stopped, err := a.stopDaemon(ctx)
	if err != nil {
		return err
	}
	out := map[string]any{"stopped": stopped != 0, "data_dir": dir}
	if stopped != 0 {
		out["pid"] = stopped
	}
	return a.emit(out, func(w io.Writer) error {
		if stopped == 0 {
			_, err := fmt.Fprintln(w, "padd is not running")
			return err
		}
		_, err := fmt.Fprintf(w, "Stopped padd (pid %d)\n", stopped)
		return err
	}, nil)
}

// stopDaemon stops the padd of the data directory; pid 0 means none was
// running.
func (a *App) stopDaemon(ctx context.Context) (dir string, pid int, err error) {
	dir, err = launch.DataDir()
	if err != nil {
		return "", 0, err
	}
	// Under a manager the manager stops padd, so its restart policy does
	// not bring it back; a padd it did not start is then stopped below.
	var managed int
	if before, err := launch.ReadInfo(dir); err == nil && launch.ProcessAlive(before.PID) {
		pid, err := a.managerStop(ctx)
		if err != nil {
			return dir, 0, err
		}
		if pid == before.PID && waitExit(ctx, pid, stopWait) {
			removeStaleInfo(dir, pid)
			managed = pid
		}
	}
	_, pid, err = a.stopUnmanaged(ctx, dir)
	if pid == 0 {
		pid = managed
	}
	return dir, pid, err
}

// stopUnmanaged stops the padd daemon.json names, asking it over the API
// first; pid 0 means none was running.
func (a *App) stopUnmanaged(ctx context.Context, dir string) (string, int, error) {
	info, err := launch.ReadInfo(dir)
	if errors.Is(err, launch.ErrNoDaemon) {
		return dir, 0, nil
	}
	if err != nil {
		return dir, 0, err
	}
	if !launch.ProcessAlive(info.PID) {
		removeStaleInfo(dir, info.PID)
		return dir, 0, nil
	}
	cl := api.NewClient(info.URL(), info.Token)
	sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	askErr := cl.Shutdown(sctx)
	cancel()
	if askErr == nil && waitExit(ctx, info.PID, stopWait) {
		removeStaleInfo(dir, info.PID)
		return dir, info.PID, nil
	}
	if askErr != nil {
		a.notef("padd did not take the stop request (%v); sending it SIGTERM", askErr)
	} else {
		a.notef("padd (pid %d) is still running %s after the stop request; sending it SIGTERM", info.PID, stopWait)
	}
	if err := terminate(info.PID); err != nil && launch.ProcessAlive(info.PID) {
		return dir, 0, failf(codeStopFailed, fmt.Sprintf("stop it by hand: kill %d", info.PID), "cannot signal padd (pid %d): %v", info.PID, err)
	}
	if !waitExit(ctx, info.PID, termWait) {
		return dir, 0, failf(codeStopFailed, fmt.Sprintf("see `padctl daemon logs`; as a last resort: kill -9 %d", info.PID),
			"padd (pid %d) is still running after SIGTERM", info.PID)
	}
	removeStaleInfo(dir, info.PID)
	return dir, info.PID, nil
}

// waitExit polls until pid has exited or d has passed.
func waitExit(ctx context.Context, pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for launch.ProcessAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// removeStaleInfo deletes daemon.json when it still names a padd that is
// gone (one that was killed never removes its own).
func removeStaleInfo(dir string, pid int) {
	if i, err := launch.ReadInfo(dir); err == nil && i.PID == pid && !launch.ProcessAlive(pid) {
		os.Remove(filepath.Join(dir, launch.InfoFile))
	}
}

// DaemonRestartCmd is `daemon restart`.
type DaemonRestartCmd struct{}

// Run stops padd (if running) and starts it again: after an upgrade,
// this runs the padd that matches padctl.
func (c *DaemonRestartCmd) Run(ctx context.Context, a *App) error {
	if _, _, err := a.stopDaemon(ctx); err != nil {
		return err
	}
	return a.startDaemon(ctx)
}

// serviceHost reaches the user's service manager. The tests put a Host
// whose Runner records the manager's commands in its place.
var serviceHost = func() (*userservice.Host, error) { return userservice.Local(nil) }

// serviceState is the service entry's part of `daemon status` (and of
// install and uninstall), for people and for the tray.
type serviceState struct {
	Installed   bool                `json:"installed"`
	Manager     userservice.Manager `json:"manager"` // systemd-user, launchd, windows-logon, xdg-autostart or none
	Enabled     bool                `json:"enabled"` // starts at login
	UnitPath    string              `json:"unit_path"`
	ServicePID  int                 `json:"service_pid,omitempty"`  // the manager's padd, when it runs one
	ServiceNote string              `json:"service_note,omitempty"` // what is wrong with the entry
}

func (s serviceState) line() string {
	if !s.Installed {
		l := "not installed (`padctl daemon install` starts padd at login)"
		if s.ServiceNote != "" {
			l += "; " + s.ServiceNote
		}
		return l
	}
	en := "enabled"
	if !s.Enabled {
		en = "disabled"
	}
	l := fmt.Sprintf("%s, %s (%s)", s.Manager, en, s.UnitPath)
	if s.ServiceNote != "" {
		l += "; " + s.ServiceNote
	}
	return l
}

// serviceQuery finds padd's service entry for this data directory. An
// entry that runs padd on another data directory (PAD_HOME differs) is
// not this padd's: it counts as not installed, and other says whose it is.
func (a *App) serviceQuery(ctx context.Context) (*userservice.Host, userservice.Status, error) {
	h, st, _, err := a.serviceEntry(ctx)
	return h, st, err
}

func (a *App) serviceEntry(ctx context.Context) (h *userservice.Host, st userservice.Status, other string, err error) {
	none := userservice.Status{Manager: userservice.None}
	if h, err = serviceHost(); err != nil {
		return nil, none, "", err
	}
	// A manager that does not answer (a wedged session bus) must not
	// hang status; it counts as none.
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if st, err = h.Query(qctx); err != nil || !st.Installed {
		return h, st, "", err
	}
	want, err := launch.DataDir()
	if err != nil {
		return h, none, "", err
	}
	home := st.PadHome
	if home == "" {
		home = defaultDataDir()
	}
	if filepath.Clean(home) != filepath.Clean(want) {
		return h, none, fmt.Sprintf("the %s entry %s runs padd on %s, not this one", st.Manager, st.Path, home), nil
	}
	return h, st, "", nil
}

// defaultDataDir is the data directory without PAD_HOME (launch.DataDir's
// rule), which an entry that sets no PAD_HOME runs padd on.
func defaultDataDir() string {
	home, _ := os.UserHomeDir()
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "padd")
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "padd")
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "padd")
	}
	return filepath.Join(home, ".local", "share", "padd")
}

func (a *App) serviceState(ctx context.Context) serviceState {
	_, st, other, err := a.serviceEntry(ctx)
	if err != nil {
		return serviceState{Manager: userservice.None, ServiceNote: err.Error()}
	}
	if other != "" {
		return serviceState{Manager: userservice.None, ServiceNote: other}
	}
	s := serviceState{Installed: st.Installed, Manager: st.Manager, Enabled: st.Enabled, UnitPath: st.Path, ServicePID: st.PID}
	if st.Manager == userservice.SystemdUser {
		// An upgrade that moved padd leaves a unit naming a file that is
		// gone: the manager would fail to start it at the next login.
		if b, err := os.ReadFile(st.Path); err == nil {
			if argv, _, err := userservice.UnitCommand(string(b)); err == nil {
				if _, err := os.Stat(argv[0]); err != nil {
					s.ServiceNote = fmt.Sprintf("the unit's padd %s is gone: `padctl daemon install` writes the unit again", argv[0])
				}
			}
		}
	}
	return s
}

// managerStart starts padd through its manager when an installed entry
// has one that controls padd, and waits until padd answers. Otherwise it
// does nothing: the caller starts padd itself.
func (a *App) managerStart(ctx context.Context) error {
	h, st, err := a.serviceQuery(ctx)
	if err != nil || !st.Installed || !st.Manager.Controls() {
		return nil
	}
	if err := h.Start(ctx, st.Manager); err != nil {
		return failf(codeServiceFailed, "see `padctl daemon logs`", "%s did not start padd: %v", st.Manager, err)
	}
	return a.waitManaged(ctx, st.Manager)
}

// waitManaged waits until the padd a manager started answers.
func (a *App) waitManaged(ctx context.Context, m userservice.Manager) error {
	deadline := time.Now().Add(stopWait)
	for {
		if _, _, err := a.connect(ctx, false); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return failf(codeServiceFailed, "see `padctl daemon logs`", "padd did not answer within %s of %s starting it: %v", stopWait, m, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// managerStop stops padd through its manager when an installed entry
// has one that runs padd now, and returns the pid the manager ran (0:
// it ran none).
func (a *App) managerStop(ctx context.Context) (pid int, err error) {
	h, st, err := a.serviceQuery(ctx)
	if err != nil || !st.Installed || !st.Manager.Controls() || !st.Active {
		return 0, nil
	}
	if err := h.Stop(ctx, st.Manager); err != nil {
		return 0, failf(codeServiceFailed, "see `padctl daemon logs`", "%s did not stop padd: %v", st.Manager, err)
	}
	return st.PID, nil
}

// DaemonInstallCmd is `daemon install`.
type DaemonInstallCmd struct{}

// Run writes padd's per-user service entry for the padd beside padctl
// (else on PATH) and starts padd under it. A running padd is stopped
// first, so there is one padd, and it is the installed one.
func (c *DaemonInstallCmd) Run(ctx context.Context, a *App) error {
	dir, err := launch.DataDir()
	if err != nil {
		return err
	}
	padd, err := launch.PaddPath("")
	if err != nil {
		return failf(codeNoPadd, "install padd beside padctl", "%v", err)
	}
	if padd, err = filepath.Abs(padd); err != nil {
		return err
	}
	spec := userservice.Spec{Executable: padd, LogDir: dir}
	if filepath.Clean(dir) != filepath.Clean(defaultDataDir()) {
		spec.PadHome = dir
	}
	h, err := serviceHost()
	if err != nil {
		return err
	}
	choice := h.Choose(ctx)
	if choice.Why != "" {
		a.notef("%s; installing an XDG autostart entry instead: a desktop session starts padd at login, and nothing restarts it after a crash", choice.Why)
	}
	// Installing restarts padd: a padd padctl started outside the manager
	// goes (one padd), and so does the padd an upgrade left running.
	if _, _, err := a.stopDaemon(ctx); err != nil {
		return err
	}
	if err := h.Install(ctx, choice, spec); err != nil {
		return failf(codeServiceFailed, "`padctl daemon status` shows what is installed", "installing padd under %s: %v", choice.Manager, err)
	}
	if choice.Manager.Controls() {
		err = a.waitManaged(ctx, choice.Manager)
	} else {
		_, err = a.Client(ctx)
	}
	if err != nil {
		return err
	}
	st, err := a.daemonState(ctx)
	if err != nil {
		return err
	}
	return a.emitDaemonState(st, fmt.Sprintf("Installed padd under %s (%s); running as pid %d on %s", st.Manager, st.UnitPath, st.PID, st.URL))
}

// DaemonUninstallCmd is `daemon uninstall`.
type DaemonUninstallCmd struct{}

// Run stops padd and removes its entry; the data stays.
func (c *DaemonUninstallCmd) Run(ctx context.Context, a *App) error {
	h, st, err := a.serviceQuery(ctx)
	if err != nil {
		return err
	}
	if !st.Installed {
		s, err := a.daemonState(ctx)
		if err != nil {
			return err
		}
		return a.emitDaemonState(s, "padd's service entry is not installed: nothing to remove")
	}
	if err := h.Uninstall(ctx, st); err != nil {
		return failf(codeServiceFailed, "`padctl daemon status` shows what is left", "removing padd's %s entry: %v", st.Manager, err)
	}
	dir, err := launch.DataDir()
	if err != nil {
		return err
	}
	if _, _, err := a.stopUnmanaged(ctx, dir); err != nil {
		return err
	}
	s, err := a.daemonState(ctx)
	if err != nil {
		return err
	}
	return a.emitDaemonState(s, fmt.Sprintf("Removed padd's %s entry (%s) and stopped padd; its data stays in %s", st.Manager, st.Path, dir))
}

// versionNoticeFile, in the data directory, names the padd (pid and
// version) padctl last told the user about, so that the notice comes
// once per running padd rather than on every command.
const versionNoticeFile = "padctl.version-notice"

// versionMismatch tells the user, once per running padd, that padd's
// version is not padctl's, and what fixes it: a padd older than padctl
// (an upgrade left the old one running) is restarted with `padctl daemon
// restart`, which goes through the service manager when padd is
// installed as a service; a padctl older than padd is itself the one to
// upgrade.
func (a *App) versionMismatch(info *launch.Info, server, client string) {
	if info != nil {
		if dir, err := launch.DataDir(); err == nil {
			mark := filepath.Join(dir, versionNoticeFile)
			key := fmt.Sprintf("%d %s\n", info.PID, server)
			if b, err := os.ReadFile(mark); err == nil && string(b) == key {
				return
			}
			_ = os.WriteFile(mark, []byte(key), 0o600)
		}
	}
	switch compareVersions(server, client) {
	case -1:
		a.warnf("padd %s is older than padctl %s: the padd from before an upgrade is still running; `padctl daemon restart` runs the new one (agents' MCP sessions reconnect by themselves)", server, client)
	case 1:
		a.warnf("padctl %s is older than padd %s: upgrade padctl (padd is the newer one and keeps running)", client, server)
	default:
		a.warnf("padd is version %s but padctl is %s; `padctl daemon restart` runs the padd that matches padctl", server, client)
	}
}

// compareVersions orders two vMAJOR.MINOR.PATCH[-pre] versions: -1, 0 or
// 1; 0 also when either is not of that form ("dev", a commit), whose
// order is unknown.
func compareVersions(a, b string) int {
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	if !oka || !okb {
		return 0
	}
	for i := range 3 {
		if pa.n[i] != pb.n[i] {
			if pa.n[i] < pb.n[i] {
				return -1
			}
			return 1
		}
	}
	ra, rb := preRank(pa.pre), preRank(pb.pre)
	switch {
	case ra != rb:
		if ra < rb {
			return -1
		}
		return 1
	case pa.pre == pb.pre:
		return 0
	case pa.pre < pb.pre:
		return -1
	}
	return 1
}

// preRank orders what follows the version: a pre-release (-rc.1) comes
// before its release, and git describe's commits after a tag
// (-4-gabc123) after it.
func preRank(pre string) int {
	if pre == "" {
		return 1
	}
	if n, rest, ok := strings.Cut(pre, "-g"); ok {
		if _, err := strconv.Atoi(n); err == nil && rest != "" {
			return 2
		}
	}
	return 0
}

type version struct {
	n   [3]int
	pre string
}

func parseVersion(s string) (version, bool) {
	var v version
	s, ok := strings.CutPrefix(s, "v")
	if !ok {
		return v, false
	}
	s, _, _ = strings.Cut(s, "+")
	s, v.pre, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v.n[i] = n
	}
	return v, true
}
