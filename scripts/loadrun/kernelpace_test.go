//go:build linux

package main

import (
	"strconv"
	"testing"
)

// Each figure is a time the machine took, so it is a positive number; a
// probe whose pipe or mapping failed answers 0 and must not pass for fast.
func TestKernelPaceMeasures(t *testing.T) {
	got := kernelPace()
	for _, k := range []string{"syscall_us", "pipe_round_trip_us", "page_fault_us"} {
		v, err := strconv.ParseFloat(got[k], 64)
		if err != nil || v <= 0 || v > 1e5 {
			t.Errorf("%s = %q, want a time in µs", k, got[k])
		}
	}
	t.Logf("%v", got)
}
