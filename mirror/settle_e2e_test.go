package mirror

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// onlyItem waits for the one item made from a new file and checks that
// no other was made, nor any file left but its own.
func onlyItem(t *testing.T, r *rig, want string) {
	t.Helper()
	v := r.waitItem("TASK-2", "the new file's item", func(v *storage.ItemView) bool { return v.Content == want })
	if v.Title != "Two parts" {
		t.Fatalf("title %q", v.Title)
	}
	if _, err := views.Of(r.store).GetItem(r.ws, "TASK-3"); err == nil {
		t.Fatal("a second item was made from the file")
	}
	testwait.Until(t, "the new file to carry its ref, and the original to go", func() bool {
		m, _ := filepath.Glob(filepath.Join(r.dir, "tasks", "*.md"))
		return len(m) == 2 // TASK-1's and TASK-2's
	})
}

// A new file written in two parts by a writer that keeps it open in
// between: nothing is made of the first part, and the file is not moved
// or removed under the writer; the item holds both parts.
func TestFileOpenForWritingIsLeftAlone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a file open for writing is told by a Linux lease; elsewhere the settle delay alone applies")
	}
	var held atomic.Bool
	const rel = "tasks/two-parts.md"
	testHookHeld = func(r string) {
		if r == rel {
			held.Store(true)
		}
	}
	t.Cleanup(func() { testHookHeld = nil })
	r := newRig(t)
	r.create("tasks", "Seed", nil)
	r.fileOf("TASK-1")
	f, err := os.OpenFile(filepath.Join(r.dir, rel), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("---\ntitle: Two parts\n---\nfirst part\n"); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the mirror to look at the file (and leave it, or apply it)", func() bool {
		_, err := views.Of(r.store).GetItem(r.ws, "TASK-2")
		return held.Load() || err == nil
	})
	if !held.Load() {
		t.Fatal("the first part was applied while its writer held the file open")
	}
	if _, err := f.WriteString("second part\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	onlyItem(t, r, "first part\nsecond part\n")
}

// A new file written in two writes, closed in between (a script's two
// appends): read once it has settled, both parts in one item.
func TestFileWrittenInTwoPartsIsReadSettled(t *testing.T) {
	const rel = "tasks/two-parts.md"
	var seen atomic.Bool
	testHookEvent = func(r string) {
		if r == rel {
			seen.Store(true)
		}
	}
	t.Cleanup(func() { testHookEvent = nil })
	// Long enough that the second write, made as soon as the mirror has
	// seen the first, lands before it settles on any machine.
	r := newRigSettle(t, 2*time.Second)
	r.create("tasks", "Seed", nil)
	r.fileOf("TASK-1")
	r.write(rel, "---\ntitle: Two parts\n---\nfirst part\n")
	testwait.Until(t, "the mirror to see the first part", seen.Load)
	f, err := os.OpenFile(filepath.Join(r.dir, rel), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatalf("the file was moved or removed after its first part: %v", err)
	}
	if _, err := f.WriteString("second part\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	onlyItem(t, r, "first part\nsecond part\n")
}

// padd does not replace a file another program has open for writing
// (the writer's next bytes would go to the file replaced): its version
// waits, and once the writer lets go both are kept.
func TestPaddWaitsForAWriterToLetGo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a file open for writing is told by a Linux lease")
	}
	var held atomic.Value
	testHookHeld = func(r string) { held.Store(r) }
	t.Cleanup(func() { testHookHeld = nil })
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	rel := r.fileOf(a.Ref)
	f, err := os.OpenFile(filepath.Join(r.dir, rel), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := "padd's edit"
	if _, err := r.store.UpdateItem(r.ws, a.Ref, storage.ItemUpdate{Content: &c}, user); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "padd's write held back (or made)", func() bool {
		return held.Load() == rel || contains(c)(r.read(rel))
	})
	if held.Load() != rel {
		t.Fatal("padd replaced a file open for writing")
	}
	if _, err := f.WriteString("\nthe writer's last words\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r.waitFile(rel, "padd's version once the writer let go", contains(c))
	copyRel := ""
	testwait.Until(t, "the writer's bytes kept", func() bool {
		for _, cp := range r.status().Conflicts {
			copyRel = cp
			return true
		}
		return false
	})
	if got := r.read(copyRel); !contains("the writer's last words")(got) {
		t.Fatalf("conflict copy %q", got)
	}
}
