// Package procstat reads processes' CPU time from /proc, for the
// benchmarks and the load run that report what each process of a run
// cost.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc/<pid>/stat's times, which Linux fixes at
// 100 per second for every userspace interface.
const userHZ = 100

// CPU is a process's user and system CPU time so far.
func CPU(pid int) (time.Duration, error) {
	f, err := Fields(pid)
	if err != nil {
		return 0, err
	}
	// After ')': state is field 3, utime field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad times", pid)
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// Fields are /proc/<pid>/stat's fields after the command name (field
// 2, which may hold spaces): f[0] is the state, f[1] the parent.
func Fields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// TreeCPU is the CPU time so far of a process and its live descendants:
// `padctl mcp serve` waits while its child `padd mcp-serve` does the work.
// (This kernel has no /proc/<pid>/task/<tid>/children: the parents are
// read from every process's stat.)
func TreeCPU(pid int) (time.Duration, error) {
	sum, err := CPU(pid)
	if err != nil {
		return 0, err
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return sum, err
	}
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, err := Fields(child); err == nil && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if d, err := TreeCPU(child); err == nil {
				sum += d
			}
		}
	}
	return sum, nil
}
