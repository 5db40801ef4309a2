package views

import (
	"context"
	"testing"

	"github.com/padd/padd/storage"
)

func TestDoorReads(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Doors")
	mustCreate(t, s, ws.Slug, "tasks", "A", nil)
	c := mustComment(t, s, ws.Slug, "TASK-1", "hi", "")
	got, err := Of(s).GetComment(ws.Slug, c.ID)
	if err != nil || got.ID != c.ID || got.Body != "hi" {
		t.Fatalf("GetComment = %+v, %v", got, err)
	}
	wantCode(t, func() error { _, err := Of(s).GetComment(ws.Slug, "nope"); return err }(), "not_found")

	if on, err := Of(s).IsStarred(ws.Slug, "TASK-1"); err != nil || on {
		t.Fatalf("IsStarred before = %v, %v", on, err)
	}
	if _, err := s.Star(ws.Slug, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteItem(ws.Slug, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	if on, err := Of(s).IsStarred(ws.Slug, "TASK-1"); err != nil || !on {
		t.Fatalf("IsStarred of an archived starred item = %v, %v", on, err)
	}

	// The create is described as the item stands now (moved), the
	// collection entry by its collection, the workspace's deletion by
	// its slug alone.
	if _, err := s.RestoreItem(ws.Slug, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	ideas, err := Of(s).GetCollection(ws.Slug, "ideas")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MoveItem(ws.Slug, "TASK-1", storage.MoveInput{Target: ideas.ID}, user); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteWorkspace(ws.Slug, user); err != nil {
		t.Fatal(err)
	}
	entries, _, err := Of(s).JournalSince(context.Background(), 0, 0)
	if err != nil || len(entries) == 0 {
		t.Fatalf("journal: %d entries, %v", len(entries), err)
	}
	entries = append(entries, storage.JournalEntry{WorkspaceID: "0190a0a0-0000-7000-8000-000000000000"}) // purged
	subjects, err := Of(s).DescribeChanges(entries)
	if err != nil || len(subjects) != len(entries) {
		t.Fatalf("DescribeChanges: %d, %v", len(subjects), err)
	}
	var sawCreate, sawColl bool
	for i, e := range entries[:len(entries)-1] {
		d := subjects[i]
		if d.WorkspaceSlug != ws.Slug {
			t.Errorf("entry %d: workspace %q", e.Seq, d.WorkspaceSlug)
		}
		switch {
		case e.Change.Entity == "item" && e.Change.Op == "created":
			sawCreate = d.ItemRef == "IDEA-1" && d.ItemTitle == "A" && d.CollectionSlug == "ideas"
		case e.Change.Entity == "collection" && e.Change.CollectionID == ideas.ID:
			sawColl = d.CollectionSlug == "ideas" && d.ItemRef == ""
		case e.Change.Entity == "workspace":
			if d.ItemRef != "" || d.CollectionSlug != "" {
				t.Errorf("workspace entry described as %+v", d)
			}
		}
	}
	if !sawCreate || !sawColl {
		t.Errorf("create described: %v, collection described: %v (%+v)", sawCreate, sawColl, subjects)
	}
	if last := subjects[len(subjects)-1]; last != (ChangeSubject{}) {
		t.Errorf("purged workspace described as %+v", last)
	}
}
