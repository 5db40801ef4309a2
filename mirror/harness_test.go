package mirror

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/internal/leakcheck"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

var user = model.UserActor("test")

// rig is a real store, a workspace and a running mirror of it.
type rig struct {
	t      *testing.T
	store  *storage.Store
	dbPath string
	dir    string
	ws     string
	m      *Manager
	stop   func()
	settle time.Duration
}

// testSettle is the rig's settle delay: short, so that tests are quick.
// The settle rule itself is TestSettlerReadsAFileOnceItIsQuiet's.
const testSettle = 20 * time.Millisecond

func newRig(t *testing.T) *rig { return newRigSettle(t, testSettle) }

func newRigSettle(t *testing.T, settle time.Duration) *rig {
	t.Helper()
	r := &rig{t: t, dbPath: filepath.Join(t.TempDir(), "padd.db"), dir: filepath.Join(t.TempDir(), "mirror"), settle: settle}
	r.open()
	if _, err := r.store.CreateWorkspace(storage.WorkspaceCreate{Name: "Mine", Slug: "mine"}, user); err != nil {
		t.Fatal(err)
	}
	r.ws = "mine"
	r.start()
	if _, err := r.m.Add(r.ws, r.dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.close() })
	return r
}

func (r *rig) open() {
	st, err := storage.Open(r.dbPath, storage.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		r.t.Fatal(err)
	}
	r.store = st
}

func (r *rig) start() {
	r.m = New(Config{Store: r.store, Log: testLog(), Settle: r.settle})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.m.Run(ctx) }()
	testwait.Until(r.t, "the manager to run", func() bool {
		r.m.mu.Lock()
		defer r.m.mu.Unlock()
		return r.m.ctx != nil
	})
	r.stop = func() { cancel(); <-done }
}

// restart stops the mirror and the store and opens both again.
func (r *rig) restart(between func()) {
	r.stop()
	r.store.Close()
	if between != nil {
		between()
	}
	r.open()
	r.start()
	// Run starts the recorded mirror after it runs: wait for it, as a
	// user's status would show it once padd is up.
	testwait.Until(r.t, "the mirror started again", func() bool { return len(r.m.List()) > 0 })
}

func (r *rig) close() {
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	r.store.Close()
}

func (r *rig) create(coll, title string, fields map[string]any) *storage.ItemView {
	r.t.Helper()
	res, err := r.store.CreateItem(r.ws, storage.ItemCreate{Collection: coll, Title: title, Content: "body of " + title, Fields: fields}, user)
	if err != nil {
		r.t.Fatal(err)
	}
	return res.Item
}

func (r *rig) item(ref string) *storage.ItemView {
	r.t.Helper()
	v, err := views.Of(r.store).GetItem(r.ws, ref)
	if err != nil {
		r.t.Fatal(err)
	}
	return v
}

// fileOf waits for an item's file and returns its path (relative).
func (r *rig) fileOf(ref string) string {
	r.t.Helper()
	var rel string
	testwait.Until(r.t, "the file of "+ref, func() bool {
		m, _ := filepath.Glob(filepath.Join(r.dir, "*", ref+"-*.md"))
		for _, p := range m {
			if !ignored(filepath.Base(p)) {
				rel, _ = filepath.Rel(r.dir, p)
				return true
			}
		}
		return false
	})
	return filepath.ToSlash(rel)
}

func (r *rig) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, rel))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *rig) write(rel, body string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) status() Status {
	for _, s := range r.m.List() {
		return s
	}
	r.t.Fatal("no mirror")
	return Status{}
}

func (r *rig) waitItem(ref, what string, ok func(v *storage.ItemView) bool) *storage.ItemView {
	r.t.Helper()
	var v *storage.ItemView
	testwait.Until(r.t, ref+": "+what, func() bool {
		var err error
		v, err = views.Of(r.store).GetItem(r.ws, ref)
		return err == nil && ok(v)
	})
	return v
}

func (r *rig) waitFile(rel, what string, ok func(s string) bool) string {
	r.t.Helper()
	var s string
	testwait.Until(r.t, rel+": "+what, func() bool {
		b, err := os.ReadFile(filepath.Join(r.dir, rel))
		s = string(b)
		return err == nil && ok(s)
	})
	return s
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// testLog discards the mirror's log, or prints its warnings when
// PADD_MIRROR_LOG is set.
func testLog() *slog.Logger {
	if os.Getenv("PADD_MIRROR_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.DiscardHandler)
}
