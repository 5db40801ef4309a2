package views

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// A workspace made before saved views (no saved_views bucket) lists none
// and takes its first; the view and the workspace's context are in the
// change log and still there after the store is reopened from its file.
func TestSavedViewsAndContextPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	s, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := mustWorkspace(t, s, "Work")
	err = s.Base().Update(func(tx *records.Txn) error {
		return tx.Bucket(records.BWS).Bucket(records.MustID(ws.ID)).DeleteBucket(records.BSavedViews)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Of(s).SavedViews(ws.Slug, "tasks"); err != nil || len(got) != 0 {
		t.Fatalf("no bucket: %v, %v", got, err)
	}
	v, err := s.CreateSavedView(ws.Slug, "task", storage.SavedViewCreate{Name: "Open", ViewType: "board",
		Config: json.RawMessage(`{ "sort" : "title" }`)}, user)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &model.WorkspaceContext{Commands: &model.WorkspaceCommands{Test: "make test"}, Assumptions: []string{"local"}}
	if _, err := s.SetWorkspaceContext(ws.Slug, ctx, user); err != nil {
		t.Fatal(err)
	}
	changes, _, err := Of(s).ChangesSince(context.Background(), ws.Slug, v.Seq-1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || changes[0].Entity != model.EntitySavedView || changes[0].Op != model.OpCreated || changes[0].ID != v.ID ||
		changes[1].Entity != model.EntityWorkspace {
		t.Fatalf("changes %+v", changes)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := Of(s).SavedViews(ws.ID, "tasks")
	if err != nil || len(got) != 1 || got[0].ID != v.ID || string(got[0].Config) != `{"sort":"title"}` || got[0].ViewType != "board" {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
	w, err := Of(s).GetWorkspace(ws.Slug)
	if err != nil || w.Context == nil || w.Context.Commands.Test != "make test" || len(w.Context.Assumptions) != 1 {
		t.Fatalf("context after reopening: %+v, %v", w, err)
	}
	if err := s.Check(); err != nil {
		t.Errorf("consistency check: %v", err)
	}
}
