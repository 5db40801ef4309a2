package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openTestDB opens a database under t.TempDir() and, when the test ends,
// runs bbolt's consistency check on it and closes it, as bbolt's own
// tests do. A file that fails the check is copied aside and named in the
// failure, for a look with the bbolt tool.
func openTestDB(t testing.TB, opt Options) *DB {
	t.Helper()
	return openTestPath(t, filepath.Join(t.TempDir(), "test.db"), opt)
}

func openTestPath(t testing.TB, path string, opt Options) *DB {
	t.Helper()
	db, err := Open(path, opt)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Check(); err != nil {
			t.Errorf("consistency check: %v (the file is copied to %s)", err, keepAside(t, db))
		}
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

// keepAside copies db's file out of the test's temporary directory.
func keepAside(t testing.TB, db *DB) string {
	f, err := os.CreateTemp("", "engine-check-*.db")
	if err != nil {
		return fmt.Sprintf("nowhere: %v", err)
	}
	f.Close()
	if err := db.View(func(tx *Tx) error { return tx.CopyFile(f.Name(), 0o600) }); err != nil {
		return fmt.Sprintf("nowhere: %v", err)
	}
	return f.Name()
}

// crashCopy copies db's file and log to a new directory as they are on
// disk now, while db runs: what a kill -9 at this moment would leave.
func crashCopy(t testing.TB, db *DB) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{db.Path(), db.Path() + WALSuffix} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(db.Path()))
}

// held is the Options of a database whose batches commit only when
// asked, so a test decides what is in the file and what only in the log.
var held = Options{CheckpointAge: time.Hour}

var bTest = []byte("test")

// setup makes the bucket the tests write to.
func setup(tx *Tx) error {
	_, err := tx.CreateBucketIfNotExists(bTest)
	return err
}

// put writes key=val in the test bucket as one write.
func put(t testing.TB, db *DB, key, val string) {
	t.Helper()
	if err := db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Put([]byte(key), []byte(val)) }); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

// dump is the test bucket as key=val lines, in key order.
func dump(t testing.TB, db *DB) string {
	t.Helper()
	var b strings.Builder
	err := db.View(func(tx *Tx) error {
		return tx.Bucket(bTest).ForEach(func(k, v []byte) error {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteThenRead(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup})
	put(t, db, "a", "1")
	put(t, db, "b", "2")
	if err := db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Delete([]byte("a")) }); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, db); got != "b=2\n" {
		t.Fatalf("read %q", got)
	}
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, db); got != "b=2\n" {
		t.Fatalf("read after the checkpoint %q", got)
	}
}

// A second Open of a held file fails with ErrLocked within its timeout.
func TestOpenLocked(t *testing.T) {
	db := openTestDB(t, Options{})
	_, err := Open(db.Path(), Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
}

// Writes made after Close are refused, not lost in a queue.
func TestWriteAfterClose(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "test.db"), Options{Setup: setup})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, "a", "1")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(func(tx *Tx) error { return nil }); err != ErrClosed {
		t.Fatalf("write after close: %v", err)
	}
	if err := db.Checkpoint(); err != ErrClosed {
		t.Fatalf("checkpoint after close: %v", err)
	}
}

// Concurrent writers share commits (group commit); a refused write in a
// group is answered with its refusal and costs the others nothing.
func TestGroupCommitIsolatesRefusals(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup})
	const writers = 40
	refused := errors.New("refused after writing")
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Write(func(tx *Tx) error {
				if err := tx.Bucket(bTest).Put(fmt.Appendf(nil, "k%02d", i), []byte("v")); err != nil {
					return err
				}
				if i%5 == 0 {
					return refused
				}
				return nil
			})
		}()
	}
	wg.Wait()
	var want strings.Builder
	for i, err := range errs {
		switch {
		case i%5 == 0 && !errors.Is(err, refused):
			t.Errorf("writer %d: want the refusal, got %v", i, err)
		case i%5 != 0 && err != nil:
			t.Errorf("writer %d: %v", i, err)
		case err == nil:
			fmt.Fprintf(&want, "k%02d=v\n", i)
		}
	}
	if got := dump(t, db); got != want.String() {
		t.Fatalf("the bucket holds\n%s\nwant\n%s", got, want.String())
	}
}

