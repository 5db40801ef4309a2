//go:build unix

package daemon

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on a
// busy machine a step's wall time says more about the neighbours than
// about padd, its CPU time does not. It counts the whole process, the
// indexer's work on what the step wrote included. cputime_windows_test.go
// reads the same from Windows.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
