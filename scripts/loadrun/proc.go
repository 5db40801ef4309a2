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

// Process measurements from /proc (Linux); CPU times come from
// internal/procstat.

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

// memSampler samples a process's resident set while the load runs, and
// padd's Go heap as padd counts it (memory.heap_bytes of /padd/status):
// less often, since padd reads its smaps to answer.
type memSampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	max     memInfo // the largest sample of each (KiB)
	last    memInfo
	n       int
	maxHeap int64 // bytes
	nHeap   int
}

func sampleMem(pid int, every time.Duration, heap func() (int64, error), heapEvery time.Duration) *memSampler {
	s := &memSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		h := time.NewTicker(heapEvery)
		defer h.Stop()
		readHeap := func() {
			if b, err := heap(); err == nil {
				s.mu.Lock()
				s.maxHeap = max(s.maxHeap, b)
				s.nHeap++
				s.mu.Unlock()
			}
		}
		readHeap()
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
				readHeap()
				return
			case <-h.C:
				readHeap()
			case <-t.C:
			}
		}
	}()
	return s
}

// memSample is what a memSampler saw: the maxima of each kind, the last
// resident set, and the peak Go heap (bytes), with the sample counts.
type memSample struct {
	max, last   memInfo
	samples     int
	heap        int64
	heapSamples int
}

func (s *memSampler) end() memSample {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return memSample{max: s.max, last: s.last, samples: s.n, heap: s.maxHeap, heapSamples: s.nHeap}
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
