//go:build linux

package launch

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A child that has exited but was not waited for is a zombie: it must
// read as not alive, or `daemon stop` would wait for nothing.
func TestProcessAliveSeesZombiesAsExited(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for ProcessAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("ProcessAlive(%d) stays true for a finished, unreaped child", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !ProcessAlive(os.Getpid()) {
		t.Error("ProcessAlive is false for this test process")
	}
}
