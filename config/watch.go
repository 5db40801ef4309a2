package config

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settle is how long the file must be quiet before it is read again: an
// editor's save is several events (write, chmod, or rename over).
const settle = 50 * time.Millisecond

// Status is what `padctl daemon status` shows of the settings file.
type Status struct {
	Path string
	// Error is why the file on disk is not applied ("" when it is); the
	// settings in force are the last good ones.
	Error string
	// Restart names the changed settings that apply only at start.
	Restart []string
	// Unknown names keys the file holds that padd does not know.
	Unknown  []string
	LoadedAt time.Time
}

// Watcher holds padd's settings and reloads them when the file changes.
type Watcher struct {
	path   string
	getenv func(string) string
	log    *slog.Logger
	level  *slog.LevelVar
	// pinLevel keeps level as the command line set it (padd --debug).
	pinLevel bool

	mu      sync.Mutex
	started Settings // in force at start: what Restart compares with
	cur     Settings
	status  Status
	subs    []func(Settings)
	errSubs []func(error)
}

// Options make a Watcher.
type Options struct {
	DataDir string
	Getenv  func(string) string // nil: os.Getenv
	Log     *slog.Logger
	// Level is the logger's level, set from log_level at every load (nil:
	// none is set). PinLevel leaves it alone (a --debug flag won).
	Level    *slog.LevelVar
	PinLevel bool
}

// New reads the settings (the file, then the environment over it). A
// broken file at start is the defaults, and Status says why.
func New(o Options) *Watcher {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	w := &Watcher{path: Path(o.DataDir), getenv: o.Getenv, log: o.Log, level: o.Level, pinLevel: o.PinLevel}
	w.status.Path = w.path
	s, unknown, err := Load(w.path)
	if err != nil {
		w.log.Error("padd.toml is not valid; padd runs with the defaults until it is fixed", "path", w.path, "err", err)
		w.status.Error = err.Error()
	}
	w.warnUnknown(unknown)
	s, warns := Overlay(s, w.getenv)
	for _, m := range warns {
		w.log.Warn(m)
	}
	w.cur, w.started = s, s
	w.status.Unknown, w.status.LoadedAt = unknown, time.Now().UTC()
	w.applyLevel(s)
	return w
}

func (w *Watcher) warnUnknown(keys []string) {
	if len(keys) > 0 {
		w.log.Warn("padd.toml holds keys this padd does not know; they are ignored", "path", w.path, "keys", keys)
	}
}

func (w *Watcher) applyLevel(s Settings) {
	if w.level != nil && !w.pinLevel {
		w.level.Set(s.Level())
	}
}

// Settings are the settings in force.
func (w *Watcher) Settings() Settings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

// Started are the settings padd started with (port is read from these).
func (w *Watcher) Started() Settings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started
}

// Status reports the file's state.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.status
	st.Restart = append([]string(nil), st.Restart...)
	st.Unknown = append([]string(nil), st.Unknown...)
	return st
}

// OnChange calls fn with the new settings after every good reload.
func (w *Watcher) OnChange(fn func(Settings)) {
	w.mu.Lock()
	w.subs = append(w.subs, fn)
	w.mu.Unlock()
}

// OnError calls fn with why the file was not applied, at every reload
// that keeps the settings in force.
func (w *Watcher) OnError(fn func(error)) {
	w.mu.Lock()
	w.errSubs = append(w.errSubs, fn)
	w.mu.Unlock()
}

// Reload reads the file again and applies it, or keeps the settings in
// force when it is broken. Run calls it when the file changes.
func (w *Watcher) Reload() error { return w.reload(false) }

// reload is Reload; onlyChanged leaves good settings that equal those in
// force unannounced (Run's read when its watch starts).
func (w *Watcher) reload(onlyChanged bool) error {
	s, unknown, err := Load(w.path)
	if err == nil && onlyChanged {
		o, _ := Overlay(s, w.getenv)
		w.mu.Lock()
		same := w.cur == o
		w.mu.Unlock()
		if same {
			return nil
		}
	}
	w.mu.Lock()
	if err != nil {
		w.status.Error = err.Error()
		errSubs := append([]func(error){}, w.errSubs...)
		w.mu.Unlock()
		w.log.Error("padd.toml is not valid; the settings in force are kept until it is fixed", "path", w.path, "err", err)
		for _, fn := range errSubs {
			fn(err)
		}
		return err
	}
	s, warns := Overlay(s, w.getenv)
	old := w.cur
	w.cur = s
	w.status.Error, w.status.Unknown, w.status.LoadedAt = "", unknown, time.Now().UTC()
	w.status.Restart = RestartNeeded(w.started, s)
	subs := append([]func(Settings){}, w.subs...)
	w.mu.Unlock()
	for _, m := range warns {
		w.log.Warn(m)
	}
	w.warnUnknown(unknown)
	w.applyLevel(s)
	w.log.Debug("padd.toml read", "path", w.path, "settings", fmt.Sprintf("%+v", s))
	if old != s {
		w.log.Info("padd.toml reloaded", "path", w.path, "log_level", s.Level().String(), "restart_to_apply", w.Status().Restart)
	}
	for _, fn := range subs {
		fn(s)
	}
	return nil
}

// Run watches the file until ctx ends. It watches the data directory (an
// editor's rename over the file replaces its inode) and reloads once the
// file has been quiet for a moment. Without a watcher (the system refused
// one) it returns at once, logging that changes need a restart.
func (w *Watcher) Run(ctx context.Context) {
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		err = fw.Add(filepath.Dir(w.path))
		if err != nil {
			fw.Close()
		}
	}
	if err != nil {
		w.log.Warn("padd.toml is not watched; a change to it applies at the next start", "err", err)
		return
	}
	defer fw.Close()
	// The file may have changed between the start's read and the watch:
	// padd answers health before this runs, and a client may write the
	// file at once. Read it again now that changes are heard.
	_ = w.reload(true)
	var timer *time.Timer
	var fire <-chan time.Time
	name := filepath.Base(w.path)
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) != name || ev.Op == fsnotify.Chmod {
				continue
			}
			if timer == nil {
				timer = time.NewTimer(settle)
			} else {
				timer.Reset(settle)
			}
			fire = timer.C
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			// An overflow may have hidden a change: read the file again.
			w.log.Warn("padd.toml watch reported an error; reading the file again", "err", err)
			_ = w.Reload()
		case <-fire:
			fire = nil
			_ = w.Reload()
		}
	}
}
