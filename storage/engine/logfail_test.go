package engine

import (
	"errors"
	"io/fs"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// failingDisk is an Options.LogSync whose fdatasync fails with EIO, the
// next fails times (a negative count: until it is set to 0).
type failingDisk struct{ fails atomic.Int64 }

func (d *failingDisk) sync(f *os.File) error {
	for {
		n := d.fails.Load()
		if n == 0 {
			return fdatasync(f)
		}
		if n < 0 || d.fails.CompareAndSwap(n, n-1) {
			return &fs.PathError{Op: "fdatasync", Path: f.Name(), Err: syscall.EIO}
		}
	}
}

// A write whose log record failed to sync is refused, and its record is
// taken back: a crash right after it replays every acknowledged write and
// not the failed one, and the next write goes on.
func TestFailedLogSyncIsTakenBack(t *testing.T) {
	disk := &failingDisk{}
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge, LogSync: disk.sync})
	put(t, db, "a", "acknowledged")
	disk.fails.Store(1)
	err := db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Put([]byte("b"), []byte("failed")) })
	var le *LogError
	if !errors.As(err, &le) || !errors.Is(err, ErrLogFailed) || !errors.Is(err, syscall.EIO) || le.Unknown || le.Earlier {
		t.Fatalf("write whose sync failed = %#v, want a LogError of EIO, its record taken back", err)
	}
	if got := dump(t, db); got != "a=acknowledged\n" {
		t.Fatalf("in the batch after the failed sync: %q", got)
	}
	if got := dump(t, openTestPath(t, crashCopy(t, db), Options{})); got != "a=acknowledged\n" {
		t.Fatalf("replayed after a crash right after the failed sync: %q", got)
	}
	put(t, db, "c", "after")
	const want = "a=acknowledged\nc=after\n"
	if got := dump(t, openTestPath(t, crashCopy(t, db), Options{})); got != want {
		t.Fatalf("replayed after the next write: %q, want %q", got, want)
	}
}

// While the disk fails to sync even the taking back of a failed record,
// the failed write's outcome is unknown and every later write is refused;
// reads go on, a checkpoint of the acknowledged writes goes on, and once
// the disk works the record is taken back and writes resume without a
// restart. A crash then replays the acknowledged writes and never the
// failed one.
func TestLogSyncFailsUntilTheDiskWorks(t *testing.T) {
	disk := &failingDisk{}
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge, LogSync: disk.sync})
	put(t, db, "a", "acknowledged")
	disk.fails.Store(-1)
	err := db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Put([]byte("b"), []byte("failed")) })
	var le *LogError
	if !errors.As(err, &le) || !le.Unknown || le.Earlier || !errors.Is(err, syscall.EIO) {
		t.Fatalf("write whose sync and take-back failed = %#v, want a LogError of unknown outcome", err)
	}
	err = db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Put([]byte("c"), []byte("refused")) })
	if !errors.As(err, &le) || !le.Earlier || le.Unknown {
		t.Fatalf("write after the failed record = %#v, want a LogError refusing it untried", err)
	}
	if got := dump(t, db); got != "a=acknowledged\n" {
		t.Fatalf("read while writes are refused: %q", got)
	}
	// The log starts over at the checkpoint; the failed record stays
	// where it was, with the LSN after the checkpoint's.
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}

	disk.fails.Store(0)
	deadline := time.Now().Add(time.Minute)
	for {
		err := db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Put([]byte("d"), []byte("resumed")) })
		if err == nil {
			break
		}
		if !errors.As(err, &le) || !le.Earlier {
			t.Fatalf("write while the record is being taken back = %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes did not resume within a minute of the disk working: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // the engine retries once a second
	}
	const want = "a=acknowledged\nd=resumed\n"
	if got := dump(t, openTestPath(t, crashCopy(t, db), Options{})); got != want {
		t.Fatalf("replayed after a crash: %q, want %q", got, want)
	}
	if got := dump(t, db); got != want {
		t.Fatalf("read: %q, want %q", got, want)
	}
}
