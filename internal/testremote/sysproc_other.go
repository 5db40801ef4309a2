//go:build !linux

package testremote

import "syscall"

// sysProcAttr: no parent-death signal outside Linux; the cleanup stops
// padd.
func sysProcAttr() *syscall.SysProcAttr { return nil }
