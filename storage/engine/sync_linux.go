package engine

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data, and its metadata only where reading the
// data back needs it: cheaper than fsync for the log's in-place writes.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
