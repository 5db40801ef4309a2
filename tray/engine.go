package tray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/model"
)

// Options configure an Engine. Everything environmental is a field, so
// the tests run it against temporary homes.
type Options struct {
	// DataDir is padd's data directory ("" = launch.DataDir()).
	DataDir string
	// Padd and Padctl are the binaries the tray starts ("" = beside
	// padtray, else on PATH).
	Padd, Padctl string
	// Home and Getenv are the user's, for the MCP clients' configs and
	// the tray's autostart entry.
	Home   string
	Getenv func(string) string
	Log    *slog.Logger
	// Notifier shows reminders; nil shows none.
	Notifier Notifier
	// Quit ends the app (the adapter's); called once, by Quit tray and by
	// Stop padd and quit.
	Quit func()
}

// Engine keeps the tray's State live from padd's API and event streams,
// and carries out the menu's Actions.
type Engine struct {
	o Options

	mu     sync.Mutex
	st     State
	client *api.Client
	info   *launch.Info
	prefs  prefs
	// lastID is the all-workspaces stream's last event id: a reconnect
	// resumes after it, so a reminder fired during an outage is heard.
	lastID string

	changed chan struct{} // cap 1: the state changed
	kick    chan struct{} // cap 1: try to connect now
	dirty   chan struct{} // cap 1: read padd's state again
	quit    sync.Once
}

// NewEngine makes an Engine; Run starts it.
func NewEngine(o Options) (*Engine, error) {
	if o.DataDir == "" {
		d, err := launch.DataDir()
		if err != nil {
			return nil, err
		}
		o.DataDir = d
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Quit == nil {
		o.Quit = func() {}
	}
	e := &Engine{o: o, changed: make(chan struct{}, 1), kick: make(chan struct{}, 1), dirty: make(chan struct{}, 1)}
	e.st.TrayVersion = api.Version
	e.prefs = loadPrefs(e.prefsPath())
	e.st.Current = e.prefs.Workspace
	return e, nil
}

// Changes signals each change of the state (coalesced: read State when
// it fires).
func (e *Engine) Changes() <-chan struct{} { return e.changed }

// State is a copy of the current state.
func (e *Engine) State() State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st.clone()
}

// update changes the state under the lock and signals the change.
func (e *Engine) update(fn func(s *State)) {
	e.mu.Lock()
	fn(&e.st)
	e.mu.Unlock()
	signal(e.changed)
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Run keeps the state live until ctx ends: it connects to padd, follows
// its streams while it answers, and reconnects with backoff when it
// does not. It never starts padd (that is the user's Start).
func (e *Engine) Run(ctx context.Context) {
	go e.readLocal()
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 200 * time.Millisecond
	b.MaxInterval = 5 * time.Second
	b.RandomizationFactor = 0.2
	for ctx.Err() == nil {
		c, info, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: e.o.DataDir})
		if err == nil {
			began := time.Now()
			err = e.session(ctx, c, info)
			if time.Since(began) > b.MaxInterval {
				// A session that lasted: padd went away, so try again
				// soon. One that ends at once (a padd that refuses a
				// stream) keeps backing off.
				b.Reset()
			}
			if ctx.Err() != nil {
				return
			}
			e.o.Log.Info("lost padd's event stream; reconnecting", "err", err)
		}
		e.setOutage(err)
		wait := time.NewTimer(b.NextBackOff())
		select {
		case <-ctx.Done():
			wait.Stop()
			return
		case <-e.kick:
			wait.Stop()
			b.Reset()
		case <-wait.C:
		}
	}
}

// setOutage records why padd is not there: not running (no daemon.json,
// or its pid is gone: the user's Start is wanted) or not answering.
func (e *Engine) setOutage(err error) {
	conn := ConnLost
	if info, rerr := launch.ReadInfo(e.o.DataDir); rerr != nil || !launch.ProcessAlive(info.PID) {
		conn = ConnDown
	}
	e.update(func(s *State) {
		if s.Conn == ConnStarting {
			return // the start says how it went
		}
		if s.Conn != ConnDown && s.Conn != ConnLost {
			s.Since = time.Now() // the outage starts
		}
		s.Conn = conn
		if err != nil {
			s.Why = err.Error()
		}
		s.Next, s.Sync, s.OpenKnown = nil, nil, false
	})
	e.mu.Lock()
	e.client, e.info = nil, nil
	e.mu.Unlock()
}

// refreshGap is the least time between two reads of padd's state: a
// burst of events (a bulk import) is read once per gap, not per event.
const refreshGap = 300 * time.Millisecond

