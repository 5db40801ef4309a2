//go:build linux

package main

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"time"
)

// pace times user-space work only, and on a VM that is not always where
// its slow days are: the pace after a run can be as fast as on a quick
// day while every process of the load, the relays above all, spends
// several times the CPU per operation (runs AI of
// docs/PERFORMANCE.md's history: git show a6864cb:docs/PERFORMANCE.md). The load
// is a chain of
// processes handing small messages over pipes and sockets, so it pays for
// kernel entries: system calls, wake-ups of a thread blocked in one, page
// faults. kernelPace times those three, so that a report says whether the
// machine's kernel was dear that day.
func kernelPace() map[string]string {
	return map[string]string{
		"syscall_us":         fmt.Sprintf("%.2f", median(9, syscallCost)),
		"pipe_round_trip_us": fmt.Sprintf("%.1f", median(5, pipeRoundTrip)),
		"page_fault_us":      fmt.Sprintf("%.2f", median(5, pageFault)),
	}
}

func median(rounds int, f func() float64) float64 {
	times := make([]float64, rounds)
	for i := range times {
		times[i] = f()
	}
	slices.Sort(times)
	return times[rounds/2]
}

// syscallCost is one system call that does no work.
func syscallCost() float64 {
	const n = 20_000
	start := time.Now()
	for range n {
		syscall.Getppid()
	}
	return float64(time.Since(start).Nanoseconds()) / n / 1000
}

// pipeRoundTrip is a byte sent to a thread blocked reading a pipe and sent
// back the same way: two wake-ups of a blocked thread, as in every hop of
// an MCP call (agent, relay, padd and back).
func pipeRoundTrip() float64 {
	var there, back [2]int
	if err := syscall.Pipe(there[:]); err != nil {
		return 0
	}
	if err := syscall.Pipe(back[:]); err != nil {
		syscall.Close(there[0])
		syscall.Close(there[1])
		return 0
	}
	defer func() {
		for _, fd := range []int{there[0], there[1], back[0], back[1]} {
			syscall.Close(fd)
		}
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		b := make([]byte, 1)
		for {
			if n, err := syscall.Read(there[0], b); n != 1 || err != nil {
				return
			}
			syscall.Write(back[1], b)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const warm, n = 100, 2000
	b := []byte{1}
	var start time.Time
	for i := range warm + n {
		if i == warm {
			start = time.Now()
		}
		syscall.Write(there[1], b)
		syscall.Read(back[0], b)
	}
	d := time.Since(start)
	syscall.Close(there[1]) // ends the echo
	<-done
	return float64(d.Nanoseconds()) / n / 1000
}

// pageFault is the first touch of a page of fresh anonymous memory, in
// small pages: what a process pays for memory it has not used before (a
// started padctl, a heap that grew).
func pageFault() float64 {
	const size, page = 8 << 20, 4096
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0
	}
	defer syscall.Munmap(m)
	syscall.Madvise(m, syscall.MADV_NOHUGEPAGE) // one fault per small page
	start := time.Now()
	for i := 0; i < size; i += page {
		m[i] = 1
	}
	return float64(time.Since(start).Nanoseconds()) / (size / page) / 1000
}
