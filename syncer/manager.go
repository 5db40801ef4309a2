package syncer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/internal/eventbus"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
)

// Config is how the engine runs.
type Config struct {
	Store *storage.Store
	// DataDir is padd's data directory: remote tokens live under it
	// (remote.SaveToken).
	DataDir string
	Log     *slog.Logger
	// Settle is how long after a create whose outcome is unknown the
	// engine waits before it reads whether it landed, on a server
	// without idempotency keys: the server's handler has finished or
	// died by then (zero: remote.DefaultTimeout + 30 s).
	Settle time.Duration
	// MaxBackoff caps the wait between tries while a remote is
	// unreachable (zero: 5 minutes).
	MaxBackoff time.Duration
	// Client is the base of every remote client's options: pacing
	// (zero: Pad's limits), timeouts, and the HTTP client (tests put a
	// fault-injecting transport there). Insecure is the link's own.
	Client remote.Options
}

// Manager runs one worker per linked workspace and answers the sync
// routes (daemon's SyncEngine).
type Manager struct {
	cfg   Config
	store *storage.Store
	sync  *syncstate.State // the store's sync bookkeeping
	views *views.Views     // the store's reads
	log   *slog.Logger

	mu      sync.Mutex
	ctx     context.Context // Run's; nil before Run
	workers map[string]*worker
	wg      sync.WaitGroup
	events  eventbus.Bus[api.SyncEvent]
	// verifying are the workspaces a Verify reads now (verify.go).
	verifying map[string]bool

	blobOnce  sync.Once
	blobStore *blobstore.Store
	blobErr   error

	backoffFn   func(failures int) time.Duration // tests' (export_test.go); nil: worker.backoff's
	exportEvery atomic.Int64                     // a test's period of the export read (export_test.go); 0: exportEvery
}

// New makes an engine over an open store; Run starts it.
func New(cfg Config) *Manager {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Settle == 0 {
		cfg.Settle = remote.DefaultTimeout + 30*time.Second
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 5 * time.Minute
	}
	return &Manager{cfg: cfg, store: cfg.Store, sync: syncstate.Of(cfg.Store), views: views.Of(cfg.Store), log: cfg.Log, workers: map[string]*worker{}}
}

// NetworkChanged tells the engine the machine's network changed
// (netwatch): the workspaces whose remote was unreachable try again at
// once.
func (m *Manager) NetworkChanged() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.workers {
		w.networkChanged()
	}
}

// Run starts a worker for every linked workspace and wakes each when its
// workspace is written, until ctx ends; it returns once every worker has.
func (m *Manager) Run(ctx context.Context) error {
	notes, unsubscribe := m.store.Subscribe()
	defer unsubscribe()
	m.mu.Lock()
	m.ctx = ctx
	m.mu.Unlock()
	linked, err := m.sync.LinkedWorkspaces()
	if err != nil {
		m.log.Error("sync: the linked workspaces could not be read; sync is off until padd restarts", "err", err)
	}
	for _, l := range linked {
		m.start(l.WorkspaceID, l.Slug)
	}
	defer func() {
		m.mu.Lock()
		for _, w := range m.workers {
			w.cancel()
		}
		m.mu.Unlock()
		m.wg.Wait()
		m.events.Close()
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
			w := m.workers[n.WorkspaceID]
			m.mu.Unlock()
			if w != nil {
				w.localWrite()
			}
		}
	}
}

// start runs a worker for a linked workspace (once).
func (m *Manager) start(wsID, slug string) *worker {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.workers[wsID]; w != nil {
		return w
	}
	if m.ctx == nil {
		return nil
	}
	w := newWorker(m, wsID, slug)
	m.workers[wsID] = w
	m.wg.Go(func() {
		w.run()
		m.mu.Lock()
		if m.workers[wsID] == w {
			delete(m.workers, wsID)
		}
		m.mu.Unlock()
	})
	return w
}

func (m *Manager) worker(wsID string) *worker {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.workers[wsID]
}

// stop ends a workspace's worker and waits for it.
func (m *Manager) stop(wsID string) {
	m.mu.Lock()
	w := m.workers[wsID]
	delete(m.workers, wsID)
	m.mu.Unlock()
	if w != nil {
		w.cancel()
		<-w.done
	}
}

// Subscribe follows status changes and new conflicts until cancel (or
// until Run returns). A slow reader loses older events, never the
// newest.
func (m *Manager) Subscribe() (<-chan api.SyncEvent, func()) { return m.events.Subscribe() }

func (m *Manager) publish(ev api.SyncEvent) { m.events.Publish(ev) }

// linkedWorkspace resolves a local workspace (slug or id) and its link.
func (m *Manager) linkedWorkspace(ws string) (*model.Workspace, *storage.RemoteLink, error) {
	w, err := m.views.GetWorkspace(ws)
	if err != nil {
		return nil, nil, err
	}
	l, err := m.sync.SyncLink(w.ID)
	if err != nil {
		return nil, nil, err
	}
	if l == nil {
		return nil, nil, model.NotFound("workspace %q is not linked to a remote Pad; link it with `padctl sync link` or clone one with `padctl sync clone`", w.Slug).With("scope", "sync_link")
	}
	return w, l, nil
}

// errStopped says a worker was told to stop.
var errStopped = errors.New("sync worker stopped")
