package cli

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel stop cmd if padctl dies first (even by
// SIGKILL), so an MCP client that kills `padctl mcp serve` leaves no
// server behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
