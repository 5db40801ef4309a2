package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// walOffset is where the next log record goes.
func (db *DB) walOffset() (off int64) {
	_ = db.View(func(*Tx) error { off = db.wal.off; return nil })
	return off
}

// Writes acknowledged but not yet checkpointed are in the log only; a
// crash then loses none of them, and the next write goes on from them.
func TestWALReplaysAcknowledgedWrites(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge})
	put(t, db, "before", "checkpoint")
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		put(t, db, fmt.Sprintf("k%02d", i), "v")
	}
	if err := db.Write(func(tx *Tx) error {
		b := tx.Bucket(bTest)
		if err := b.Delete([]byte("k01")); err != nil {
			return err
		}
		nb, err := b.CreateBucket([]byte("nested"))
		if err != nil {
			return err
		}
		return nb.SetSequence(41)
	}); err != nil {
		t.Fatal(err)
	}
	if !db.BatchOpen() {
		t.Fatal("the writes were checkpointed: the test would not exercise the log")
	}
	want := dump(t, db)

	r := openTestPath(t, crashCopy(t, db), Options{})
	if got := dump(t, r); got != want {
		t.Fatalf("after replay the bucket holds\n%s\nwant\n%s", got, want)
	}
	var seq uint64
	if err := r.Write(func(tx *Tx) error {
		var err error
		seq, err = tx.Bucket(bTest).Bucket([]byte("nested")).NextSequence()
		return err
	}); err != nil || seq != 42 {
		t.Fatalf("the sequence after replay went on to %d (%v), want 42", seq, err)
	}
}

// A record torn by a crash was never acknowledged: it is dropped, and
// everything before it is replayed.
func TestWALTornTail(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge})
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	put(t, db, "a", "kept")
	off := db.walOffset()
	put(t, db, "b", "torn")
	path := crashCopy(t, db)
	end := db.walOffset()
	f, err := os.OpenFile(path+WALSuffix, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Half the last record reached the disk, and garbage after it.
	mid := off + (end-off)/2
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff", int(end-mid)+64)), mid); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := openTestPath(t, path, Options{})
	if got := dump(t, r); got != "a=kept\n" {
		t.Fatalf("after replay of a torn log the bucket holds %q", got)
	}
}

// A write refused after it changed something leaves no trace, and the
// acknowledged writes beside it in the batch stay, in the batch, in the
// log and in the file.
func TestRefusalInOpenBatchUndoesOnlyItself(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge})
	put(t, db, "a", "acknowledged")
	refused := errors.New("refused after writing")
	err := db.Write(func(tx *Tx) error {
		b := tx.Bucket(bTest)
		if err := b.Put([]byte("half"), []byte("done")); err != nil {
			return err
		}
		if err := b.Delete([]byte("a")); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("write = %v, want the refusal", err)
	}
	put(t, db, "b", "after the refusal")
	const want = "a=acknowledged\nb=after the refusal\n"
	if got := dump(t, db); got != want {
		t.Fatalf("in the batch: %q", got)
	}
	if got := dump(t, openTestPath(t, crashCopy(t, db), Options{})); got != want {
		t.Fatalf("replayed: %q", got)
	}
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, db); got != want {
		t.Fatalf("checkpointed: %q", got)
	}
}

// A log that starts past the file's checkpoint has lost records: Open
// refuses the database rather than replay around a hole.
func TestWALGapRefused(t *testing.T) {
	db := openTestDB(t, Options{Setup: setup, CheckpointAge: held.CheckpointAge})
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	put(t, db, "one", "1")
	path := crashCopy(t, db)
	// Renumber the record as if the ones before it were missing.
	f, err := os.OpenFile(path+WALSuffix, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, walHeader)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, binary.BigEndian.Uint32(hdr))
	if _, err := f.ReadAt(payload, walHeader); err != nil {
		t.Fatal(err)
	}
	w := &wal{f: f, size: walPrealloc}
	if err := w.append(binary.BigEndian.Uint64(hdr[8:])+5, payload); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "records are missing") {
		t.Fatalf("open with a gap = %v", err)
	}
}

