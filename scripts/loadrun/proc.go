//go:build linux

package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Process measurements from /proc (Linux). CPU times in /proc/<pid>/stat
// are in USER_HZ ticks, which Linux fixes at 100 per second for every
// userspace interface.

const userHZ = 100

// procCPU is a process's user+system CPU time so far.
func procCPU(pid int) (time.Duration, error) {
	f, err := statFields(pid)
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

// statFields are /proc/<pid>/stat's fields after the command name
// (field 2, which may hold spaces): f[0] is the state, f[1] the parent.
func statFields(pid int) ([]string, error) {
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

// treeCPU is the CPU time so far of a process and its live descendants:
// `padctl mcp serve` waits while its child `padd mcp-serve` does the work.
func treeCPU(pid int) (time.Duration, error) {
	sum, err := procCPU(pid)
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
		if f, err := statFields(child); err == nil && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if d, err := treeCPU(child); err == nil {
				sum += d
			}
		}
	}
	return sum, nil
}

// memInfo is a process's memory from /proc/<pid>/status, in KiB: the
// resident set now (VmRSS) and its peak (VmHWM), and the resident set's
// parts: anonymous (heap, stacks) and file-backed (mapped files: the
// bbolt database, Bleve's segments, the binary).
type memInfo struct {
	RSS, HWM, Anon, File int64
}

func procMem(pid int) (memInfo, error) {
	var m memInfo
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.RSS = n
		case "VmHWM:":
			m.HWM = n
		case "RssAnon:":
			m.Anon = n
		case "RssFile:":
			m.File = n
		}
	}
	return m, nil
}

// loadAvg is /proc/loadavg's first three numbers.
func loadAvg() string {
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

// machine describes where the run happened.
func machine() map[string]string {
	m := map[string]string{"cpus": strconv.Itoa(runtime.NumCPU()), "go": runtime.Version(), "os": runtime.GOOS + "/" + runtime.GOARCH}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m["cpu"] = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if line, _, ok := strings.Cut(string(b), "\n"); ok {
			m["mem"] = strings.Join(strings.Fields(line)[1:], " ")
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m["kernel"] = strings.TrimSpace(string(b))
	}
	return m
}

// memSampler samples a process's resident set while the load runs.
type memSampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	max  memInfo // the largest sample of each (KiB)
	last memInfo
	n    int
}

func sampleMem(pid int, every time.Duration) *memSampler {
	s := &memSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if m, err := procMem(pid); err == nil {
				s.mu.Lock()
				s.max = memInfo{RSS: max(s.max.RSS, m.RSS), HWM: max(s.max.HWM, m.HWM),
					Anon: max(s.max.Anon, m.Anon), File: max(s.max.File, m.File)}
				s.last = m
				s.n++
				s.mu.Unlock()
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *memSampler) end() (maxima, last memInfo, samples int) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max, s.last, s.n
}

// cpuTimes is the machine's CPU time so far, from /proc/stat's first
// line, in USER_HZ ticks: all of it, the part not idle, and the part the
// hypervisor gave to others (steal).
type cpuTimes struct{ total, busy, steal int64 }

func machineCPU() (cpuTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var t cpuTimes
	for i, s := range f[1:9] { // user nice system idle iowait irq softirq steal
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("/proc/stat: %w", err)
		}
		t.total += n
		switch i {
		case 3, 4: // idle, iowait
		case 7:
			t.steal += n
		default:
			t.busy += n
		}
	}
	return t, nil
}
