package testbin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// RunShared is the directory the test packages of this `go test` run
// share, locked for the caller until unlock. `go test` runs each
// package's test binary as its own child, so the run is the parent
// process, told apart from a later process with the same pid by its
// start time. ok is false when the parent is not the go command (a test
// binary run by hand keeps its build to itself). Directories of runs
// that have ended are removed on the way.
func RunShared(race bool) (dir string, unlock func(), ok bool) {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return "", nil, false
	}
	start, ok := startTime(ppid)
	if !ok {
		return "", nil, false
	}
	sweepEndedRuns()
	name := fmt.Sprintf("padd-testbin-run-%d-%s", ppid, start)
	if race {
		name += "-race"
	}
	dir = filepath.Join(os.TempDir(), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, false
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", nil, false
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, false
	}
	return dir, func() { lock.Close() }, true
}

// startTime is field 22 of /proc/<pid>/stat: when the process started,
// in clock ticks since boot.
func startTime(pid int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}

// sweepEndedRuns removes the shared directories of runs whose go command
// has exited.
func sweepEndedRuns() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "padd-testbin-run-*"))
	for _, m := range matches {
		var pid int
		var start string
		rest := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(m), ".lock"), "-race")
		if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(rest, "padd-testbin-run-"), "-", " "), "%d %s", &pid, &start); err != nil {
			continue
		}
		if now, ok := startTime(pid); !ok || now != start {
			os.RemoveAll(m)
		}
	}
}
