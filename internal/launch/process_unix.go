//go:build !windows

package launch

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether a process with this pid exists and has not
// exited. A zombie (dead, waiting to be reaped) counts as exited: under a
// container's PID 1 that reaps lazily it can linger.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}
