package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

// crashCopy copies s's database and log to a new directory as they are on
// disk now, while s runs: what a kill -9 at this moment would leave.
func crashCopy(t *testing.T, s *Store) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{s.Path(), s.Path() + ".wal"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(s.Path()))
}

// openHeld opens a store whose batches commit only when asked, so a test
// decides what is in the file and what only in the log.
func openHeld(t *testing.T) *Store {
	t.Helper()
	s, _ := openTestWith(t, Options{checkpointAge: time.Hour})
	return s
}

func reopen(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Check(); err != nil {
			t.Errorf("consistency check: %v", err)
		}
		s.Close()
	})
	return s
}

// Writes acknowledged but not yet checkpointed are in the log only; a
// crash then loses none of them.
func TestWALReplaysAcknowledgedWrites(t *testing.T) {
	s := openHeld(t)
	ws := mustWorkspace(t, s, "Crash")
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for i := range 30 {
		it := mustCreate(t, s, ws.Slug, "tasks", "survives "+string(rune('a'+i%26)), map[string]any{"priority": "high"})
		refs = append(refs, it.Ref)
	}
	if _, err := s.UpdateItem(ws.Slug, refs[0], ItemUpdate{Title: ptrTo("renamed before the crash")}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteItem(ws.Slug, refs[1], user); err != nil {
		t.Fatal(err)
	}
	if !s.base.DB.BatchOpen() {
		t.Fatal("the writes were checkpointed: the test would not exercise the log")
	}
	head, _ := rd(s).Head(ws.Slug)

	r := reopen(t, crashCopy(t, s))
	if got, _ := rd(r).Head(ws.Slug); got != head {
		t.Fatalf("head after replay = %d, want %d", got, head)
	}
	v, err := rd(r).GetItem(ws.Slug, refs[0])
	if err != nil || v.Title != "renamed before the crash" {
		t.Fatalf("updated item after replay: %v %+v", err, v)
	}
	if v, err := rd(r).GetItem(ws.Slug, refs[1]); err != nil || v.DeletedAt == nil {
		t.Fatalf("deleted item after replay: %v %+v", err, v)
	}
	for _, ref := range refs[2:] {
		if _, err := rd(r).GetItem(ws.Slug, ref); err != nil {
			t.Fatalf("%s after replay: %v", ref, err)
		}
	}
	checkListIndex(t, r, ws.ID)
	// The next write after a replay continues the sequence.
	it := mustCreate(t, r, ws.Slug, "tasks", "after replay", nil)
	if it.Ref == refs[len(refs)-1] {
		t.Fatalf("ref %s reused after replay", it.Ref)
	}
}

// A record torn by a crash was never acknowledged: it is dropped, and
// everything before it is replayed.
func TestWALTornTail(t *testing.T) {
	s := openHeld(t)
	ws := mustWorkspace(t, s, "Torn")
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, s, ws.Slug, "tasks", "kept", nil)
	before := crashCopy(t, s)
	b := mustCreate(t, s, ws.Slug, "tasks", "torn", nil)
	path := crashCopy(t, s)
	tearLastRecord(t, before, path)

	r := reopen(t, path)
	if _, err := rd(r).GetItem(ws.Slug, a.Ref); err != nil {
		t.Fatalf("record before the torn one: %v", err)
	}
	if _, err := rd(r).GetItem(ws.Slug, b.Ref); !model.IsCode(err, model.CodeNotFound) {
		t.Fatalf("torn record replayed: %v", err)
	}
	checkListIndex(t, r, ws.ID)
}

