package mirror

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
)

// An item's file replaced by a link to a file outside the mirror (a
// secret, a dot-file): the link is reported, never read (nothing of the
// target reaches padd, a conflict copy or the folder) and never written
// through, when the item then changes in padd; the item is kept, and the
// other files go on.
func TestFileReplacedByALinkIsNeitherReadNorWrittenThrough(t *testing.T) {
	r := newRig(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, ".bashrc")
	const secretText = "---\ntitle: stolen\n---\nexport TOKEN=secret\n"
	if err := os.WriteFile(secret, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	a := r.create("tasks", "Alpha", nil)
	b := r.create("tasks", "Beta", nil)
	ra, rb := r.fileOf(a.Ref), r.fileOf(b.Ref)
	p := filepath.Join(r.dir, ra)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, p); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	testwait.Until(t, "the link reported", func() bool {
		for _, e := range r.status().Errors {
			if e.Path == ra {
				return true
			}
		}
		return false
	})
	if v := r.item(a.Ref); v.DeletedAt != nil || v.Title != "Alpha" {
		t.Fatalf("the item followed the link: %+v", v.Item)
	}

	// The item changes in padd, then another: once the other's file shows
	// its change, the pass that met the link is over.
	content := "padd's new text"
	if _, err := r.store.UpdateItem(r.ws, a.Ref, storage.ItemUpdate{Content: &content}, user); err != nil {
		t.Fatal(err)
	}
	other := "Beta's text"
	if _, err := r.store.UpdateItem(r.ws, b.Ref, storage.ItemUpdate{Content: &other}, user); err != nil {
		t.Fatal(err)
	}
	r.waitFile(rb, "the other item's change", contains(other))
	if got, err := os.ReadFile(secret); err != nil || string(got) != secretText {
		t.Fatalf("the link's target was written through: %q, %v", got, err)
	}
	if v := r.item(a.Ref); v.Title != "Alpha" || strings.Contains(v.Content, "TOKEN") {
		t.Fatalf("the link's target reached the item: %+v", v.Item)
	}
	err := filepath.WalkDir(r.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "TOKEN=secret") {
			t.Errorf("%s holds the link target's bytes", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
