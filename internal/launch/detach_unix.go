//go:build !windows

package launch

import (
	"os/exec"
	"syscall"
)

// detach starts the process in its own session, so it outlives the
// terminal and the padctl that started it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
