//go:build linux

package procstat

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// A process that sleeps is seen waiting, one that computes is seen
// spending CPU, and a tree counts its children: what the load run's
// report reads for padd and for each agent's relay.
func TestReadCountsWaitsAndCPU(t *testing.T) {
	self := os.Getpid()
	before, err := Read(self)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // a thread of its own, which blocks in the kernel
		for range 20 {
			time.Sleep(time.Millisecond)
		}
	}()
	<-done
	got, err := Read(self)
	if err != nil {
		t.Fatal(err)
	}
	if w := got.Sub(before).Waits; w < 10 {
		t.Errorf("20 sleeps counted as %d waits", w)
	}
	if d := got.Sub(before); d.Switches < d.Waits {
		t.Errorf("%d waits but only %d context switches: every wait is one", d.Waits, d.Switches)
	}
	// Compute until the CPU count moves by 30 ms (its unit is 10 ms).
	for deadline := time.Now().Add(5 * time.Second); got.Sub(before).CPU() < 30*time.Millisecond; got, _ = Read(self) {
		if time.Now().After(deadline) {
			t.Fatalf("5 s of computing counted as %v of CPU", got.Sub(before).CPU())
		}
		for end := time.Now().Add(time.Millisecond); time.Now().Before(end); {
		}
	}

	child := exec.Command("sleep", "5")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	var kid Usage
	for deadline := time.Now().Add(2 * time.Second); kid.Waits == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		kid, _ = Read(child.Process.Pid) // once it sleeps, it has waited
	}
	if kid.Waits == 0 {
		t.Fatal("a sleeping child counted no wait")
	}
	own, _ := Read(self)
	tree, err := ReadTree(self)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Waits < own.Waits+kid.Waits {
		t.Errorf("the tree's waits %d leave out its child's: own %d, child %d", tree.Waits, own.Waits, kid.Waits)
	}
}

// A process that sleeps goes quiet; one that wakes every few
// milliseconds never does, and WaitQuiet says so.
func TestWaitQuiet(t *testing.T) {
	sleeper := exec.Command("sleep", "30")
	busy := exec.Command("sh", "-c", "while :; do sleep 0.02; done")
	for _, c := range []*exec.Cmd{sleeper, busy} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { c.Process.Kill(); c.Wait() }()
	}
	if took, err := WaitQuiet(300*time.Millisecond, time.Minute, sleeper.Process.Pid); err != nil {
		t.Errorf("a sleeping process did not go quiet: %v (after %s)", err, took)
	}
	if took, err := WaitQuiet(300*time.Millisecond, 2*time.Second, busy.Process.Pid); err == nil {
		t.Errorf("a process that wakes every 20 ms went quiet after %s", took)
	}
}
