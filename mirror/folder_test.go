package mirror

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
)

// A file the user replaced by a folder of the same name is the user's
// folder: padd reports the path in words, keeps the item as it is (the
// file's text was not deleted by a save padd can read), never writes
// into, over or out of the folder when the item changes, and goes on
// mirroring the rest.
func TestFileReplacedByAFolderIsLeftAlone(t *testing.T) {
	r := newRig(t)
	a := r.create("tasks", "Alpha", nil)
	b := r.create("tasks", "Beta", nil)
	ra := r.fileOf(a.Ref)
	rb := r.fileOf(b.Ref)
	p := filepath.Join(r.dir, ra)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(p, "notes.txt")
	if err := os.WriteFile(kept, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the folder reported", func() bool {
		for _, e := range r.status().Errors {
			if e.Path == ra && strings.Contains(e.Error, "a folder is where") {
				return true
			}
		}
		return false
	})
	if r.item(a.Ref).DeletedAt != nil {
		t.Fatal("the item was archived for a folder")
	}

	// The item changes in padd: its file cannot be where the folder is.
	title := "Alpha again"
	if _, err := r.store.UpdateItem(r.ws, a.Ref, storage.ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	other := "Beta changed"
	if _, err := r.store.UpdateItem(r.ws, b.Ref, storage.ItemUpdate{Title: &other}, user); err != nil {
		t.Fatal(err)
	}
	// Alpha's change came first: once Beta's file shows its own, the
	// pass that met Alpha's is over.
	r.waitFile(rb, "the other item's change", contains("Beta changed"))
	reported := false
	for _, e := range r.status().Errors {
		reported = reported || (e.Path == ra && strings.Contains(e.Error, "a folder is where"))
	}
	if !reported {
		t.Errorf("the folder is not reported after the item changed: %+v", r.status().Errors)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "mine" {
		t.Fatalf("the user's folder was touched: %q, %v", b, err)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Fatalf("the folder is gone: %v", err)
	}
}
