package daemon

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used, as
// cputime_unix_test.go says; Windows counts it in 100 ns ticks.
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
