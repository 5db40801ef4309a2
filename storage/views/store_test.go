package views

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// testClock is a controllable clock for storage tests.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func (c *testClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// openTest opens a fresh store in a temp dir and checks the file's
// consistency when the test ends, as bbolt's own tests do.
func openTest(t testing.TB) (*storage.Store, *testClock) {
	return openTestWith(t, storage.Options{})
}

// openTestNoSync is openTest without fsync, for tests of logic, not
// durability, that write a lot.
func openTestNoSync(t testing.TB) (*storage.Store, *testClock) {
	return openTestWith(t, storage.Options{NoSync: true})
}

func openTestWith(t testing.TB, opt storage.Options) (*storage.Store, *testClock) {
	t.Helper()
	clk := &testClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	opt.Now = clk.now
	s, err := storage.Open(filepath.Join(t.TempDir(), "padd.db"), opt)
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
func viewSettled(s *storage.Store, fn func(tx *records.Txn) error) error {
	return records.EngineErr(s.Base().DB.ViewSettled(fn))
}

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

func refs(items []*storage.ItemView) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Ref)
	}
	return out
}
