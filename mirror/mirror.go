// Package mirror keeps a workspace as a folder of Markdown files, both
// ways: every change to an item reaches its file, and a file saved in
// any editor changes its item (docs/MIRROR.md). It runs inside padd,
// reading and writing storage directly, woken by the store's commits and
// by fsnotify; an idle mirror arms no timer.
package mirror

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/mirrorstate"
	"github.com/padd/padd/storage/views"
)

// Config is a Manager's.
type Config struct {
	Store *storage.Store
	Log   *slog.Logger
	// OnDelete says what a deleted file does to its item (config's
	// "archive", the default, or "keep"); asked at each deletion.
	OnDelete func() string
	// Settle is how long a changed file must go without a write before it
	// is read (DefaultSettle when zero): a file written in parts is
	// applied once, whole.
	Settle time.Duration
	// OnEvent, when set, is told of each file not applied and each
	// conflict copy, as they happen (padd's event stream carries them).
	OnEvent func(Event)
}

// Event kinds.
const (
	EventFileError = "mirror_file_error" // a file was not applied; Error says why
	EventConflict  = "mirror_conflict"   // both sides changed; Copy holds the file's version
)

// Event is something a user should see about a mirror.
type Event struct {
	Kind     string
	MirrorID string
	Dir      string
	Path     string
	Error    string
	Copy     string
}

// Manager runs every mirror of the store.
type Manager struct {
	cfg   Config
	views *views.Views       // cfg.Store's reads
	state *mirrorstate.State // cfg.Store's mirror records
	log   *slog.Logger

	mu      sync.Mutex
	ctx     context.Context
	mirrors map[string]*mirror // by id
	// pending are mirrors added before Run started, which Run starts;
	// List shows them as starting meanwhile.
	pending map[string]mirrorstate.Def
	wg      sync.WaitGroup
}

// New makes a Manager; Run starts it.
func New(cfg Config) *Manager {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.OnEvent == nil {
		cfg.OnEvent = func(Event) {}
	}
	if cfg.OnDelete == nil {
		cfg.OnDelete = func() string { return "archive" }
	}
	return &Manager{cfg: cfg, views: views.Of(cfg.Store), state: mirrorstate.Of(cfg.Store), log: cfg.Log, mirrors: map[string]*mirror{}, pending: map[string]mirrorstate.Def{}}
}

// Run starts every recorded mirror and wakes each when its workspace is
// written, until ctx ends; it returns once every mirror has stopped.
func (m *Manager) Run(ctx context.Context) error {
	notes, unsubscribe := m.cfg.Store.Subscribe()
	defer unsubscribe()
	m.mu.Lock()
	m.ctx = ctx
	m.mu.Unlock()
	defs, err := m.state.Mirrors()
	if err != nil {
		m.log.Error("mirror: the mirrors could not be read; mirrors are off until padd restarts", "err", err)
	}
	for _, d := range defs {
		m.start(d)
	}
	defer func() {
		m.mu.Lock()
		for _, mr := range m.mirrors {
			mr.cancel()
		}
		m.ctx = nil
		m.mu.Unlock()
		m.wg.Wait()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n, open := <-notes:
			if !open {
				return nil
			}
			m.mu.Lock()
			for _, mr := range m.mirrors {
				if mr.def.WorkspaceID == n.WorkspaceID {
					mr.poke()
				}
			}
			m.mu.Unlock()
		}
	}
}

func (m *Manager) start(d mirrorstate.Def) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx == nil || m.mirrors[d.ID] != nil {
		return
	}
	ctx, cancel := context.WithCancel(m.ctx)
	mr := newMirror(m, d, cancel)
	m.mirrors[d.ID] = mr
	delete(m.pending, d.ID)
	m.wg.Go(func() {
		defer close(mr.done)
		mr.run(ctx)
	})
}

// Add mirrors workspace ws into dir (made if missing) and starts it.
func (m *Manager) Add(ws, dir string) (*Status, error) {
	if _, err := m.views.GetWorkspace(ws); err != nil {
		return nil, err // before the folder is made
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, model.Invalid("mirror directory %q: %v", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, model.Invalid("the mirror directory %s cannot be made: %v", abs, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	d, _, err := m.state.AddMirror(ws, abs)
	if err != nil {
		return nil, err
	}
	m.start(*d)
	m.mu.Lock()
	mr := m.mirrors[d.ID]
	if mr == nil {
		// padd is still starting: Run starts every recorded mirror once
		// it runs (it is running before it reads them), this one too.
		m.pending[d.ID] = *d
	}
	m.mu.Unlock()
	if mr == nil {
		st := startingStatus(*d)
		return &st, nil
	}
	st := mr.status()
	return &st, nil
}

// Remove stops and forgets the mirror of ws in dir; its files stay.
func (m *Manager) Remove(ws, dir string) error {
	mr, err := m.find(ws, dir)
	if err != nil {
		return err
	}
	mr.cancel()
	<-mr.done
	m.mu.Lock()
	delete(m.mirrors, mr.def.ID)
	m.mu.Unlock()
	return m.state.RemoveMirror(mr.def.ID)
}

func (m *Manager) find(ws, dir string) (*mirror, error) {
	// A mirror of a workspace since deleted is still found (by its id),
	// so that it can be removed.
	wsID := ws
	w, wsErr := m.views.GetWorkspace(ws)
	if wsErr == nil {
		wsID = w.ID
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, model.Invalid("mirror directory %q: %v", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mr := range m.mirrors {
		if mr.def.WorkspaceID == wsID && mr.def.Dir == filepath.Clean(abs) {
			return mr, nil
		}
	}
	if wsErr != nil {
		return nil, wsErr
	}
	return nil, model.NotFound("workspace %s has no mirror in %s", ws, abs)
}

// List reports every mirror's status, by directory.
func (m *Manager) List() []Status {
	m.mu.Lock()
	all := make([]*mirror, 0, len(m.mirrors))
	for _, mr := range m.mirrors {
		all = append(all, mr)
	}
	out := make([]Status, 0, len(all)+len(m.pending))
	for _, d := range m.pending {
		out = append(out, startingStatus(d))
	}
	m.mu.Unlock()
	for _, mr := range all {
		out = append(out, mr.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out
}

// startingStatus is a mirror added while padd starts, before Run starts it.
func startingStatus(d mirrorstate.Def) Status {
	return Status{ID: d.ID, WorkspaceID: d.WorkspaceID, Dir: d.Dir, State: "starting"}
}

// Status is one mirror's state, for `padctl mirror status`.
type Status struct {
	ID          string
	WorkspaceID string
	Dir         string
	// Files is how many items have a file.
	Files int
	// Cursor is the workspace seq every change up to has reached the files.
	Cursor int64
	// Errors are files the mirror could not apply, by path: they stay as
	// the user wrote them until fixed.
	Errors []FileError
	// Conflicts are the conflict copies on disk: written by padd, or found
	// in the folder at start (until the user removes them).
	Conflicts []string
	// State is "starting", "watching" or the reason it is stopped.
	State string
}

// FileError is a file that was not applied, and why.
type FileError struct {
	Path  string
	Error string
	At    time.Time
}

func (e FileError) String() string { return fmt.Sprintf("%s: %s", e.Path, e.Error) }
