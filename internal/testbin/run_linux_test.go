package testbin

import (
	"os"
	"testing"
)

// Under `go test` the parent is the go command, so two asks in one run
// get the same directory, one holder at a time.
func TestRunSharedIsOneDirectoryPerRun(t *testing.T) {
	dir, unlock, ok := RunShared(false)
	if !ok {
		t.Skip("not run by the go command (a test binary started by hand)")
	}
	got := make(chan string)
	go func() {
		d, u, _ := RunShared(false)
		u()
		got <- d
	}()
	select {
	case d := <-got:
		t.Fatalf("a second holder got %s while the first held the lock", d)
	default:
	}
	unlock()
	if d := <-got; d != dir {
		t.Fatalf("the second ask got %s, the first %s", d, dir)
	}
	if _, ok := startTime(os.Getpid()); !ok {
		t.Fatal("cannot read this process's start time")
	}
}
