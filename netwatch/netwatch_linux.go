package netwatch

import (
	"fmt"
	"os"
	"syscall"
)

// groups are the netlink multicast groups listened to: links, and IPv4
// and IPv6 addresses. Routes are left out: they change with addresses,
// and on some machines (containers, VPNs) on their own far more often.
const groups = rtmgrpLink | rtmgrpIPv4IfAddr | rtmgrpIPv6IfAddr

// The groups' bits (linux/rtnetlink.h), which package syscall does not
// name.
const (
	rtmgrpLink       = 0x1
	rtmgrpIPv4IfAddr = 0x10
	rtmgrpIPv6IfAddr = 0x100
)

// listen opens a netlink route socket subscribed to groups and sends on
// the channel for each message the kernel writes to it. The socket is
// non-blocking, so its reads go through Go's poller and stop closes it
// under a pending read.
func listen() (<-chan struct{}, func(), error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, syscall.NETLINK_ROUTE)
	if err != nil {
		return nil, nil, fmt.Errorf("netwatch: netlink socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK, Groups: groups}); err != nil {
		syscall.Close(fd)
		return nil, nil, fmt.Errorf("netwatch: netlink bind: %w", err)
	}
	f := os.NewFile(uintptr(fd), "netlink-route")
	events := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(events)
		buf := make([]byte, 16<<10)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return // closed by stop, or the socket failed: no more calls
			}
			if n == 0 {
				continue
			}
			select {
			case events <- struct{}{}:
			default: // one pending is enough: the debounce coalesces
			}
		}
	}()
	return events, func() { f.Close(); <-done }, nil
}
