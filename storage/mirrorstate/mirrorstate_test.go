package mirrorstate

import (
	"path/filepath"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func TestMirrorRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	s, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	user := model.UserActor("test")
	if _, err := s.CreateWorkspace(storage.WorkspaceCreate{Name: "A", Slug: "a"}, user); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "m")
	d, created, err := Of(s).AddMirror("a", dir)
	if err != nil || !created {
		t.Fatalf("add: %v %v", created, err)
	}
	if again, created, err := Of(s).AddMirror("a", dir+"/"); err != nil || created || again.ID != d.ID {
		t.Fatalf("the same mirror again: %+v %v %v", again, created, err)
	}
	for _, bad := range []string{filepath.Join(dir, "inner"), filepath.Dir(dir)} {
		if _, _, err := Of(s).AddMirror("a", bad); !model.IsCode(err, model.CodeConflict) {
			t.Errorf("overlapping %s: %v, want conflict", bad, err)
		}
	}
	if _, _, err := Of(s).AddMirror("a", "relative"); !model.IsCode(err, model.CodeValidation) {
		t.Errorf("relative dir: %v", err)
	}
	if _, _, err := Of(s).AddMirror("nope", filepath.Join(t.TempDir(), "x")); !model.IsNotFound(err) {
		t.Errorf("unknown workspace: %v", err)
	}
	put := []File{{ItemID: "i1", Path: "tasks/TASK-1-a.md", Hash: "h1", Seq: 3}, {ItemID: "i2", Path: "tasks/TASK-2-b.md", Hash: "h2", Seq: 4}}
	if err := Of(s).MirrorSave(d.ID, put, nil, 9); err != nil {
		t.Fatal(err)
	}
	if err := Of(s).MirrorSave(d.ID, nil, []string{"i2"}, -1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Durable across a reopen.
	if s, err = storage.Open(path, storage.Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	files, err := Of(s).MirrorFiles(d.ID)
	if err != nil || len(files) != 1 || files["i1"] != put[0] {
		t.Fatalf("files %+v %v", files, err)
	}
	defs, err := Of(s).Mirrors()
	if err != nil || len(defs) != 1 || defs[0].Cursor != 9 || defs[0].Dir != dir {
		t.Fatalf("mirrors %+v %v", defs, err)
	}
	if err := Of(s).RemoveMirror(d.ID); err != nil {
		t.Fatal(err)
	}
	if err := Of(s).RemoveMirror(d.ID); !model.IsNotFound(err) {
		t.Fatalf("second remove: %v", err)
	}
	if defs, _ := Of(s).Mirrors(); len(defs) != 0 {
		t.Fatalf("left %+v", defs)
	}
}
