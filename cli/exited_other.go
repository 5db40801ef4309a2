//go:build !linux

package cli

import "github.com/padd/padd/api"

// exited reports whether pid has exited.
func exited(pid int) bool { return !api.ProcessAlive(pid) }
