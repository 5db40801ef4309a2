// Package procstat reads processes' CPU time and context switches from
// /proc, for the benchmarks and the load run that report what each
// process of a run cost, and for the measures of an idle padd's wake-ups.
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

// Usage is what a process, or a tree of them, has cost so far.
type Usage struct {
	User, Sys time.Duration
	// Waits counts the times its threads gave up the CPU to wait (the
	// voluntary context switches: a sleep, a blocking read, a futex).
	// Where each entry into the kernel is dear, as on a VM, they price a
	// process's design as much as its CPU does.
	Waits int64
	// Switches counts every time its threads left the CPU, the waits and
	// the preemptions (voluntary and nonvoluntary context switches). On
	// an idle process each one is a wake-up: a thread that never runs is
	// never switched out.
	Switches int64
}

// CPU is the user and system time together.
func (u Usage) CPU() time.Duration { return u.User + u.Sys }

// Sub is what was spent since an earlier reading.
func (u Usage) Sub(v Usage) Usage {
	return Usage{User: u.User - v.User, Sys: u.Sys - v.Sys, Waits: u.Waits - v.Waits, Switches: u.Switches - v.Switches}
}

// Add is two usages together.
func (u Usage) Add(v Usage) Usage {
	return Usage{User: u.User + v.User, Sys: u.Sys + v.Sys, Waits: u.Waits + v.Waits, Switches: u.Switches + v.Switches}
}

// CPU is a process's user and system CPU time so far.
func CPU(pid int) (time.Duration, error) {
	u, err := Read(pid)
	return u.CPU(), err
}

// Read is a process's usage so far: its times from /proc/<pid>/stat, and
// its live threads' waits from their status files (a thread that ended
// takes its count with it, so the waits are a floor).
func Read(pid int) (Usage, error) {
	f, err := Fields(pid)
	if err != nil {
		return Usage{}, err
	}
	// After ')': state is field 3, utime field 14, stime field 15.
	if len(f) < 13 {
		return Usage{}, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return Usage{}, fmt.Errorf("/proc/%d/stat: bad times", pid)
	}
	u := Usage{User: time.Duration(ut) * time.Second / userHZ, Sys: time.Duration(st) * time.Second / userHZ}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		waits, preempts := statusCount(b, "\nvoluntary_ctxt_switches:"), statusCount(b, "\nnonvoluntary_ctxt_switches:")
		u.Waits += waits
		u.Switches += waits + preempts
	}
	return u, nil
}

// statusCount is the number after key (a line's start, with its colon)
// in a /proc status file, 0 when absent.
func statusCount(status []byte, key string) int64 {
	i := strings.Index(string(status), key)
	if i < 0 {
		return 0
	}
	line, _, _ := strings.Cut(string(status[i+len(key):]), "\n")
	n, _ := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	return n
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
func TreeCPU(pid int) (time.Duration, error) {
	u, err := ReadTree(pid)
	return u.CPU(), err
}

// ReadTree is Read of a process and its live descendants together.
// (This kernel has no /proc/<pid>/task/<tid>/children: the parents are
// read from every process's stat.)
func ReadTree(pid int) (Usage, error) {
	sum, err := Read(pid)
	if err != nil {
		return Usage{}, err
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
			if u, err := ReadTree(child); err == nil {
				sum = sum.Add(u)
			}
		}
	}
	return sum, nil
}

// WaitQuiet waits until none of the processes' threads has left the CPU
// for a whole span of quiet, and answers how long that took: a process
// whose start-up work is done and that nothing wakes goes quiet at once.
// It gives up after timeout with an error (one that still wakes that
// often is what a measure of it will show). Reading their counts from
// /proc, as it does a few times a second, wakes none of them.
func WaitQuiet(quiet, timeout time.Duration, pids ...int) (time.Duration, error) {
	count := func() (int64, error) {
		var n int64
		for _, pid := range pids {
			u, err := Read(pid)
			if err != nil {
				return 0, err
			}
			n += u.Switches
		}
		return n, nil
	}
	start := time.Now()
	last, err := count()
	if err != nil {
		return 0, err
	}
	woke := start // when the count last moved, as far as the polls tell
	poll := min(quiet/4, 250*time.Millisecond)
	for {
		time.Sleep(poll)
		n, err := count()
		if err != nil {
			return 0, err
		}
		now := time.Now()
		if n != last {
			last, woke = n, now
		}
		if now.Sub(woke) >= quiet {
			return now.Sub(start), nil
		}
		if now.Sub(start) >= timeout {
			return now.Sub(start), fmt.Errorf("processes %v still woke within the last %s after %s", pids, quiet, timeout)
		}
	}
}

// LoadAvg is /proc/loadavg's first three numbers ("unknown" when it
// cannot be read).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return strings.TrimSpace(string(b))
	}
	return strings.Join(f[:3], " ")
}
