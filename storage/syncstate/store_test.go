package syncstate

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// testClock is a controllable clock for the tests.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// openTest opens a fresh store in a temp dir and checks the file's
// consistency when the test ends, as bbolt's own tests do.
func openTest(t testing.TB) (*storage.Store, *testClock) {
	t.Helper()
	clk := &testClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	s, err := storage.Open(filepath.Join(t.TempDir(), "padd.db"), storage.Options{Now: clk.now})
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

func mustWorkspace(t testing.TB, s *storage.Store, name string) *model.Workspace {
	t.Helper()
	ws, err := s.CreateWorkspace(storage.WorkspaceCreate{Name: name}, user)
	if err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	return ws
}

func mustCreate(t testing.TB, s *storage.Store, ws, coll, title string, fields map[string]any) *storage.ItemView {
	t.Helper()
	r, err := s.CreateItem(ws, storage.ItemCreate{Collection: coll, Title: title, Fields: fields}, user)
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

func mustOutbox(t testing.TB, s *storage.Store, ws string) []model.Change {
	t.Helper()
	out, err := Of(s).Outbox(ws, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// openSyncConflicts counts the open entries.
func openSyncConflicts(s *storage.Store, ws string) (int, error) {
	open, err := Of(s).SyncConflicts(ws, true)
	return len(open), err
}

// syncConflict reads one conflict or set-aside entry.
func syncConflict(s *storage.Store, ws string, id int64) (*storage.SyncConflict, error) {
	var out *storage.SyncConflict
	err := s.Base().Read(ws, func(r *records.Rtx) (err error) {
		out, err = records.GetConflict(r.WS, id)
		return err
	})
	return out, err
}

func ptrTo[T any](v T) *T { return &v }
