//go:build windows

package cli

import "os"

// terminate ends a process. Windows has no SIGTERM to send another
// process, so this is a hard stop: it is used only after padd ignored the
// API's stop request.
func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
