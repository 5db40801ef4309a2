//go:build linux

package testremote

import "syscall"

// sysProcAttr makes padd die with the test binary, so a crashed or
// timed-out test run never leaves a padd behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
