package engine

import (
	"errors"
	"testing"
	"time"
)

// inCallback runs call inside a callback run runs on the committer (a
// write, or a read while a batch is open) and returns what call answered
// there. It fails the test, instead of hanging it, if call never returns.
func inCallback(t *testing.T, db *DB, run func(fn func(*Tx) error) error, call func() error) error {
	t.Helper()
	got := make(chan error, 1)
	done := make(chan error, 1)
	go func() { done <- run(func(*Tx) error { got <- call(); return nil }) }()
	select {
	case err := <-got:
		if derr := <-done; derr != nil {
			t.Fatalf("the callback's own request: %v", derr)
		}
		return err
	case <-time.After(time.Minute):
		t.Fatal("a request from inside a callback waits for the committer that runs the callback")
		return nil
	}
}

// A read, a write or a checkpoint asked for from inside a callback the
// committer runs is refused with ErrReadInWrite, not a deadlock.
func TestRequestInsideCallbackIsRefused(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge})
	put(t, db, "a", "1") // a batch is open: reads run on the committer
	requests := map[string]func() error{
		"read":       func() error { return db.View(func(*Tx) error { return nil }) },
		"write":      func() error { return db.Write(func(*Tx) error { return nil }) },
		"bulk write": func() error { return db.WriteBulk(func(*Tx) error { return nil }) },
		"checkpoint": db.Checkpoint,
		"check":      db.Check,
	}
	callbacks := map[string]func(fn func(*Tx) error) error{"write": db.Write, "bulk write": db.WriteBulk, "read in the open batch": db.View}
	for cname, run := range callbacks {
		for rname, call := range requests {
			put(t, db, "b", cname+rname) // reopen the batch a bulk write committed
			if err := inCallback(t, db, run, call); !errors.Is(err, ErrReadInWrite) {
				t.Errorf("a %s inside a %s: %v, want ErrReadInWrite", rname, cname, err)
			}
		}
	}
	// Outside a callback, the same requests go through, also while
	// another goroutine's callback runs.
	release := make(chan struct{})
	running := make(chan struct{})
	go func() {
		_ = db.Write(func(*Tx) error { close(running); <-release; return nil })
	}()
	<-running
	answers := make(chan error, 1)
	go func() { answers <- db.Write(func(*Tx) error { return nil }) }()
	close(release)
	if err := <-answers; err != nil {
		t.Fatalf("a write queued behind another's callback: %v", err)
	}
	for rname, call := range requests {
		if err := call(); err != nil {
			t.Errorf("a %s outside any callback: %v", rname, err)
		}
	}
}