// session follows one padd until its streams end.
func (e *Engine) session(ctx context.Context, c *api.Client, info *launch.Info) error {
	c.Source = "padtray"
	st, err := c.DaemonStatus(ctx)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.mu.Lock()
	e.client, e.info = c, info
	e.mu.Unlock()
	e.update(func(s *State) {
		s.Conn, s.Since, s.Why, s.PaddVersion = ConnUp, time.Time{}, "", st.Version
	})
	if err := e.refresh(sctx, c); err != nil {
		return err
	}

	ended := make(chan error, 2)
	go func() { ended <- e.followEvents(sctx, c) }()
	go func() {
		err := e.followSync(sctx, c)
		if api.ErrorCode(err) == api.CodeUnavailable || api.IsNotFound(err) {
			// No sync engine in this padd: nothing to follow, and no
			// reason to drop the other stream.
			e.update(func(s *State) { s.SyncUnavailable, s.Sync = true, nil })
			return
		}
		ended <- err
	}()

	return coalesce(ended, e.dirty, refreshGap, func() error {
		err := e.refresh(sctx, c)
		if err != nil && sctx.Err() == nil {
			e.o.Log.Warn("could not read padd's state", "err", err)
			return nil
		}
		return err
	})
}

// coalesce calls refresh for each signal on dirty, but never sooner than
// gap after the last call: the signals of a burst that arrive within
// the gap are read by one call at its end. It returns the first error of
// ended or of refresh.
func coalesce(ended <-chan error, dirty <-chan struct{}, gap time.Duration, refresh func() error) error {
	var last time.Time
	var timer *time.Timer
	var due <-chan time.Time // set while a call waits for its gap
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case err := <-ended:
			return err
		case <-dirty:
			if due != nil {
				continue // a call is due already: it reads this too
			}
			if wait := gap - time.Since(last); wait > 0 {
				timer = time.NewTimer(wait)
				due = timer.C
				continue
			}
		case <-due:
			due = nil
		}
		last = time.Now()
		if err := refresh(); err != nil {
			return err
		}
	}
}

// refresh reads what the menu shows from padd: the workspaces, and the
// current one's open count and next items, and the sync statuses.
func (e *Engine) refresh(ctx context.Context, c *api.Client) error {
	wss, err := c.ListWorkspaces(ctx)
	if err != nil {
		return err
	}
	list := make([]Workspace, 0, len(wss))
	for _, w := range wss {
		list = append(list, Workspace{Slug: w.Slug, Name: w.Name})
	}
	e.mu.Lock()
	cur := e.st.Current
	e.mu.Unlock()
	if !hasWorkspace(list, cur) {
		cur = ""
		if len(list) > 0 {
			cur = list[0].Slug
		}
	}
	var open int
	var openKnown bool
	var next []NextItem
	if cur != "" {
		colls, err := c.ListCollections(ctx, cur)
		if err != nil && !api.IsNotFound(err) {
			return err
		}
		for _, col := range colls {
			if col.TracksWork {
				open += col.ActiveItemCount
			}
		}
		openKnown = err == nil
		work, err := c.Next(ctx, cur, api.WorkQuery{})
		if err != nil && !api.IsNotFound(err) {
			return err
		}
		if work != nil {
			for _, it := range work.Items {
				if len(next) == MaxNext {
					break
				}
				ref := it.ItemRef
				if ref == "" {
					ref = it.ItemSlug
				}
				next = append(next, NextItem{Ref: ref, Title: it.ItemTitle, Reason: it.Reason})
			}
		}
	}
	e.mu.Lock()
	unavailable := e.st.SyncUnavailable
	e.mu.Unlock()
	var syncs []api.SyncStatus
	if !unavailable {
		syncs, err = c.SyncStatuses(ctx)
		if api.ErrorCode(err) == api.CodeUnavailable {
			unavailable, err = true, nil
		}
		if err != nil {
			return err
		}
	}
	e.update(func(s *State) {
		s.Workspaces, s.Current, s.Open, s.OpenKnown, s.Next = list, cur, open, openKnown, next
		s.SyncUnavailable = unavailable
		s.Sync = sortSync(syncs)
	})
	return nil
}

func hasWorkspace(list []Workspace, slug string) bool {
	for _, w := range list {
		if w.Slug == slug {
			return true
		}
	}
	return false
}

func sortSync(in []api.SyncStatus) []api.SyncStatus {
	sort.Slice(in, func(i, j int) bool { return in[i].Workspace < in[j].Workspace })
	return in
}

