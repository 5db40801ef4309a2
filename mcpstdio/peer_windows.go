package mcpstdio

import "net"

// peerClosed cannot be asked without reading on Windows: the relay
// learns that padd went away when it reads its end.
func peerClosed(net.Conn) bool { return false }