// A mutation record that does not parse is refused, never a panic.
func FuzzReplay(f *testing.F) {
	rec := &recorder{}
	rec.op(opCreateBucket, nil, []byte("a"), nil)
	rec.op(opPut, pathJoin(nil, []byte("a")), []byte("k"), []byte("v"))
	rec.op(opSetSequence, pathJoin(nil, []byte("a")), []byte("\x00\x00\x00\x00\x00\x00\x00\x07"), nil)
	rec.op(opDelete, pathJoin(nil, []byte("a")), []byte("k"), nil)
	rec.op(opDeleteBucket, nil, []byte("a"), nil)
	f.Add(rec.buf)
	f.Add([]byte{opPut, 0x80})
	// A bbolt file of its own, outside any store: every replay runs in a
	// transaction that is rolled back.
	db, err := bolt.Open(filepath.Join(f.TempDir(), "replay.db"), 0o600, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("a"))
		if err == nil {
			_, err = b.CreateBucket([]byte("b"))
		}
		return err
	}); err != nil {
		f.Fatal(err)
	}
	rolledBack := errors.New("rolled back")
	f.Fuzz(func(t *testing.T, data []byte) {
		err := db.Update(func(tx *bolt.Tx) error {
			if err := replay(tx, data, nil); err != nil {
				return err
			}
			return rolledBack
		})
		if err == nil {
			t.Fatal("the rolled-back transaction committed")
		}
	})
}

// Random writes, refusals and checkpoints, with a kill -9 at random
// moments: what comes back is exactly what was acknowledged.
func TestWALCrashAtRandomPoints(t *testing.T) {
	crashAtRandomPoints(t, rand.NewPCG(11, 12), nil)
}

// The same with a failed sync of the log now and then: what comes back
// is still exactly what was acknowledged, never a write answered as
// failed.
func TestWALCrashAtRandomPointsWithFailedSyncs(t *testing.T) {
	crashAtRandomPoints(t, rand.NewPCG(13, 14), &failingDisk{})
}

// crashAtRandomPoints runs the random steps from src; with a disk, one
// step in five has the log's next sync fail, and the writes it fails
// must be refused with their record taken back.
func crashAtRandomPoints(t *testing.T, src rand.Source, disk *failingDisk) {
	opt := Options{Setup: setup, CheckpointAge: held.CheckpointAge}
	if disk != nil {
		opt.LogSync = disk.sync
	}
	db := openTestDB(t, opt)
	r := rand.New(src)
	key := func() []byte { return fmt.Appendf(nil, "k%02d", r.IntN(40)) }
	failed := 0
	wrote := func(err error) {
		t.Helper()
		var le *LogError
		switch {
		case err == nil:
		case disk != nil && errors.As(err, &le) && !le.Unknown && !le.Earlier:
			failed++
		default:
			t.Fatal(err)
		}
	}
	crashes := 0
	for step := range 400 {
		if disk != nil && r.IntN(5) == 0 {
			disk.fails.Store(1)
		}
		switch op := r.IntN(10); {
		case op < 4:
			k, v := key(), fmt.Append(nil, step)
			wrote(db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Put(k, v) }))
		case op < 6:
			wrote(db.Write(func(tx *Tx) error { return tx.Bucket(bTest).Delete(key()) }))
		case op < 7:
			// Move a key into a nested bucket, made on first use.
			wrote(db.Write(func(tx *Tx) error {
				b := tx.Bucket(bTest)
				nb, err := b.CreateBucketIfNotExists([]byte("nested"))
				if err != nil {
					return err
				}
				k := key()
				if err := nb.Put(k, fmt.Append(nil, step)); err != nil {
					return err
				}
				return b.Delete(k)
			}))
		case op < 9:
			// A write that changes things and is then refused.
			_ = db.Write(func(tx *Tx) error {
				if err := tx.Bucket(bTest).Put(key(), []byte("never")); err != nil {
					return err
				}
				return errors.New("refused after writing")
			})
		default:
			if err := db.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(25) == 0 {
			crashes++
			want := dumpAll(t, db)
			if got := dumpAll(t, openTestPath(t, crashCopy(t, db), Options{})); got != want {
				t.Fatalf("step %d: after a crash the database reads\n%s\nwant\n%s", step, got, want)
			}
		}
	}
	if crashes == 0 {
		t.Fatal("no crash was simulated")
	}
	if disk != nil && failed == 0 {
		t.Fatal("no sync failed")
	}
}

// dumpAll is the test bucket and the nested one.
func dumpAll(t testing.TB, db *DB) string {
	t.Helper()
	var b strings.Builder
	err := db.View(func(tx *Tx) error {
		top := tx.Bucket(bTest)
		if err := top.ForEach(func(k, v []byte) error { fmt.Fprintf(&b, "%s=%s\n", k, v); return nil }); err != nil {
			return err
		}
		if nb := top.Bucket([]byte("nested")); nb != nil {
			return nb.ForEach(func(k, v []byte) error { fmt.Fprintf(&b, "nested/%s=%s\n", k, v); return nil })
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
