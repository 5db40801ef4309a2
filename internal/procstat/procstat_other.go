//go:build !linux

package procstat

import (
	"errors"
	"time"
)

var errNoProc = errors.New("no /proc here")

// CPU needs /proc.
func CPU(int) (time.Duration, error) { return 0, errNoProc }

// TreeCPU needs /proc.
func TreeCPU(int) (time.Duration, error) { return 0, errNoProc }

// LoadAvg needs /proc.
func LoadAvg() string { return "unknown" }
