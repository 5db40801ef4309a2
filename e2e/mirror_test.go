//go:build unix

// These tests run on the real-binaries harness of harness_test.go, which is Unix only.

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Mirror folders with a real padd and real files (issue 30, docs/MIRROR.md).

type mirrorRig struct {
	t    *testing.T
	home string
	dir  string
	ws   string
	d    *instance
}

func newMirrorRig(t *testing.T) *mirrorRig {
	home := t.TempDir()
	r := &mirrorRig{t: t, home: home, dir: filepath.Join(t.TempDir(), "pad"), d: startPadd(t, home)}
	r.ws = r.d.mkWorkspace(t, "Mirrored")
	return r
}

func (r *mirrorRig) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

func (r *mirrorRig) add() {
	r.t.Helper()
	ctx, cancel := r.ctx()
	defer cancel()
	if _, err := r.d.client.AddMirror(ctx, api.MirrorSpec{Workspace: r.ws, Dir: r.dir}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *mirrorRig) status() api.Mirror {
	r.t.Helper()
	ctx, cancel := r.ctx()
	defer cancel()
	list, err := r.d.client.Mirrors(ctx)
	if err != nil || len(list) != 1 {
		r.t.Fatalf("mirrors: %v %v", list, err)
	}
	return list[0]
}

// fileOf waits for ref's file and returns its path relative to the mirror.
func (r *mirrorRig) fileOf(ref string) string {
	r.t.Helper()
	var rel string
	testwait.Until(r.t, "the file of "+ref, func() bool {
		m, _ := filepath.Glob(filepath.Join(r.dir, "*", ref+"-*.md"))
		for _, p := range m {
			if !strings.HasSuffix(p, ".conflict.md") {
				rel, _ = filepath.Rel(r.dir, p)
				return true
			}
		}
		return false
	})
	return rel
}

func (r *mirrorRig) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, rel))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *mirrorRig) write(rel, body string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, rel), []byte(body), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// setBody replaces a file's content (after its front matter).
func setBody(file, body string) string {
	i := strings.Index(file, "\n---\n")
	return file[:i+5] + body
}

func (r *mirrorRig) waitItem(ref, what string, ok func(api.Item) bool) api.Item {
	r.t.Helper()
	var it api.Item
	testwait.Until(r.t, ref+": "+what, func() bool {
		var err error
		it, err = r.d.getItem(r.t, r.ws, ref)
		return err == nil && ok(it)
	})
	return it
}

func content(want string) func(api.Item) bool {
	return func(it api.Item) bool { return it.Content == want }
}