// A write that panics is refused as a fault and undone; the database
// goes on.
func TestPanicInWriteIsRefused(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup})
	put(t, db, "a", "1")
	err := db.Write(func(tx *Tx) error {
		if err := tx.Bucket(bTest).Put([]byte("b"), []byte("2")); err != nil {
			return err
		}
		panic("boom")
	})
	if !errors.Is(err, ErrFault) || !strings.Contains(err.Error(), "write failed: boom") {
		t.Fatalf("panicking write: %v", err)
	}
	put(t, db, "c", "3")
	if got := dump(t, db); got != "a=1\nc=3\n" {
		t.Fatalf("read %q", got)
	}
}

// Reads while a batch is open see the batch; after the checkpoint they run
// beside it again, and see the same.
func TestReadsSeeOpenBatch(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: time.Hour})
	put(t, db, "a", "1")
	if !db.BatchOpen() {
		t.Fatal("no open batch")
	}
	if got := dump(t, db); got != "a=1\n" {
		t.Fatalf("read in the open batch %q", got)
	}
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if db.BatchOpen() {
		t.Fatal("batch still open after the checkpoint")
	}
	if got := dump(t, db); got != "a=1\n" {
		t.Fatalf("read after the checkpoint %q", got)
	}
}

// A bulk write is not logged: it is in the file when it returns.
func TestBulkWriteCommits(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: time.Hour})
	put(t, db, "a", "1")
	if err := db.WriteBulk(func(tx *Tx) error { return tx.Bucket(bTest).Put([]byte("b"), []byte("2")) }); err != nil {
		t.Fatal(err)
	}
	if db.BatchOpen() {
		t.Fatal("the bulk write left a batch open")
	}
	// The log starts over at a checkpoint: the copy has only the file.
	r := openTestPath(t, crashCopy(t, db), Options{})
	if got := dump(t, r); got != "a=1\nb=2\n" {
		t.Fatalf("after the bulk write the file holds %q", got)
	}
}

// A read while a bulk write runs does not wait for it: it reads the
// file in a transaction of its own, with every write acknowledged before
// the bulk write (they commit first) and nothing of the bulk write, which
// is not acknowledged yet. A refused bulk write leaves nothing, and
// writes after it go on as before.
func TestReadDuringBulkWriteDoesNotWait(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: time.Hour})
	put(t, db, "a", "1") // acknowledged, in the open batch
	running, release := make(chan struct{}), make(chan struct{})
	bulk := make(chan error, 1)
	refused := errors.New("refused")
	go func() {
		bulk <- db.WriteBulk(func(tx *Tx) error {
			if err := tx.Bucket(bTest).Put([]byte("b"), []byte("2")); err != nil {
				return err
			}
			close(running)
			<-release
			return refused
		})
	}()
	<-running
	if got := dump(t, db); got != "a=1\n" { // returns while the bulk write is held
		t.Errorf("a read during the bulk write: %q, want the acknowledged write and none of the bulk write", got)
	}
	close(release)
	if err := <-bulk; !errors.Is(err, refused) {
		t.Fatalf("the refused bulk write answered %v", err)
	}
	put(t, db, "c", "3")
	if got := dump(t, db); got != "a=1\nc=3\n" {
		t.Errorf("after the refused bulk write and a write: %q", got)
	}
	r := openTestPath(t, crashCopy(t, db), Options{})
	if got := dump(t, r); got != "a=1\nc=3\n" {
		t.Errorf("after a crash: %q", got)
	}
}

// A Setup that returns ErrUnchanged opens the file without a commit (the
// file's transaction id stays), and what it did is rolled back; any other
// error still fails Open.
func TestSetupUnchangedCommitsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := Open(path, Options{Setup: setup})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, "a", "1")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	txid := func(db *DB) (id int) {
		db.db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return id
	}
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := txid(db)
	db.Close()
	unchanged := func(tx *Tx) error {
		if err := tx.Bucket(bTest).Put([]byte("b"), []byte("2")); err != nil {
			return err
		}
		return ErrUnchanged
	}
	db = openTestPath(t, path, Options{Setup: unchanged})
	if got := txid(db); got != before {
		t.Errorf("open with an unchanged setup moved the transaction id from %d to %d", before, got)
	}
	if got := dump(t, db); got != "a=1\n" {
		t.Errorf("after an unchanged setup the file reads %q, want the setup's write rolled back", got)
	}
	refused := errors.New("refused")
	if _, err := Open(filepath.Join(t.TempDir(), "other.db"), Options{Setup: func(*Tx) error { return refused }}); !errors.Is(err, refused) {
		t.Errorf("open with a failing setup: %v, want %v", err, refused)
	}
}
