package cli

import (
	"os/exec"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// TestExitedSeesZombies: a child that has exited but was not waited for
// is a zombie; api.ProcessAlive still sees it, exited must not.
func TestExitedSeesZombies(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip("no `true` binary:", err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	deadline := time.Now().Add(5 * time.Second)
	for !exited(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("exited(%d) stays false for a finished child", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !api.ProcessAlive(pid) {
		t.Skip("the zombie was reaped already; nothing to tell apart")
	}
	if exited(1) {
		t.Error("exited(1) = true for init, which is running")
	}
}
