package mapped

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A read that faults on a cached file maps the cached pages of the 64 KB
// around it as well (the kernel's fault-around), so that a scan takes one
// fault for sixteen pages. padd reads bbolt at random, and under load
// those neighbours were 50-64 KB of resident set per fault, most of it
// never read. The kernel skips fault-around in a range registered with a
// userfaultfd for write-protect tracking, whose pages must each fault on
// their own. Registered asynchronously (UFFD_FEATURE_WP_ASYNC, Linux 6.7)
// the descriptor never carries a message and no thread serves it; and
// since bbolt's mapping is read-only nothing is ever written through it.
// So the registration changes one thing: a fault maps the page it reads.
//
// Except where the page cache holds the file in 2 MB folios (ext4 makes
// them of large writes and readahead since Linux 6.16): a fault on one is
// mapped whole by a single page-table entry, fault-around or not, unless
// the range is marked MADV_NOHUGEPAGE, which is the other half of it.

// The ioctl numbers are the generic _IOWR encoding (amd64, arm64, riscv64,
// loong64, 386, arm). Elsewhere the kernel answers ENOTTY or EINVAL and
// MapExactly says so.
const (
	uffdUserModeOnly   = 1
	uffdAPIVersion     = 0xAA
	uffdFeatureWPAsync = 1 << 15
	uffdModeWP         = 1 << 1
	uffdioAPI          = 3<<30 | 24<<16 | 0xAA<<8 | 0x3F // _IOWR(0xAA, 0x3F, struct uffdio_api)
	uffdioRegister     = 3<<30 | 32<<16 | 0xAA<<8 | 0x00 // _IOWR(0xAA, 0x00, struct uffdio_register)
)

type uffdioAPIArg struct{ api, features, ioctls uint64 }

type uffdioRegisterArg struct{ start, len, mode, ioctls uint64 }

// The process's one descriptor. It stays open for the process's life:
// closing it would drop every registration made through it.
var uffd struct {
	once sync.Once
	fd   uintptr
	err  error
}

func openUffd() (uintptr, error) {
	uffd.once.Do(func() {
		// User-mode-only descriptors need no privilege (Linux 5.11).
		fd, _, e := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|unix.O_NONBLOCK|uffdUserModeOnly, 0, 0)
		if e != 0 {
			uffd.err = fmt.Errorf("userfaultfd: %w", e)
			return
		}
		api := uffdioAPIArg{api: uffdAPIVersion, features: uffdFeatureWPAsync}
		if err := ioctl(fd, uffdioAPI, unsafe.Pointer(&api)); err != nil {
			unix.Close(int(fd))
			uffd.err = fmt.Errorf("userfaultfd without asynchronous write-protect tracking (Linux 6.7 or later has it): %w", err)
			return
		}
		uffd.fd = fd
	})
	return uffd.fd, uffd.err
}

func ioctl(fd, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, fd, req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// CanMapExactly says why MapExactly cannot work on this system, or nil.
func CanMapExactly() error {
	_, err := openUffd()
	return err
}

// MapExactly makes reads of the n bytes at addr, page-aligned, map only
// the page each one reads. The range must be a shared file mapping of a
// file opened for writing, as bbolt's is (a read-only descriptor's
// mapping is refused with EPERM), or a private one. The caller must hold
// the mapping in place while it registers; a new mapping of the file (a
// remap) must be registered again, and registering a range again is
// cheap. On an error reads go on as before, with fault-around.
func MapExactly(addr, n uintptr) error {
	if n == 0 {
		return nil
	}
	fd, err := openUffd()
	if err != nil {
		return err
	}
	ps := uintptr(pageSize)
	n = (n + ps - 1) &^ (ps - 1)
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_NOHUGEPAGE); e != 0 {
		return fmt.Errorf("madvise(MADV_NOHUGEPAGE) on %d bytes at %#x: %w", n, addr, e)
	}
	reg := uffdioRegisterArg{start: uint64(addr), len: uint64(n), mode: uffdModeWP}
	if err := ioctl(fd, uffdioRegister, unsafe.Pointer(&reg)); err != nil {
		return fmt.Errorf("userfaultfd register of %d bytes at %#x: %w", n, addr, err)
	}
	return nil
}
