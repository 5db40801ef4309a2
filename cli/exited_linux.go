package cli

import (
	"bytes"
	"os"
	"strconv"

	"github.com/padd/padd/api"
)

// exited reports whether pid has exited. A zombie has: it is dead and
// only waits for its parent to collect it, which under a container's
// PID 1 that reaps lazily (or never) can take a while. api.ProcessAlive
// counts it as alive, so stop would otherwise wait for nothing.
func exited(pid int) bool {
	if !api.ProcessAlive(pid) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and
	// may itself hold ") ".
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}
