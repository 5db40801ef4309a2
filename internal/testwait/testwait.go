// Package testwait lets a test wait for what it means (a condition: a
// state, a watermark, a process gone) instead of for a length of time
// that happened to be enough on a quiet machine. A laptop is busy, and
// `go test -race` beside other work runs many times slower than alone.
//
// The limit only bounds a failure: it is long enough that no busy
// machine reaches it while the condition is on its way, and a test that
// passes waits only as long as its condition takes.
package testwait

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Limit is how long a wait lasts before the test fails.
const Limit = 2 * time.Minute

// Until polls cond until it holds, and fails t, saying what it waited
// for, when Limit passes first.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	UntilOK(t, func() error {
		if cond() {
			return nil
		}
		return fmt.Errorf("waited %v for %s", Limit, what)
	})
}

// UntilOK polls check until it returns nil, and fails t with the last
// error it returned (which says what it found) when Limit passes first.
func UntilOK(t testing.TB, check func() error) {
	t.Helper()
	deadline := time.Now().Add(Limit)
	pause := time.Millisecond
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Recv waits for a value from ch (or for ch to close), and fails t,
// saying what it waited for, when Limit passes first.
func Recv[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("waited %v for %s", Limit, what)
		var zero T
		return zero
	}
}

// Context ends at Limit, or when the test ends: for the waits that
// take a context, such as the search index's WaitFor.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Limit)
	t.Cleanup(cancel)
	return ctx
}
