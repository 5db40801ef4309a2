package storage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
	"github.com/padd/padd/storage/internal/records"
)

// testClock is a controllable clock for storage tests.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func (c *testClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// openTest opens a fresh store in a temp dir and checks the file's
// consistency when the test ends, as bbolt's own tests do.
func openTest(t testing.TB) (*Store, *testClock) {
	return openTestWith(t, Options{})
}

// openTestNoSync is openTest without fsync, for tests of logic, not
// durability, that write a lot.
func openTestNoSync(t testing.TB) (*Store, *testClock) {
	return openTestWith(t, Options{NoSync: true})
}

func openTestWith(t testing.TB, opt Options) (*Store, *testClock) {
	t.Helper()
	clk := &testClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	opt.Now = clk.now
	s, err := Open(filepath.Join(t.TempDir(), "padd.db"), opt)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Check(); err != nil {
			t.Errorf("consistency check: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s, clk
}

var user = model.UserActor(model.SourceCLI)

// viewSettled runs fn in a read transaction after the open batch has
// committed (engine.DB.ViewSettled).
func (s *Store) viewSettled(fn func(tx *records.Txn) error) error {
	return records.EngineErr(s.base.DB.ViewSettled(fn))
}

func mustWorkspace(t testing.TB, s *Store, name string) *model.Workspace {
	t.Helper()
	ws, err := s.CreateWorkspace(WorkspaceCreate{Name: name}, user)
	if err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	return ws
}

func mustCreate(t testing.TB, s *Store, ws, coll, title string, fields map[string]any) *ItemView {
	t.Helper()
	r, err := s.CreateItem(ws, ItemCreate{Collection: coll, Title: title, Fields: fields}, user)
	if err != nil {
		t.Fatalf("create %q: %v", title, err)
	}
	return r.Item
}

func wantCode(t testing.TB, err error, code string) *model.Error {
	t.Helper()
	e, ok := model.AsError(err)
	if !ok || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	return e
}

func TestCreateGetListUpdate(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "My Project")
	if ws.Slug != "my-project" {
		t.Fatalf("slug = %q", ws.Slug)
	}
	a := mustCreate(t, s, ws.Slug, "tasks", "Fix login", map[string]any{"priority": "high"})
	if a.Ref != "TASK-1" || a.Fields["status"] != "open" || a.Fields["priority"] != "high" {
		t.Fatalf("created %+v", a)
	}
	clk.advance(time.Second)
	b := mustCreate(t, s, ws.Slug, "task", "Write docs", nil)
	if b.Ref != "TASK-2" {
		t.Fatalf("alias create ref = %s", b.Ref)
	}
	idea := mustCreate(t, s, ws.Slug, "ideas", "Dark mode", nil)
	if idea.Ref != "IDEA-3" {
		t.Fatalf("numbers are workspace-wide: got %s", idea.Ref)
	}
	for _, ref := range []string{"TASK-1", "task-1", a.ID, a.Slug} {
		got, err := rd(s).GetItem(ws.Slug, ref)
		if err != nil || got.ID != a.ID {
			t.Fatalf("get %q: %v %v", ref, got, err)
		}
	}
	res, err := rd(s).ListItems(context.Background(), ws.Slug, ListParams{Collection: "tasks"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Items[0].ID != b.ID {
		t.Fatalf("default order is updated_at desc: %v", refs(res.Items))
	}
	res, err = rd(s).ListItems(context.Background(), ws.Slug, ListParams{Collection: "tasks", Fields: map[string][]string{"priority": {"high", "critical"}}})
	if err != nil || len(res.Items) != 1 || res.Items[0].ID != a.ID {
		t.Fatalf("filter: %v %v", refs(res.Items), err)
	}
	seq := a.Seq
	up, err := s.UpdateItem(ws.Slug, "TASK-1", ItemUpdate{FieldsPatch: map[string]any{"status": "done"}, ExpectedSeq: &seq}, user)
	if err != nil || up.Item.Fields["status"] != "done" || up.Item.Seq <= seq {
		t.Fatalf("update: %+v %v", up, err)
	}
	_, err = s.UpdateItem(ws.Slug, "TASK-1", ItemUpdate{FieldsPatch: map[string]any{"status": "open"}, ExpectedSeq: &seq}, user)
	e := wantCode(t, err, model.CodeUpdateConflict)
	if e.Details["actual_seq"] != up.Item.Seq {
		t.Fatalf("conflict details %v", e.Details)
	}
	res, _ = rd(s).ListItems(context.Background(), ws.Slug, ListParams{Collection: "tasks", Fields: map[string][]string{"status": {"open"}}})
	if len(res.Items) != 1 || res.Items[0].ID != b.ID {
		t.Fatalf("index follows update: %v", refs(res.Items))
	}
}

func refs(items []*ItemView) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Ref)
	}
	return out
}

