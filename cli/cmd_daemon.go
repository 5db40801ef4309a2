package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
)

// DaemonCmd groups the commands that manage padd itself.
type DaemonCmd struct {
	Start   DaemonStartCmd   `cmd:"" help:"Start padd in the background (if it is not running)."`
	Stop    DaemonStopCmd    `cmd:"" help:"Stop padd and wait until it has exited."`
	Restart DaemonRestartCmd `cmd:"" help:"Stop padd, then start it again."`
	Status  DaemonStatusCmd  `cmd:"" help:"Say whether padd is running, and its pid, port, version and data. Exit code 3 when it is not running."`
	Logs    DaemonLogsCmd    `cmd:"" help:"Print padd's log (padd.log in the data directory)."`
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
	*api.DaemonStatus
}

func (s daemonState) pairs() *keyValues {
	kv := &keyValues{}
	if !s.Running {
		kv.add("status", cell{text: "not running", color: ansiRed})
		kv.add("data", plain(s.DataDir))
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
	kv.add("database", plain(fmt.Sprintf("%s (%s)", s.DBPath, humanBytes(s.DBBytes))))
	kv.add("workspaces", plain(fmt.Sprint(s.Workspaces)))
	kv.add("agents", plain(fmt.Sprintf("%d connected over MCP", s.MCPSessions)))
	if m := s.Memory; m != nil {
		addMemory(kv, m)
	}
	return kv
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
	st := daemonState{DataDir: dir, ClientVersion: api.Version}
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
		return dir, 0, failf("stop_failed", fmt.Sprintf("stop it by hand: kill %d", info.PID), "cannot signal padd (pid %d): %v", info.PID, err)
	}
	if !waitExit(ctx, info.PID, termWait) {
		return dir, 0, failf("stop_failed", fmt.Sprintf("see `padctl daemon logs`; as a last resort: kill -9 %d", info.PID),
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
