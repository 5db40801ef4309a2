//go:build linux

package mapped

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Supported says whether Release gives anything back on this system.
const Supported = true

// Release drops n bytes at addr of a shared, read-only file mapping from
// this process's page tables. The caller must hold the mapping in place
// (no unmap or remap meanwhile): on an address that has become anonymous
// memory it would zero that memory.
func Release(addr, n uintptr) error {
	if n == 0 {
		return nil
	}
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_DONTNEED); e != 0 {
		return fmt.Errorf("madvise(MADV_DONTNEED) on %d bytes at %#x: %w", n, addr, e)
	}
	return nil
}

// ReleaseBytes is Release over b, a whole mapping or part of one.
func ReleaseBytes(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := unix.Madvise(b, unix.MADV_DONTNEED); err != nil {
		return fmt.Errorf("madvise(MADV_DONTNEED) on %d bytes: %w", len(b), err)
	}
	return nil
}

var (
	statmOnce sync.Once
	statm     *os.File
	statmErr  error
	pageSize  = int64(os.Getpagesize())
)

// Resident is this process's resident set in bytes, and the part of it
// that maps files (statm's resident and shared: shared is file-backed
// and shmem pages). One read of an open /proc/self/statm, a few
// microseconds: cheap enough to ask many times a second.
func Resident() (rss, file int64, err error) {
	statmOnce.Do(func() { statm, statmErr = os.Open("/proc/self/statm") })
	if statmErr != nil {
		return 0, 0, statmErr
	}
	var buf [128]byte
	n, err := statm.ReadAt(buf[:], 0)
	if n == 0 && err != nil {
		return 0, 0, fmt.Errorf("read /proc/self/statm: %w", err)
	}
	return parseStatm(buf[:n])
}

// parseStatm reads statm's "size resident shared text lib data dt", in
// pages.
func parseStatm(b []byte) (rss, file int64, err error) {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0, fmt.Errorf("/proc/self/statm: %q has fewer than 3 fields", b)
	}
	r, err1 := strconv.ParseInt(string(f[1]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("/proc/self/statm: %q is not a list of page counts", b)
	}
	return r * pageSize, s * pageSize, nil
}