// GetItems answers what GetItem answers for each ref, in order, with nil
// for a ref that names nothing (an item deleted since a search indexed
// it is purged, or never was).
func TestGetItemsMatchesGetItem(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Batch")
	plan := mustCreate(t, s, ws.Slug, "plans", "The plan", nil)
	a := mustCreate(t, s, ws.Slug, "tasks", "First", map[string]any{"priority": "high"})
	parent := plan.Ref
	if _, err := s.UpdateItem(ws.Slug, a.Ref, ItemUpdate{Parent: &parent}, user); err != nil {
		t.Fatal(err)
	}
	b := mustCreate(t, s, ws.Slug, "ideas", "Second", nil)
	refs := []string{b.ID, a.Ref, "TASK-999", plan.ID, "not-a-ref"}
	got, err := rd(s).GetItems(ws.Slug, refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(refs) {
		t.Fatalf("%d views for %d refs", len(got), len(refs))
	}
	for i, ref := range refs {
		want, err := rd(s).GetItem(ws.Slug, ref)
		if model.IsNotFound(err) {
			if got[i] != nil {
				t.Errorf("%s names nothing, GetItems gave %s", ref, got[i].Ref)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got[i] == nil || !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s: GetItems %+v, GetItem %+v", ref, got[i], want)
		}
	}
	if got[1].ParentRef != plan.Ref {
		t.Errorf("parent ref %q, want %s", got[1].ParentRef, plan.Ref)
	}
	if _, err := rd(s).GetItems("nowhere", refs); !model.IsNotFound(err) {
		t.Errorf("GetItems of a missing workspace: %v, want not found", err)
	}
}

// WrittenSeq answers, by the workspace's id or slug whichever the write
// named, at least the seq of every acknowledged write, without a read.
func TestWrittenSeq(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Written")
	if _, ok := s.WrittenSeq(ws.Slug); ok {
		t.Fatal("a seq before any write to the workspace")
	}
	a := mustCreate(t, s, ws.Slug, "tasks", "first", nil)
	b := mustCreate(t, s, ws.ID, "tasks", "second", nil)
	for _, name := range []string{ws.Slug, ws.ID} {
		if seq, ok := s.WrittenSeq(name); !ok || seq != b.Seq || seq <= a.Seq {
			t.Errorf("WrittenSeq(%s) = %d, %v; the writes had seqs %d and %d", name, seq, ok, a.Seq, b.Seq)
		}
	}
	if _, err := s.CreateItem(ws.Slug, ItemCreate{Collection: "nowhere", Title: "refused"}, user); err == nil {
		t.Fatal("a create in a missing collection succeeded")
	}
	if seq, _ := s.WrittenSeq(ws.Slug); seq != b.Seq {
		t.Errorf("a refused write moved WrittenSeq to %d", seq)
	}
}

// A subscription ends when the store closes, whether it began before the
// close or after it: a watcher that subscribes as the store goes away
// must not wait forever.
func TestSubscriptionsEndWithStore(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "padd.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	before, unsubscribe := s.Subscribe()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after, unsubscribeLate := s.Subscribe()
	for name, ch := range map[string]<-chan Notification{"before Close": before, "after Close": after} {
		select {
		case _, open := <-ch:
			if open {
				t.Fatalf("subscribed %s: a notification from a closed store", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("subscribed %s: the channel stayed open after Close", name)
		}
	}
	unsubscribe()
	unsubscribeLate()
}

// A store read made from inside a write is refused (it would wait for the
// committer that runs the write), and so the write is.
func TestReadInsideWriteIsRefused(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Nested")
	a := mustCreate(t, s, ws.Slug, "tasks", "exists", nil)
	var inside error
	err := s.write(ws.Slug, user, func(w *wtx) error {
		_, inside = rd(s).GetItem(ws.Slug, a.Ref)
		return inside
	})
	if !errors.Is(inside, engine.ErrReadInWrite) || !errors.Is(err, engine.ErrReadInWrite) {
		t.Fatalf("a read inside a write answered %v, and the write %v; want engine.ErrReadInWrite", inside, err)
	}
	if _, err := rd(s).GetItem(ws.Slug, a.Ref); err != nil {
		t.Fatalf("the same read outside the write: %v", err)
	}
}

// Opening a file whose layout is current writes nothing to it: a start of
// padd costs no synced commit (the file's bytes are the same after an
// open and a close). A file of an older layout is migrated at open
// (upgrade_test.go).
func TestOpenCurrentLayoutWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustWorkspace(t, s, "Kept")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wss, err := rd(s).ListWorkspaces()
	if err != nil || len(wss) != 1 {
		t.Errorf("reopened: %d workspaces (%v), want the one written", len(wss), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("opening and closing an up-to-date file changed it")
	}
}