// followEvents follows the all-workspaces event stream, resuming after
// the last event heard, and marks the state dirty for the events that
// change what the menu shows; a fired reminder becomes a notification.
func (e *Engine) followEvents(ctx context.Context, c *api.Client) error {
	e.mu.Lock()
	from := e.lastID
	e.mu.Unlock()
	return c.StreamEvents(ctx, "", from, func(f api.SSEFrame) error {
		if f.HasID {
			e.mu.Lock()
			e.lastID = f.ID
			e.mu.Unlock()
		}
		switch f.Event {
		case "connected":
			// The stream hears everything from here on: read what came
			// before it (since the first read, and the reminders fired
			// while nobody listened).
			signal(e.dirty)
			go e.pendingReminders(ctx, c)
			return nil
		case "":
			return nil
		case "shutdown":
			return errors.New("padd is shutting down")
		case "sync_required":
			// Our position is not this padd's (another database): start
			// from now, and read everything again.
			signal(e.dirty)
			return nil
		}
		var ev api.Event
		if err := json.Unmarshal(f.Data, &ev); err != nil {
			return fmt.Errorf("padd sent a %s event that does not decode (%v)", f.Event, err)
		}
		if ev.Entity == model.EntityReminder && ev.Op == model.OpFired {
			e.notifyReminder(c, ev.Workspace, api.ReminderView{ID: ev.EntityID, ItemRef: ev.Ref, ItemTitle: ev.Title})
			return nil
		}
		e.mu.Lock()
		cur := e.st.Current
		e.mu.Unlock()
		switch {
		case ev.Entity == model.EntityWorkspace, ev.Workspace == cur && relevant(ev):
			signal(e.dirty)
		}
		return nil
	})
}

// relevant says whether an event of the current workspace can change its
// open count or its next items.
func relevant(ev api.Event) bool {
	switch ev.Entity {
	case model.EntityItem, model.EntityCollection, model.EntityLink, model.EntityRole, model.EntityLease:
		return true
	}
	return false
}

// followSync follows padd's sync stream: each status replaces the
// workspace's line.
func (e *Engine) followSync(ctx context.Context, c *api.Client) error {
	return c.SyncEvents(ctx, func(ev api.SyncEvent) error {
		if ev.Status == nil {
			return nil
		}
		st := *ev.Status
		e.update(func(s *State) {
			for i := range s.Sync {
				if s.Sync[i].Workspace == st.Workspace {
					s.Sync[i] = st
					return
				}
			}
			s.Sync = sortSync(append(s.Sync, st))
		})
		return nil
	})
}

// pendingReminders shows the fired, unacknowledged reminders of every
// workspace that the tray has not shown yet: those that fired while it
// was not running, or not connected.
func (e *Engine) pendingReminders(ctx context.Context, c *api.Client) {
	wss, err := c.ListWorkspaces(ctx)
	if err != nil {
		return
	}
	for _, w := range wss {
		work, err := c.Next(ctx, w.Slug, api.WorkQuery{})
		if err != nil {
			continue
		}
		for _, r := range work.Reminders {
			e.notifyReminder(c, w.Slug, r)
		}
	}
}

// notifyReminder shows a reminder once: the ids shown are kept in the
// tray's preferences, so a restart of the tray or of padd does not show
// it again.
func (e *Engine) notifyReminder(c *api.Client, ws string, r api.ReminderView) {
	if e.o.Notifier == nil || r.ID == "" {
		return
	}
	key := ws + "/" + r.ID
	e.mu.Lock()
	if e.prefs.notified(key) {
		e.mu.Unlock()
		return
	}
	e.prefs.markNotified(key)
	p := e.prefs.clone()
	e.mu.Unlock()
	if err := p.save(e.prefsPath()); err != nil {
		e.o.Log.Warn("could not save the tray's preferences", "err", err)
	}
	summary := "Reminder: " + r.ItemRef
	if r.ItemRef == "" {
		summary = "Reminder"
	}
	body := r.ItemTitle + " (" + ws + ")"
	ack := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.AckReminder(ctx, ws, r.ID); err != nil {
			e.o.Log.Warn("could not acknowledge the reminder", "workspace", ws, "reminder", r.ID, "err", err)
		}
	}
	if err := e.o.Notifier.Notify(Notification{Summary: summary, Body: body, Ref: r.ItemRef}, ack); err != nil {
		e.o.Log.Warn("could not show a notification", "err", err)
	}
}

// readLocal reads what does not come from padd: the MCP clients' configs
// and the service's state.
func (e *Engine) readLocal() {
	agents := readAgents(e.o)
	e.update(func(s *State) { s.Agents = agents })
	login := readLogin(e.o) // a padctl process: the slower of the two
	e.update(func(s *State) { s.Login = login })
}

func (e *Engine) prefsPath() string { return filepath.Join(e.o.DataDir, prefsFile) }

// current returns the client of the padd followed now (nil when none).
func (e *Engine) current() (*api.Client, *launch.Info) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.client, e.info
}