// TestMirrorEditsByEveryDoor: each way a file is edited reaches its item,
// and an item changed over REST reaches its file.
func TestMirrorEditsByEveryDoor(t *testing.T) {
	r := newMirrorRig(t)
	a := r.d.createItem(t, r.ws, "tasks", api.ItemCreate{Title: "Alpha", Content: "one"})
	b := r.d.createItem(t, r.ws, "tasks", api.ItemCreate{Title: "Beta", Content: "one"})
	idea := r.d.createItem(t, r.ws, "ideas", api.ItemCreate{Title: "Seed", Content: "one"})
	r.add()
	ra, rb := r.fileOf(a.Ref), r.fileOf(b.Ref)
	r.fileOf(idea.Ref)

	// In place.
	r.write(ra, setBody(r.read(ra), "in place"))
	r.waitItem(a.Ref, "in-place edit", content("in place"))
	// Rename over, as most editors save.
	tmp := filepath.Join(r.dir, "tasks", ".Alpha.swp")
	if err := os.WriteFile(tmp, []byte(setBody(r.read(ra), "rename over")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, ra)); err != nil {
		t.Fatal(err)
	}
	r.waitItem(a.Ref, "rename-over edit", content("rename over"))
	// Delete and recreate, with a backup file beside it.
	old := r.read(ra)
	if err := os.Rename(filepath.Join(r.dir, ra), filepath.Join(r.dir, ra+"~")); err != nil {
		t.Fatal(err)
	}
	r.write(ra, setBody(old, "recreated"))
	if got := r.waitItem(a.Ref, "delete-and-recreate edit", content("recreated")); got.DeletedAt != nil {
		t.Fatal("a delete and recreate archived the item")
	}
	// REST -> file.
	ctx, cancel := r.ctx()
	defer cancel()
	if _, err := r.d.client.Do(ctx, "PATCH", "/workspaces/"+r.ws+"/items/"+b.Ref, nil, map[string]any{"content": "from REST"}, nil); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the REST change in the file", func() bool { return strings.HasSuffix(r.read(rb), "\n---\nfrom REST") })

	// New file: an item, and the file takes its ref.
	r.write("tasks/new thing.md", "---\ntitle: New thing\n---\nfresh")
	var newRef string
	testwait.Until(t, "the new file renamed to carry a ref", func() bool {
		if _, err := os.Stat(filepath.Join(r.dir, "tasks/new thing.md")); err == nil {
			return false
		}
		m, _ := filepath.Glob(filepath.Join(r.dir, "tasks", "TASK-*-new-thing.md"))
		if len(m) == 1 {
			newRef = strings.TrimSuffix(filepath.Base(m[0]), "-new-thing.md")
			return true
		}
		return false
	})
	r.waitItem(newRef, "the new file's item", func(it api.Item) bool { return it.Title == "New thing" && it.Content == "fresh" })

	// Moved to another collection's folder.
	if err := os.Rename(filepath.Join(r.dir, rb), filepath.Join(r.dir, "ideas", filepath.Base(rb))); err != nil {
		t.Fatal(err)
	}
	moved := r.waitItem(b.ID, "moved to ideas", func(it api.Item) bool { return it.CollectionSlug == "ideas" })
	r.fileOf(moved.Ref)

	// Deleted: archived.
	if err := os.Remove(filepath.Join(r.dir, ra)); err != nil {
		t.Fatal(err)
	}
	r.waitItem(a.Ref, "archived", func(it api.Item) bool { return it.DeletedAt != nil })

	// Bad: reported (status and event stream), not applied, left as written.
	ri := r.fileOf(idea.Ref)
	events := r.followEvents()
	bad := "---\nref: " + idea.Ref + "\ntitle: Seed\nfields:\n  status: no-such-status\n---\nbad"
	r.write(ri, bad)
	testwait.Until(t, "the bad file reported in mirror status", func() bool {
		for _, e := range r.status().Errors {
			if e.Path == filepath.ToSlash(ri) {
				return true
			}
		}
		return false
	})
	testwait.Until(t, "the bad file's event", func() bool {
		ev, ok := events.seen(api.EventMirrorFileError)
		return ok && strings.Contains(ev, "no-such-status")
	})
	if it, _ := r.d.getItem(t, r.ws, idea.Ref); it.Content != "one" {
		t.Fatalf("the bad file changed the item: %q", it.Content)
	}
	if r.read(ri) != bad {
		t.Fatal("the bad file was rewritten")
	}
}