// A write refused after it changed something leaves no trace, and the
// acknowledged writes beside it in the batch stay.
func TestRefusalInOpenBatchUndoesOnlyItself(t *testing.T) {
	s := openHeld(t)
	ws := mustWorkspace(t, s, "Refuse")
	a := mustCreate(t, s, ws.Slug, "tasks", "acknowledged", nil)
	refused := errors.New("refused after writing")
	err := s.write(ws.Slug, user, func(w *wtx) error {
		if _, err := w.createItem(ItemCreate{Collection: "tasks", Title: "half done"}); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("write = %v, want the refusal", err)
	}
	b := mustCreate(t, s, ws.Slug, "tasks", "after the refusal", nil)
	check := func(st *Store) {
		t.Helper()
		for _, ref := range []string{a.Ref, b.Ref} {
			if _, err := rd(st).GetItem(ws.Slug, ref); err != nil {
				t.Fatalf("%s: %v", ref, err)
			}
		}
		page, err := rd(st).ListItems(context.Background(), ws.Slug, ListParams{Collection: "tasks", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if it.Title == "half done" {
				t.Fatal("the refused write left its item")
			}
		}
		if len(page.Items) != 2 {
			t.Fatalf("%d tasks, want 2", len(page.Items))
		}
		checkListIndex(t, st, ws.ID)
	}
	check(s)
	check(reopen(t, crashCopy(t, s)))
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	check(s)
}

// Reads while a batch is open see the batch; after the checkpoint they run
// beside it again, and see the same.
func TestReadsSeeOpenBatch(t *testing.T) {
	s := openHeld(t)
	ws := mustWorkspace(t, s, "Reads")
	it := mustCreate(t, s, ws.Slug, "tasks", "visible at once", nil)
	if !s.base.DB.BatchOpen() {
		t.Fatal("no open batch")
	}
	if v, err := rd(s).GetItem(ws.Slug, it.Ref); err != nil || v.Title != "visible at once" {
		t.Fatalf("read in the open batch: %v", err)
	}
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if s.base.DB.BatchOpen() {
		t.Fatal("batch still open after the checkpoint")
	}
	if v, err := rd(s).GetItem(ws.Slug, it.Ref); err != nil || v.Title != "visible at once" {
		t.Fatalf("read after the checkpoint: %v", err)
	}
}

// walSnapshot is what a user could read back: every item with its title,
// fields, state and comments, and the change log.
func walSnapshot(t *testing.T, s *Store, ws string) string {
	t.Helper()
	page, err := rd(s).ListItems(context.Background(), ws, ListParams{IncludeArchived: true, Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, it := range page.Items {
		cs, err := rd(s).ListComments(ws, it.Ref)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %q %v deleted=%v comments=%d\n", it.Ref, it.Title, it.Fields, it.DeletedAt != nil, len(cs))
	}
	changes, head, err := rd(s).ChangesSince(context.Background(), ws, 0, 1000000)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "changes=%d head=%d\n", len(changes), head)
	return b.String()
}

// Random writes, refusals and checkpoints, with a kill -9 at random
// moments: what comes back is exactly what was acknowledged.
func TestWALCrashAtRandomPoints(t *testing.T) {
	s := openHeld(t)
	wsRec := mustWorkspace(t, s, "Random")
	ws := wsRec.Slug
	r := rand.New(rand.NewPCG(11, 12))
	var refs []string
	pick := func() string { return refs[r.IntN(len(refs))] }
	statuses := []string{"open", "in-progress", "done", "not-a-status"}
	crashes := 0
	for step := range 400 {
		switch op := r.IntN(10); {
		case op < 3 || len(refs) == 0:
			res, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: fmt.Sprintf("task %d", step),
				Fields: map[string]any{"status": statuses[r.IntN(len(statuses))]}}, user)
			if err == nil {
				refs = append(refs, res.Item.Ref)
			}
		case op < 5:
			_, _ = s.UpdateItem(ws, pick(), ItemUpdate{Title: ptrTo(fmt.Sprintf("renamed %d", step)),
				FieldsPatch: map[string]any{"status": statuses[r.IntN(len(statuses))]}}, user)
		case op < 6:
			if r.IntN(2) == 0 {
				_, _ = s.DeleteItem(ws, pick(), user)
			} else {
				_, _ = s.RestoreItem(ws, pick(), user)
			}
		case op < 8:
			_, _ = s.AddComment(ws, pick(), CommentCreate{Body: fmt.Sprintf("comment %d", step)}, user)
		case op < 9:
			// A write that changes things and is then refused.
			_ = s.write(ws, user, func(w *wtx) error {
				if _, err := w.createItem(ItemCreate{Collection: "tasks", Title: "never"}); err != nil {
					return err
				}
				return errors.New("refused after writing")
			})
		default:
			if err := s.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(25) == 0 {
			crashes++
			want := walSnapshot(t, s, ws)
			got := walSnapshot(t, reopen(t, crashCopy(t, s)), ws)
			if got != want {
				t.Fatalf("step %d: after a crash the store reads\n%s\nwant\n%s", step, got, want)
			}
		}
	}
	if crashes == 0 {
		t.Fatal("no crash was simulated")
	}
	checkListIndex(t, s, wsRec.ID)
}

// setNoSync turns fsync off or on for the log and the checkpoints: for
// benchmark and test setup only. Call it between writes.
func (s *Store) setNoSync(on bool) { s.base.DB.SetNoSync(on) }

// appended is where the bytes of the log at after differ from those of
// the log at before: the records written in between, which a test tears.
// Records are written in place over zeros, so the range may leave out a
// few zero bytes at its ends, never a byte of the records before.
func appended(t *testing.T, before, after string) (off, end int64) {
	t.Helper()
	a, err := os.ReadFile(before)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(after)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatal("nothing was written to the log")
	}
	n := min(len(a), len(b))
	first := 0
	for first < n && a[first] == b[first] {
		first++
	}
	last := len(b)
	for last > first && last <= n && a[last-1] == b[last-1] {
		last--
	}
	return int64(first), int64(last)
}

// tearLastRecord makes the crash copy at path look as if padd died while
// its log's last record (the one written since the copy at before) was
// being written: half of it reached the disk, and garbage after it.
func tearLastRecord(t *testing.T, before, path string) {
	t.Helper()
	off, end := appended(t, before+".wal", path+".wal")
	f, err := os.OpenFile(path+".wal", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Half the last record reached the disk, and garbage after it.
	mid := off + (end-off)/2
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff", int(end-mid)+64)), mid); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
