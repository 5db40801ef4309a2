package padtoml

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/padd/padd/internal/testwait"
)

func link(t *testing.T, dir, ws string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(fmt.Sprintf("workspace = %q\n", ws)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree makes root/a/b/c with root/a linked to ws "one".
func tree(t *testing.T) (a, b, c string) {
	t.Helper()
	a = filepath.Join(t.TempDir(), "a")
	b = filepath.Join(a, "b")
	c = filepath.Join(b, "c")
	if err := os.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	link(t, a, "one")
	return a, b, c
}

func newFinder(t *testing.T) *Finder {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		t.Skip("the Finder watches nothing on " + runtime.GOOS + ", by design (see NewFinder)")
	}
	f := NewFinder()
	if f.w == nil {
		t.Fatal("no watcher: this system refused fsnotify")
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// eventually asks until the answer is want, or fails after a while: the
// watch reports a change after the write returns.
func eventually(t *testing.T, f *Finder, dir, want, wantPath string) *File {
	t.Helper()
	var found *File
	testwait.UntilOK(t, func() error {
		pt, err := f.Find(dir)
		got, path := "", ""
		if pt != nil {
			got, path = pt.Workspace, pt.Path
		}
		if err != nil || got != want || path != wantPath {
			return fmt.Errorf("Find(%s) = %q at %q (err %v), want %q at %q", dir, got, path, err, want, wantPath)
		}
		found = pt
		return nil
	})
	return found
}

func TestFindsWhatTheWalkFindsAndRemembersIt(t *testing.T) {
	a, _, c := tree(t)
	f := newFinder(t)
	first, err := f.Find(c)
	if err != nil || first == nil || first.Workspace != "one" || first.Path != filepath.Join(a, FileName) {
		t.Fatalf("Find = %+v, %v", first, err)
	}
	walked, _ := Find(c)
	if *walked != *first {
		t.Errorf("Find %+v, the walk %+v", first, walked)
	}
	// Remembered: the same answer, not a new read.
	for range 3 {
		if again, _ := f.Find(c); again != first {
			t.Fatalf("second Find read again: %p, first %p", again, first)
		}
	}
	// A directory outside any link is remembered as none.
	out := t.TempDir()
	if pt, err := f.Find(out); pt != nil || err != nil {
		t.Errorf("Find(unlinked) = %+v, %v", pt, err)
	}
}

func TestSeesEveryKindOfChange(t *testing.T) {
	a, b, c := tree(t)
	f := newFinder(t)
	aToml, bToml := filepath.Join(a, FileName), filepath.Join(b, FileName)
	eventually(t, f, c, "one", aToml)

	link(t, b, "two") // created nearer
	eventually(t, f, c, "two", bToml)

	link(t, b, "three") // rewritten
	eventually(t, f, c, "three", bToml)

	if err := os.WriteFile(bToml, []byte("workspace = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "a .pad.toml made invalid to answer an error", func() bool {
		_, err := f.Find(c) // broken TOML is an error, remembered or not
		return err != nil
	})

	tmp := filepath.Join(b, "new.toml") // renamed into place, as editors save
	if err := os.WriteFile(tmp, []byte("workspace = \"four\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, bToml); err != nil {
		t.Fatal(err)
	}
	eventually(t, f, c, "four", bToml)

	if err := os.Remove(bToml); err != nil { // removed: the farther one again
		t.Fatal(err)
	}
	eventually(t, f, c, "one", aToml)

	if err := os.Remove(aToml); err != nil {
		t.Fatal(err)
	}
	eventually(t, f, c, "", "")
}

// A directory on the path moved away and another made in its place: the
// answer is the new directory's, and changes in it are seen too.
func TestDirectoryReplaced(t *testing.T) {
	a, b, c := tree(t)
	f := newFinder(t)
	eventually(t, f, c, "one", filepath.Join(a, FileName))
	if err := os.Rename(b, b+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	link(t, b, "five")
	eventually(t, f, c, "five", filepath.Join(b, FileName))
	link(t, c, "six")
	eventually(t, f, c, "six", filepath.Join(c, FileName))
}

// Finds racing with changes end on the files' last state (run with -race).
func TestConcurrentFindsAndChanges(t *testing.T) {
	a, b, c := tree(t)
	f := newFinder(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, d := range []string{a, b, c} {
					if _, err := f.Find(d); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	for i := range 50 {
		link(t, b, fmt.Sprintf("ws%d", i))
		if i%2 == 1 {
			_ = os.Remove(filepath.Join(b, FileName))
		}
	}
	link(t, b, "last")
	close(stop)
	wg.Wait()
	eventually(t, f, c, "last", filepath.Join(b, FileName))
	eventually(t, f, a, "one", filepath.Join(a, FileName))
}

// Without a watcher (nil, or the zero Finder) every Find is the walk.
func TestWithoutWatcherWalksEachTime(t *testing.T) {
	a, _, c := tree(t)
	for _, f := range []*Finder{nil, {}} {
		pt, err := f.Find(c)
		if err != nil || pt == nil || pt.Workspace != "one" {
			t.Fatalf("Find = %+v, %v", pt, err)
		}
		link(t, a, "other")
		if pt, _ := f.Find(c); pt == nil || pt.Workspace != "other" {
			t.Errorf("after the change: %+v", pt)
		}
		link(t, a, "one")
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkFind(b *testing.B) {
	// The load run's agents: no .pad.toml anywhere above their directory.
	dir := filepath.Join(b.TempDir(), "agents", "agent-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			_, _ = Find(dir)
		}
	})
	b.Run("watched", func(b *testing.B) {
		f := NewFinder()
		defer f.Close()
		for b.Loop() {
			_, _ = f.Find(dir)
		}
	})
}

// Many directories: what the Finder keeps stays bounded, and its answers
// stay right after it drops what it had.
func TestBounded(t *testing.T) {
	a, _, _ := tree(t)
	f := newFinder(t)
	n := maxWatched + 50 // past both bounds
	for i := range n {
		d := filepath.Join(a, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			link(t, d, fmt.Sprintf("ws%d", i))
		}
	}
	for i := range n {
		d := filepath.Join(a, fmt.Sprintf("d%03d", i))
		want := "one"
		if i%2 == 0 {
			want = fmt.Sprintf("ws%d", i)
		}
		if pt, err := f.Find(d); err != nil || pt == nil || pt.Workspace != want {
			t.Fatalf("Find(%s) = %+v, %v, want %s", d, pt, err, want)
		}
		f.mu.Lock()
		answers, watched := len(f.answers), len(f.watched)
		f.mu.Unlock()
		if answers > maxAnswers || watched > maxWatched {
			t.Fatalf("after %d directories: %d answers, %d watches kept", i+1, answers, watched)
		}
	}
}