// TestMirrorBothChangedAndKilledMidBurst: 1,000 files rewritten at once
// (a git checkout) are applied as 1,000 updates; padd killed during the
// burst applies each edit after it starts again, once; a file and its
// item changed while padd was down keep both.
func TestMirrorBothChangedAndKilledMidBurst(t *testing.T) {
	home := t.TempDir()
	const n = 1000
	st, err := storage.Open(filepath.Join(home, "padd.db"), storage.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	user := model.UserActor(model.SourceCLI)
	if _, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Burst", Slug: "burst"}, user); err != nil {
		t.Fatal(err)
	}
	in := make([]storage.ItemCreate, n)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("Item %d", i), Content: "v1"}
	}
	created, err := st.CreateItems("burst", in, user, 500)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	r := &mirrorRig{t: t, home: home, dir: filepath.Join(t.TempDir(), "pad"), ws: "burst", d: startPadd(t, home)}
	refs := make([]string, n)
	for i, v := range created {
		refs[i] = v.Ref
	}
	r.add()
	testwait.Until(t, "every file written", func() bool { return r.status().Files == n })
	start := time.Now()
	paths := r.filesByRef(refs)

	// All at once, with padd running.
	for i := range paths {
		r.write(paths[i], setBody(r.read(paths[i]), "v2"))
	}
	for _, ref := range refs {
		r.waitItem(ref, "the first burst applied", content("v2"))
	}
	t.Logf("first burst applied %v after the first write", time.Since(start).Round(time.Millisecond))

	// Killed during a burst.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range paths {
			r.write(paths[i], setBody(r.read(paths[i]), "v3"))
		}
	})
	testwait.Until(t, "some of the burst applied", func() bool {
		it, err := r.d.getItem(t, r.ws, refs[0])
		return err == nil && it.Content == "v3"
	})
	r.d.kill9()
	wg.Wait()

	// Both changed while padd is down.
	st, err = storage.Open(filepath.Join(r.home, "padd.db"), storage.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	c := "padd's side"
	if _, err := st.UpdateItem(r.ws, refs[1], storage.ItemUpdate{Content: &c}, user); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r.write(paths[1], setBody(r.read(paths[1]), "the file's side"))

	r.d = startPadd(t, r.home)
	for i, ref := range refs {
		want := "v3"
		if i == 1 {
			want = "padd's side"
		}
		r.waitItem(ref, "caught up", content(want))
	}
	conflict := strings.TrimSuffix(paths[1], ".md") + ".conflict.md"
	testwait.Until(t, "both versions kept", func() bool {
		b, err := os.ReadFile(filepath.Join(r.dir, conflict))
		return err == nil && strings.HasSuffix(string(b), "the file's side") && strings.HasSuffix(r.read(paths[1]), "padd's side")
	})
	t.Logf("bursts applied %v after the first write", time.Since(start).Round(time.Millisecond))
	r.d.stop()
	st, err = storage.Open(filepath.Join(r.home, "padd.db"), storage.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, ref := range refs {
		vs, err := views.Of(st).ListVersions(r.ws, ref, 10, true)
		if err != nil {
			t.Fatal(err)
		}
		// The create's version, one per edit: v2, v3 (item 1: padd's side).
		if i != 1 && len(vs) > 3 {
			t.Fatalf("%s has %d versions after two edits: an edit was applied twice", ref, len(vs))
		}
	}
}

// TestConfigReloadsLogLevel: padd.toml's log_level changes padd's level
// without a restart; a broken file keeps it and says why.
func TestConfigReloadsLogLevel(t *testing.T) {
	home := t.TempDir()
	d := startPadd(t, home)
	path := filepath.Join(home, "padd.toml")
	cfg := func() api.ConfigStatus {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, err := d.client.ConfigStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return *st
	}
	if err := os.WriteFile(path, []byte("log_level = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "log_level debug applied", func() bool { return cfg().Settings["log_level"] == "DEBUG" })
	testwait.Until(t, "a debug line in padd's log", func() bool {
		b, _ := os.ReadFile(filepath.Join(home, "padd.log"))
		return strings.Contains(string(b), `"level":"DEBUG","msg":"padd.toml read"`)
	})
	if err := os.WriteFile(path, []byte("log_level = \"debug\nport =\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the broken file reported", func() bool { return cfg().Error != "" })
	if got := cfg().Settings["log_level"]; got != "DEBUG" {
		t.Fatalf("a broken file changed log_level to %v", got)
	}
}

// eventLog is what a /padd/mirrors/events stream said, by event name.
type eventLog struct {
	mu   sync.Mutex
	data map[string]string // name -> the last data line
}

func (l *eventLog) seen(name string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.data[name]
	return d, ok
}

// followEvents reads the mirror event stream until the test ends; it
// returns once the stream is connected.
func (r *mirrorRig) followEvents() *eventLog {
	r.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := r.d.http.Do(r.d.request(ctx, "GET", "/api/v1/padd/mirrors/events", nil))
	if err != nil || resp.StatusCode != 200 {
		cancel()
		r.t.Fatalf("mirror events: %v %v", resp, err)
	}
	l := &eventLog{data: map[string]string{}}
	done := make(chan struct{})
	r.t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	connected := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				l.mu.Lock()
				l.data[name] = v
				l.mu.Unlock()
				if name == "connected" {
					close(connected)
				}
			}
		}
	}()
	select {
	case <-connected:
	case <-done:
		r.t.Fatal("the mirror event stream ended before it connected")
	}
	return l
}

// filesByRef waits for each ref's file and returns their paths, reading
// the mirror's folders rather than globbing once per ref.
func (r *mirrorRig) filesByRef(refs []string) []string {
	r.t.Helper()
	out := make([]string, len(refs))
	testwait.Until(r.t, "every item's file", func() bool {
		byRef := map[string]string{}
		folders, _ := os.ReadDir(r.dir)
		for _, f := range folders {
			names, _ := os.ReadDir(filepath.Join(r.dir, f.Name()))
			for _, e := range names {
				name := e.Name()
				if !strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".conflict.md") {
					continue
				}
				// <PREFIX>-<n>-<slug>.md
				parts := strings.SplitN(name, "-", 3)
				if len(parts) == 3 {
					byRef[parts[0]+"-"+parts[1]] = filepath.Join(f.Name(), name)
				}
			}
		}
		for i, ref := range refs {
			if out[i] = byRef[ref]; out[i] == "" {
				return false
			}
		}
		return true
	})
	return out
}
