package mirror

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// heldForWriting reports whether another program has the file at p open
// for writing: a writer that may still add bytes, so the file is neither
// read as settled nor moved nor removed. Linux refuses a read lease on a
// file open for writing anywhere (EAGAIN); the lease taken is let go at
// once (a writer opening the file in that instant waits that long; the
// SIGIO its open sends padd is one Go ignores). Where leases are not available (another owner, a network
// filesystem) it says false, and the settle delay alone decides.
func heldForWriting(p string) bool {
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return false // nothing opened that is not a plain file (a device, a fifo)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fd := int(f.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		return errors.Is(err, unix.EAGAIN)
	}
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
	return false
}
