//go:build !windows

package mcpstdio

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerClosed says whether padd has already closed its side: its end of
// the stream is waiting to be read. A message written then would be
// lost without padd ever seeing it; the relay sends it on a new
// connection instead. It reads nothing: bytes padd sent before closing
// count as open (the reader has yet to take them).
func peerClosed(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var buf [1]byte
	// Control, not Read: the relay's reader holds the read lock while it
	// waits for padd's next message.
	_ = rc.Control(func(fd uintptr) {
		n, _, err := unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		closed = n == 0 && err == nil || err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR)
	})
	return closed
}
