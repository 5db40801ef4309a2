//go:build !windows

package cli

import "syscall"

// terminate asks a process to stop (SIGTERM): padd shuts down gracefully
// on it, exactly as on the API's stop request.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
