package mirror

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/mirrorstate"
)

// A save padd cannot apply, then a change to the item from another door
// (an agent, the CLI, sync: all reach the mirror as a store commit): an
// edit, a move to another collection, an archive. The user's bytes
// survive whole: in their file, or in a conflict copy that status names.
func TestUnappliedSaveSurvivesAChangeInPadd(t *testing.T) {
	saves := []struct{ name, save string }{
		{"bad yaml", "---\nref: %s\ntitle: [unclosed\n---\nmy precious words\n"},
		{"missing status", "---\nref: %s\ntitle: Alpha\n---\nmy precious words\n"},
		{"unknown field", "---\nref: %s\ntitle: Alpha\nfields:\n  nope: 1\n---\nmy precious words\n"},
	}
	doors := []struct {
		name   string
		change func(r *rig, ref string)
		// padd's version replaces the file (else the file is left as saved)
		replaces bool
	}{
		{"edit", func(r *rig, ref string) {
			c := "padd's edit"
			if _, err := r.store.UpdateItem(r.ws, ref, storage.ItemUpdate{Content: &c}, user); err != nil {
				r.t.Fatal(err)
			}
		}, true},
		{"move", func(r *rig, ref string) {
			if _, err := r.store.MoveItem(r.ws, ref, storage.MoveInput{Target: "ideas"}, user); err != nil {
				r.t.Fatal(err)
			}
		}, false},
		{"archive", func(r *rig, ref string) {
			if _, err := r.store.DeleteItem(r.ws, ref, user); err != nil {
				r.t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range saves {
		for _, door := range doors {
			t.Run(tc.name+"/"+door.name, func(t *testing.T) {
				r := newRig(t)
				a := r.create("tasks", "Alpha", nil)
				rel := r.fileOf(a.Ref)
				save := strings.Replace(tc.save, "%s", a.Ref, 1)
				r.write(rel, save)
				testwait.Until(t, "the save reported as not applied", func() bool {
					for _, e := range r.status().Errors {
						if e.Path == rel {
							return true
						}
					}
					return false
				})
				before := r.status().Cursor
				door.change(r, a.Ref)
				testwait.Until(t, "the change to reach the mirror", func() bool { return r.status().Cursor > before })
				if !door.replaces {
					if got := r.read(rel); got != save {
						t.Fatalf("the file holds %q, want the user's save", got)
					}
					return
				}
				r.waitFile(rel, "padd's version", contains("padd's edit"))
				var copyRel string
				testwait.Until(t, "the conflict copy in status", func() bool {
					for _, cp := range r.status().Conflicts {
						copyRel = cp
						return true
					}
					return false
				})
				if got := r.read(copyRel); got != save {
					t.Fatalf("conflict copy %s holds %q, want the user's save %q", copyRel, got, save)
				}
			})
		}
	}
}

// A conflict copy on disk is listed by status after a restart too.
func TestConflictCopiesListedAfterRestart(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	rel := r.fileOf(a.Ref)
	kept := strings.TrimSuffix(rel, ".md") + ".conflict.md"
	if err := os.WriteFile(filepath.Join(r.dir, kept), []byte("the user's words"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.restart(nil)
	testwait.Until(t, "the copy listed", func() bool {
		for _, c := range r.status().Conflicts {
			if c == kept {
				return true
			}
		}
		return false
	})
}

// A mirror made by an older padd (ASCII-only names) keeps its files'
// names: nothing is renamed by the upgrade, and changes reach the file
// where it is.
func TestOldNamesKeptAfterUpgrade(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Überprüfung der Zahlungsströme 🚀", nil)
	rel := r.fileOf(a.Ref)
	if rel != "tasks/"+a.Ref+"-überprüfung-der-zahlungsströme.md" {
		t.Fatalf("file %s", rel)
	}
	old := "tasks/" + a.Ref + "-berpr-fung-der-zahlungsstr-me.md"
	r.restart(func() {
		// What an older padd left: the old name on disk and in the record.
		st, err := storage.Open(r.dbPath, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ms := mirrorstate.Of(st)
		defs, err := ms.Mirrors()
		if err != nil || len(defs) != 1 {
			t.Fatal(defs, err)
		}
		files, err := ms.MirrorFiles(defs[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		f := files[a.ID]
		f.Path = old
		if err := ms.MirrorSave(defs[0].ID, []mirrorstate.File{f}, nil, -1); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if err := os.Rename(filepath.Join(r.dir, rel), filepath.Join(r.dir, old)); err != nil {
			t.Fatal(err)
		}
	})
	c := "after the upgrade"
	if _, err := r.store.UpdateItem(r.ws, a.Ref, storage.ItemUpdate{Content: &c}, user); err != nil {
		t.Fatal(err)
	}
	r.waitFile(old, "the change under the old name", contains(c))
	m, _ := filepath.Glob(filepath.Join(r.dir, "tasks", "*.md"))
	if len(m) != 1 {
		t.Fatalf("files %v, want the one under its old name", m)
	}
}

// A mirror added while padd is still starting (its mirrors not running
// yet) is recorded, and runs once they do: not a 5xx.
func TestAddBeforeRunStartsOnceRunning(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "padd.db")
	st, err := storage.Open(dbPath, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Mine", Slug: "mine"}, user); err != nil {
		t.Fatal(err)
	}
	m := New(Config{Store: st, Log: testLog(), Settle: testSettle})
	dir := filepath.Join(t.TempDir(), "m")
	s, err := m.Add("mine", dir)
	if err != nil || s.State != "starting" {
		t.Fatalf("add before run: %+v, %v", s, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	testwait.Until(t, "the mirror running", func() bool {
		l := m.List()
		return len(l) == 1 && l[0].State == "watching"
	})
}
