package daemon

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// fakeClock is a Clock the test moves; timers fire when Advance passes
// their deadline. Every new timer is announced on armed.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan time.Time
}

type fakeTimer struct {
	clock *fakeClock
	c     chan time.Time
	at    time.Time
	done  bool // guarded by clock.mu: the clock fires it, the loop stops it
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t, armed: make(chan time.Time, 64)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	t := &fakeTimer{clock: c, c: make(chan time.Time, 1), at: c.now.Add(d)}
	c.timers = append(c.timers, t)
	c.fireLocked()
	c.mu.Unlock()
	c.armed <- t.at
	return t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.fireLocked()
	c.mu.Unlock()
}

func (c *fakeClock) fireLocked() {
	for _, t := range c.timers {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			t.c <- c.now
		}
	}
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// waitArmed waits for the loop to arm a timer for at (a bounded real
// wait: the loop runs on its own goroutine).
func waitArmed(t *testing.T, c *fakeClock, at time.Time) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-c.armed:
			if got.Equal(at) {
				return
			}
		case <-deadline:
			t.Fatalf("the loop never slept until %v", at)
		}
	}
}

// waitState polls (after each commit) until the reminder reaches state.
func waitState(t *testing.T, s *storage.Store, commits <-chan storage.Notification, ref, id, state string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		rs, err := views.Of(s).ListReminders("w", ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.ID == id && r.State == state {
				return
			}
		}
		select {
		case <-commits:
		case <-deadline:
			t.Fatalf("reminder %s never became %s: %+v", id, state, rs)
		}
	}
}

func startLoop(s *storage.Store, c Clock) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		reminderLoop{store: s, clock: c, log: slog.New(slog.NewTextHandler(io.Discard, nil))}.run(ctx)
		close(done)
	}()
	return func() { cancel(); <-done }
}

func TestReminderLoop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	clk := newFakeClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	s, err := storage.Open(path, storage.Options{Now: clk.Now, NoSync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWorkspace(storage.WorkspaceCreate{Name: "W", Slug: "w"}, model.UserActor(model.SourceCLI)); err != nil {
		t.Fatal(err)
	}
	it, err := s.CreateItem("w", storage.ItemCreate{Collection: "tasks", Title: "Follow up"}, model.UserActor(model.SourceCLI))
	if err != nil {
		t.Fatal(err)
	}
	ref := it.Item.Ref
	commits, unsubscribe := s.Subscribe()
	defer unsubscribe()

	stop := startLoop(s, clk)
	// Nothing armed: the loop sleeps until a commit, which arming is.
	first, err := s.AddReminder("w", ref, clk.Now().Add(time.Hour), model.UserActor(model.SourceCLI))
	if err != nil {
		t.Fatal(err)
	}
	waitArmed(t, clk, clk.Now().Add(time.Hour))
	// An earlier reminder wakes it to sleep less.
	second, err := s.AddReminder("w", ref, clk.Now().Add(time.Minute), model.UserActor(model.SourceCLI))
	if err != nil {
		t.Fatal(err)
	}
	waitArmed(t, clk, clk.Now().Add(time.Minute))
	clk.Advance(time.Minute)
	waitState(t, s, commits, ref, second.ID, model.ReminderFired)
	waitArmed(t, clk, clk.Now().Add(59*time.Minute))
	clk.Advance(59 * time.Minute)
	waitState(t, s, commits, ref, first.ID, model.ReminderFired)

	// A restart: armed while padd is down, overdue when it starts.
	stop()
	third, err := s.AddReminder("w", ref, clk.Now().Add(time.Minute), model.UserActor(model.SourceCLI))
	if err != nil {
		t.Fatal(err)
	}
	unsubscribe()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	s, err = storage.Open(path, storage.Options{Now: clk.Now, NoSync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commits, unsubscribe = s.Subscribe()
	defer unsubscribe()
	stop = startLoop(s, clk)
	defer stop()
	waitState(t, s, commits, ref, third.ID, model.ReminderFired)
	pending, err := views.Of(s).PendingReminders("w")
	if err != nil || len(pending) != 3 {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	// A fire is a change-log entry the event stream names reminder_fired.
	chs, _, err := views.Of(s).ChangesSince(t.Context(), "w", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := chs[len(chs)-1]
	if got := eventType(last.Entity, last.Op); got != "reminder_fired" || last.ItemID != it.Item.ID {
		t.Fatalf("last change %+v is event %q", last, got)
	}
}

// TestReminderLoopStopsWithStore ends the loop when the store closes.
func TestReminderLoopStopsWithStore(t *testing.T) {
	clk := newFakeClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	s, err := storage.Open(filepath.Join(t.TempDir(), "padd.db"), storage.Options{Now: clk.Now, NoSync: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		reminderLoop{store: s, clock: clk, log: slog.New(slog.NewTextHandler(io.Discard, nil))}.run(context.Background())
		close(done)
	}()
	s.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop outlived its store")
	}
}
