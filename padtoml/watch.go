package padtoml

// A Finder finds the .pad.toml that links a directory to a workspace, as
// Find does, and remembers each answer until a directory the answer was
// read from changes: a .pad.toml written, created, removed or renamed
// there, or the directory itself moved or removed.
//
// An MCP session that names no workspace asks on every tool call, and
// the walk from the agent's directory to the root is an open per
// directory, most of them failing (docs/PERFORMANCE.md, "Why the code is as it is"). The
// watch makes a repeated answer a map lookup, and keeps it
// right when someone runs `padctl init` beside a running agent.

import (
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Bounds on what a Finder keeps. Agents run in a handful of directories;
// past these, everything is dropped and learned again.
const (
	maxAnswers = 256
	maxWatched = 1024
)

// Finder remembers the .pad.toml found from each directory. The zero
// value and nil are usable and remember nothing.
type Finder struct {
	w    *fsnotify.Watcher
	done chan struct{}

	mu sync.Mutex
	// gen counts the changes seen; an answer whose walk overlapped one is
	// not kept, as it may have read the directory before the change.
	gen     uint64
	answers map[string]answer // by absolute directory
	watched map[string]bool   // directories with a watch
}

type answer struct {
	pt  *File
	err error
}

// NewFinder returns a Finder that watches the directories it reads. When the
// system refuses a watcher (no inotify instances left, say), the Finder
// still answers, walking every time.
//
// On macOS and the BSDs it always walks: there fsnotify's kqueue opens a
// descriptor for every file of a watched directory, and the walk's
// directories include the home directory and /.
func NewFinder() *Finder {
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		return &Finder{}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return &Finder{}
	}
	f := &Finder{w: w, done: make(chan struct{}),
		answers: make(map[string]answer), watched: make(map[string]bool)}
	go f.run()
	return f
}

// Close stops watching.
func (f *Finder) Close() error {
	if f == nil || f.w == nil {
		return nil
	}
	err := f.w.Close()
	<-f.done
	return err
}

// Find returns the nearest .pad.toml from dir upward that names a
// workspace, or nil; see Find. The answer is the Finder's
// own: callers must not change it.
func (f *Finder) Find(dir string) (*File, error) {
	if f == nil || f.w == nil || dir == "" {
		return Find(dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if a, ok := f.answers[abs]; ok {
		f.mu.Unlock()
		return a.pt, a.err
	}
	gen := f.gen
	f.mu.Unlock()

	// Each directory is watched before its .pad.toml is read: a change
	// after the read is then an event, and one before it is in the read.
	keep := true
	pt, err := Walk(abs, func(d string) {
		if keep && !f.watch(d) {
			keep = false
		}
	})
	if keep {
		f.mu.Lock()
		if f.gen == gen {
			if len(f.answers) >= maxAnswers {
				clear(f.answers)
			}
			f.answers[abs] = answer{pt, err}
		}
		f.mu.Unlock()
	}
	return pt, err
}

// watch makes sure d is watched, and reports whether it is.
func (f *Finder) watch(d string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watched[d] {
		return true
	}
	if len(f.watched) >= maxWatched {
		f.unwatchAllLocked()
	}
	if err := f.w.Add(d); err != nil {
		// A directory that is gone or that we may not read: nothing to
		// remember from it; the walk goes on without a watch.
		return false
	}
	f.watched[d] = true
	return true
}

func (f *Finder) run() {
	defer close(f.done)
	for {
		select {
		case ev, ok := <-f.w.Events:
			if !ok {
				return
			}
			f.changed(ev)
		case _, ok := <-f.w.Errors:
			if !ok {
				return
			}
			// Most likely the kernel's queue overflowed: events were lost,
			// so nothing remembered can be trusted.
			f.forget()
		}
	}
}

// changed drops what an event may have made wrong. Events for other
// files in the watched directories (a busy home or /tmp) cost a lookup.
func (f *Finder) changed(ev fsnotify.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dirMoved := f.watched[ev.Name] && ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0
	if filepath.Base(ev.Name) != FileName && !f.watched[ev.Name] {
		return
	}
	if dirMoved {
		// The watches of the directory and of those below it went with
		// it (a watch follows its directory, not the path); a directory
		// made at one of these paths needs a watch of its own.
		under := ev.Name + string(filepath.Separator)
		for d := range f.watched {
			if d == ev.Name || strings.HasPrefix(d, under) {
				_ = f.w.Remove(d)
				delete(f.watched, d)
			}
		}
	}
	f.gen++
	clear(f.answers)
}

func (f *Finder) forget() {
	f.mu.Lock()
	f.gen++
	clear(f.answers)
	f.mu.Unlock()
}

func (f *Finder) unwatchAllLocked() {
	for d := range f.watched {
		_ = f.w.Remove(d)
	}
	clear(f.watched)
	f.gen++
	clear(f.answers)
}
