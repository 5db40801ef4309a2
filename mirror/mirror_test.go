package mirror

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

func TestItemChangeReachesFileAndFileReachesItem(t *testing.T) {
	r := newRig(t)
	it := r.create("tasks", "Fix the login", nil)
	rel := r.fileOf(it.Ref)
	if !strings.HasPrefix(rel, "tasks/"+it.Ref+"-fix-the-login") {
		t.Fatalf("file %s", rel)
	}
	body := r.read(rel)
	t.Logf("file:\n%s", body)
	if !strings.Contains(body, "ref: "+it.Ref) || !strings.HasSuffix(body, "body of Fix the login") {
		t.Fatalf("file body:\n%s", body)
	}
	// REST-like change -> file.
	title := "Fix the login page"
	if _, err := r.store.UpdateItem(r.ws, it.Ref, storage.ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	r.waitFile(rel, "new title", contains("title: Fix the login page"))
	// In-place edit -> item.
	cur := r.read(rel)
	r.write(rel, strings.Replace(cur, "body of Fix the login", "edited in place", 1))
	r.waitItem(it.Ref, "content from the file", func(v *storage.ItemView) bool { return v.Content == "edited in place" })
	// Rename over -> item.
	cur = r.read(rel)
	tmp := filepath.Join(r.dir, "tasks", ".tmp-save")
	if err := os.WriteFile(tmp, []byte(strings.Replace(cur, "edited in place", "renamed over", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, rel)); err != nil {
		t.Fatal(err)
	}
	r.waitItem(it.Ref, "content from rename over", func(v *storage.ItemView) bool { return v.Content == "renamed over" })
	// Delete and recreate -> item (not archived).
	cur = r.read(rel)
	if err := os.Remove(filepath.Join(r.dir, rel)); err != nil {
		t.Fatal(err)
	}
	r.write(rel, strings.Replace(cur, "renamed over", "recreated", 1))
	v := r.waitItem(it.Ref, "content from delete and recreate", func(v *storage.ItemView) bool { return v.Content == "recreated" })
	if v.DeletedAt != nil {
		t.Fatalf("item archived by a delete and recreate")
	}
	versions, err := views.Of(r.store).ListVersions(r.ws, it.Ref, 100, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d versions", len(versions))
}

func TestNewFileCreatesItemAndTakesItsRef(t *testing.T) {
	r := newRig(t)
	r.create("tasks", "Seed", nil) // the folder exists
	r.fileOf("TASK-1")
	r.write("tasks/my-idea.md", "---\ntitle: My idea\ntags: [x]\n---\nhello\n")
	var rel string
	testwait.Until(t, "the new file renamed to carry its ref", func() bool {
		_, err := os.Stat(filepath.Join(r.dir, "tasks/my-idea.md"))
		m, _ := filepath.Glob(filepath.Join(r.dir, "tasks", "TASK-2-*.md"))
		if len(m) == 1 && os.IsNotExist(err) {
			rel = "tasks/" + filepath.Base(m[0])
			return true
		}
		return false
	})
	v := r.item("TASK-2")
	if v.Title != "My idea" || v.Content != "hello\n" || len(v.Tags) != 1 {
		t.Fatalf("item %+v", v.Item)
	}
	if !strings.Contains(r.read(rel), "ref: TASK-2") {
		t.Fatalf("renamed file lacks the ref:\n%s", r.read(rel))
	}
}

func TestDeletedFileArchivesAndBadFileIsReported(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	b := r.create("tasks", "Beta", nil)
	ra, rb := r.fileOf(a.Ref), r.fileOf(b.Ref)
	if err := os.Remove(filepath.Join(r.dir, ra)); err != nil {
		t.Fatal(err)
	}
	r.waitItem(a.Ref, "archived", func(v *storage.ItemView) bool { return v.DeletedAt != nil })

	before := r.item(b.Ref).Seq
	bad := "---\nref: " + b.Ref + "\ntitle: Beta\nfields:\n  status: not-a-status\n---\nx"
	r.write(rb, bad)
	testwait.Until(t, "the bad file reported", func() bool {
		for _, e := range r.status().Errors {
			if e.Path == rb {
				t.Logf("reported: %s", e.Error)
				return true
			}
		}
		return false
	})
	if r.read(rb) != bad {
		t.Fatalf("bad file rewritten")
	}
	if r.item(b.Ref).Seq != before {
		t.Fatalf("bad file changed the item")
	}
	r.write(rb, "---\nref: "+b.Ref+"\ntitle: Beta\nfields:\n  status: open\n---\nfixed")
	r.waitItem(b.Ref, "fixed content", func(v *storage.ItemView) bool { return v.Content == "fixed" })
	testwait.Until(t, "the error cleared", func() bool { return len(r.status().Errors) == 0 })
}

func TestMovedFileMovesItem(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	r.create("ideas", "Seed idea", nil)
	ra := r.fileOf(a.Ref)
	r.fileOf("IDEA-2")
	dst := filepath.Join(r.dir, "ideas", filepath.Base(ra))
	if err := os.Rename(filepath.Join(r.dir, ra), dst); err != nil {
		t.Fatal(err)
	}
	v := r.waitItem(a.ID, "moved to ideas", func(v *storage.ItemView) bool { return v.Collection.Slug == "ideas" })
	if v.DeletedAt != nil {
		t.Fatal("moved item archived")
	}
	r.fileOf(v.Ref)
}

func TestBothChangedKeepsBoth(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	rel := r.fileOf(a.Ref)
	// Both sides change while padd is down.
	r.restart(func() {
		st, err := storage.Open(r.dbPath, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := "padd's edit"
		if _, err := st.UpdateItem(r.ws, a.Ref, storage.ItemUpdate{Content: &c}, user); err != nil {
			t.Fatal(err)
		}
		st.Close()
		r.write(rel, strings.Replace(r.read(rel), "body of Alpha", "the file's edit", 1))
	})
	conflict := strings.TrimSuffix(rel, ".md") + ".conflict.md"
	r.waitFile(conflict, "the user's copy", contains("the file's edit"))
	r.waitFile(rel, "padd's version", contains("padd's edit"))
	if v := r.item(a.Ref); v.Content != "padd's edit" {
		t.Fatalf("item content %q", v.Content)
	}
}

// TestBurstOfAThousandAndRestartMidBurst: a checkout that rewrites 1,000
// files is applied as 1,000 updates; padd stopped in the middle of such
// a burst catches up at start, applying each edit once.
func TestBurstOfAThousandAndRestartMidBurst(t *testing.T) {
	r := newRig(t)
	const n = 1000
	in := make([]storage.ItemCreate, n)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "tasks", Title: "Item " + strconv.Itoa(i), Content: "v1"}
	}
	created, err := r.store.CreateItems(r.ws, in, user, 500)
	if err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "every file written", func() bool { return r.status().Files == n })
	paths := map[string]string{}
	for _, v := range created {
		paths[v.Ref] = r.fileOf(v.Ref)
	}
	edit := func(from, to string) {
		for _, rel := range paths {
			r.write(rel, strings.Replace(r.read(rel), "\n---\n"+from, "\n---\n"+to, 1))
		}
	}
	edit("v1", "v2")
	testwait.Until(t, "every item at v2", func() bool {
		for ref := range paths {
			if r.item(ref).Content != "v2" {
				return false
			}
		}
		return true
	})
	// Stop in the middle of the next burst: half the files are written
	// while it runs, half while it is down.
	var late []string
	k := 0
	for ref, rel := range paths {
		if k++; k <= n/2 {
			r.write(rel, strings.Replace(r.read(rel), "\n---\nv2", "\n---\nv3", 1))
		} else {
			late = append(late, ref)
		}
	}
	r.restart(func() {
		for _, ref := range late {
			rel := paths[ref]
			r.write(rel, strings.Replace(r.read(rel), "\n---\nv2", "\n---\nv3", 1))
		}
	})
	testwait.Until(t, "every item at v3 after the restart", func() bool {
		for ref := range paths {
			if r.item(ref).Content != "v3" {
				return false
			}
		}
		return true
	})
	for ref := range paths {
		vs, err := views.Of(r.store).ListVersions(r.ws, ref, 100, true)
		if err != nil {
			t.Fatal(err)
		}
		// Each edit applied once: one version for v2, one for v3.
		if len(vs) > 3 || len(vs) < 2 {
			t.Fatalf("%s has %d versions, want the create's and one per edit", ref, len(vs))
		}
	}
}

// TestLinksOutOfTheTreeAreNotFollowed: a collection folder that is a link
// to elsewhere is never written through, and a linked file is not read.
func TestLinksOutOfTheTreeAreNotFollowed(t *testing.T) {
	r := newRig(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("---\ntitle: Secret\n---\nnot yours"), 0o600); err != nil {
		t.Fatal(err)
	}
	it := r.create("tasks", "Alpha", nil)
	r.fileOf(it.Ref)
	// A linked file inside a collection folder: not an item.
	if err := os.Symlink(secret, filepath.Join(r.dir, "tasks", "linked.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	// The ideas folder is a link out of the tree.
	if err := os.Symlink(outside, filepath.Join(r.dir, "ideas")); err != nil {
		t.Fatal(err)
	}
	idea := r.create("ideas", "Through the link", nil)
	testwait.Until(t, "the write through the link refused", func() bool {
		for _, e := range r.status().Errors {
			if strings.HasPrefix(e.Path, "ideas/") {
				return true
			}
		}
		return false
	})
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("the mirror wrote outside its tree: %v", entries)
	}
	testwait.Until(t, "the linked file reported, not read", func() bool {
		for _, e := range r.status().Errors {
			if e.Path == "tasks/linked.md" {
				return true
			}
		}
		return false
	})
	r.create("tasks", "Beta", nil)
	r.fileOf("TASK-3")
	if n, err := views.Of(r.store).ItemCount(r.ws); err != nil || n != 3 {
		t.Fatalf("%d items (%v), want 3: a linked file was read as an item", n, err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Fatalf("the linked file was touched: %v", err)
	}
	_ = idea
}

// A user's in-place edit that lands right after the mirror's write of
// an item change, before the mirror notes what its file looks like, is
// still the user's: the mirror must not take it for its own write.
func TestEditRightAfterTheMirrorsWriteReachesItem(t *testing.T) {
	// The hook is set before the mirror runs and acts once armed; target
	// is written before armed is set, and read after it is taken.
	var armed, edited atomic.Bool
	var target, abs string
	testHookWritten = func(rel string) {
		if !armed.Load() || rel != target {
			return
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			t.Error(err)
			return
		}
		// Armed as the file's first write may still be at its hook: only
		// the title change's write is the one to follow with an edit.
		if !strings.Contains(string(b), "title: Fix the login page") || !armed.CompareAndSwap(true, false) {
			return
		}
		if err := os.WriteFile(abs, []byte(strings.Replace(string(b), "body of Fix the login", "edited in place", 1)), 0o600); err != nil {
			t.Error(err)
			return
		}
		edited.Store(true)
	}
	t.Cleanup(func() { testHookWritten = nil }) // after the rig's own cleanup stops the mirror
	r := newRig(t)
	it := r.create("tasks", "Fix the login", nil)
	target = r.fileOf(it.Ref)
	abs = filepath.Join(r.dir, target)
	armed.Store(true)
	title := "Fix the login page"
	if _, err := r.store.UpdateItem(r.ws, it.Ref, storage.ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	r.waitItem(it.Ref, "content from the file edited right after the mirror's write", func(v *storage.ItemView) bool {
		return v.Content == "edited in place"
	})
	if !edited.Load() {
		t.Fatal("the edit was not made between the mirror's write and its stamp")
	}
	if v := r.item(it.Ref); v.Title != title {
		t.Fatalf("title %q", v.Title)
	}
}

// An empty file (an editor's save caught between its truncate and its
// write) is not made an item; once its bytes land, it is.
func TestEmptyFileMakesNoItemUntilWritten(t *testing.T) {
	r := newRig(t)
	r.create("tasks", "Seed", nil)
	r.fileOf("TASK-1")
	r.write("tasks/half-saved.md", "")
	r.write("tasks/other.md", "---\ntitle: Other\n---\nhello\n")
	testwait.Until(t, "the other new file to become TASK-2", func() bool {
		m, _ := filepath.Glob(filepath.Join(r.dir, "tasks", "TASK-2-*.md"))
		return len(m) == 1
	})
	if v, err := views.Of(r.store).GetItem(r.ws, "TASK-2"); err != nil || v.Title != "Other" {
		t.Fatalf("TASK-2 is %+v (%v), want the other file's item: the empty file became an item", v, err)
	}
	if _, err := views.Of(r.store).GetItem(r.ws, "TASK-3"); err == nil {
		t.Fatal("an empty file became an item")
	}
	r.write("tasks/half-saved.md", "---\ntitle: Saved at last\n---\nbody\n")
	r.waitItem("TASK-3", "the saved file's item", func(v *storage.ItemView) bool { return v.Title == "Saved at last" })
}

// A mirror added while padd starts, before the manager runs, is listed
// as starting at once (a status right after the add names it), and is
// the one mirror listed once the manager has started it.
func TestMirrorAddedBeforeRunIsListed(t *testing.T) {
	r := &rig{t: t, dbPath: filepath.Join(t.TempDir(), "padd.db"), dir: filepath.Join(t.TempDir(), "mirror"), settle: testSettle}
	r.open()
	defer r.store.Close()
	if _, err := r.store.CreateWorkspace(storage.WorkspaceCreate{Name: "Mine", Slug: "mine"}, user); err != nil {
		t.Fatal(err)
	}
	m := New(Config{Store: r.store, Log: testLog(), Settle: r.settle})
	st, err := m.Add("mine", r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "starting" {
		t.Fatalf("added before run: state %q, want starting", st.State)
	}
	if l := m.List(); len(l) != 1 || l[0].ID != st.ID || l[0].State != "starting" {
		t.Fatalf("listed before run: %+v", l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	testwait.Until(t, "the mirror started", func() bool {
		l := m.List()
		return len(l) == 1 && l[0].State != "starting"
	})
	if l := m.List(); len(l) != 1 || l[0].ID != st.ID {
		t.Fatalf("listed after run: %+v", l)
	}
}
