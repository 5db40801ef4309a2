//go:build unix && !linux

package e2e

import "syscall"

// sysProcAttr: no parent-death signal outside Linux; t.Cleanup kills padd.
func sysProcAttr() *syscall.SysProcAttr { return nil }
