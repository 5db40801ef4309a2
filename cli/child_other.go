//go:build !linux

package cli

import "os/exec"

// dieWithParent is Linux only; elsewhere the server ends when the client
// closes its stdin, as it does when it goes away.
func dieWithParent(*exec.Cmd) {}
