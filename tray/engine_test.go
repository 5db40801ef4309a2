package tray

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/internal/testwait"
)

// A burst of events is read a few times, not once per event, and the
// last event of the burst is always read.
func TestCoalesceReadsABurstOncePerGap(t *testing.T) {
	const gap = 20 * time.Millisecond
	dirty := make(chan struct{}, 1)
	ended := make(chan error, 1)
	var sent, seen, calls atomic.Int64
	done := make(chan error, 1)
	go func() {
		done <- coalesce(ended, dirty, gap, func() error {
			calls.Add(1)
			seen.Store(sent.Load())
			return nil
		})
	}()
	start := time.Now()
	for range 20000 {
		sent.Add(1)
		signal(dirty)
		if sent.Load()%500 == 0 {
			time.Sleep(time.Millisecond) // a bulk import's pace, in chunks
		}
	}
	took := time.Since(start)
	testwait.Until(t, "the burst's last event to be read", func() bool { return seen.Load() == sent.Load() })
	// One call at the first event, then at most one per gap, and one at
	// the end of the last gap (and what the wait added after the burst).
	limit := int64(took/gap) + 3
	if n := calls.Load(); n > limit {
		t.Errorf("%d events over %s were read %d times; want at most %d (one per %s)", sent.Load(), took, n, limit, gap)
	}
	t.Logf("%d events over %s: %d reads", sent.Load(), took.Round(time.Millisecond), calls.Load())
	stop := errors.New("stream ended")
	ended <- stop
	if err := testwait.Recv(t, "coalesce to return when a stream ends", done); err != stop {
		t.Fatalf("coalesce returned %v, want the stream's error", err)
	}
}

// A failed read ends the loop with its error.
func TestCoalesceStopsOnAFailedRead(t *testing.T) {
	dirty := make(chan struct{}, 1)
	boom := errors.New("padd went away")
	done := make(chan error, 1)
	go func() { done <- coalesce(make(chan error), dirty, time.Millisecond, func() error { return boom }) }()
	signal(dirty)
	if err := testwait.Recv(t, "coalesce to return the read's error", done); err != boom {
		t.Fatalf("coalesce returned %v, want %v", err, boom)
	}
}
