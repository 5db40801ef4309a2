package netwatch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/internal/testwait"
)

// A burst of changes is one call, after the burst; the next burst is
// another.
func TestDebounceCallsOncePerBurst(t *testing.T) {
	events := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- debounce(ctx, events, 300*time.Millisecond, func() { mu.Lock(); calls++; mu.Unlock() })
	}()
	count := func() int { mu.Lock(); defer mu.Unlock(); return calls }
	for range 5 {
		events <- struct{}{}
	}
	testwait.Until(t, "one call after the first burst", func() bool { return count() == 1 })
	for range 3 {
		events <- struct{}{}
	}
	testwait.Until(t, "a second call after the second burst", func() bool { return count() == 2 })
	cancel()
	if err := testwait.Recv(t, "debounce to return", done); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
}

// Watch listens and stops with its context, without a call when nothing
// changed.
func TestWatchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, func() {}) }()
	cancel()
	if err := testwait.Recv(t, "Watch to return", done); err != nil {
		t.Fatal(err)
	}
}
