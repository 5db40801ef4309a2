package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

// Watches are on disk: a restart keeps them. A deleted workspace's
// watch stays listed until the workspace is purged, as on Pad's server.
func TestWatchesSurviveRestartAndPurge(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "padd.db")
	s, err := Open(path, Options{Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	a, b := mustWorkspace(t, s, "Alpha"), mustWorkspace(t, s, "Beta")
	mustCreate(t, s, a.Slug, "tasks", "in alpha", nil)
	mustCreate(t, s, b.Slug, "tasks", "in beta", nil)
	if _, err := s.CreateWatch(a.Slug, "TASK-1", "status=done"); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Second)
	if _, err := s.CreateWatch(b.Slug, "TASK-1", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path, Options{Now: clk.now}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	list, err := rd(s).ListWatches()
	if err != nil || len(list) != 2 || list[0].WorkspaceSlug != "beta" || list[1].Predicate != "status=done" || list[1].ItemRef != "TASK-1" {
		t.Fatalf("after a restart: %+v, %v", list, err)
	}

	if err := s.DeleteWorkspace(b.Slug, user); err != nil {
		t.Fatal(err)
	}
	if list, _ = rd(s).ListWatches(); len(list) != 2 {
		t.Fatalf("a deleted workspace's watch is no longer listed: %+v", list)
	}
	clk.advance(RestoreWindow + time.Hour)
	if purged, err := s.PurgeWorkspaces(); err != nil || len(purged) != 1 {
		t.Fatalf("purge: %v %v", purged, err)
	}
	if list, _ = rd(s).ListWatches(); len(list) != 1 || list[0].WorkspaceSlug != "alpha" {
		t.Fatalf("after the purge: %+v", list)
	}
}

// padd keeps MaxWatches watches; a watch of a purged workspace no longer
// counts.
func TestWatchesBounded(t *testing.T) {
	s, clk := openTestNoSync(t)
	a, b := mustWorkspace(t, s, "Alpha"), mustWorkspace(t, s, "Beta")
	in := make([]ItemCreate, MaxWatches)
	for i := range in {
		in[i] = ItemCreate{Collection: "tasks", Title: fmt.Sprintf("item %d", i)}
	}
	if _, err := s.CreateItems(a.Slug, in, user, 0); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, b.Slug, "tasks", "in beta", nil)
	if _, err := s.CreateWatch(b.Slug, "TASK-1", ""); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < MaxWatches; i++ {
		if _, err := s.CreateWatch(a.Slug, fmt.Sprintf("TASK-%d", i), ""); err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
	}
	last := fmt.Sprintf("TASK-%d", MaxWatches)
	wantCode(t, func() error { _, err := s.CreateWatch(a.Slug, last, ""); return err }(), model.CodeValidation)
	// Re-watching one already watched is no new watch.
	if _, err := s.CreateWatch(a.Slug, "TASK-1", "status=done"); err != nil {
		t.Fatalf("re-watch at the bound: %v", err)
	}
	if err := s.DeleteWorkspace(b.Slug, user); err != nil {
		t.Fatal(err)
	}
	clk.advance(RestoreWindow + time.Hour)
	if _, err := s.PurgeWorkspaces(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWatch(a.Slug, last, ""); err != nil {
		t.Fatalf("after the purge freed one: %v", err)
	}
	if list, err := rd(s).ListWatches(); err != nil || len(list) != MaxWatches {
		t.Fatalf("listed %d watches, %v", len(list), err)
	}
}

// A move that changes the done field is a status change, as Pad's move
// publishes one, and matches a predicate on the new value.
func TestWatchNotesOfAMove(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Alpha")
	mustCreate(t, s, ws.Slug, "ideas", "an idea", nil)
	if _, err := s.CreateWatch(ws.Slug, "IDEA-1", "status=open"); err != nil {
		t.Fatal(err)
	}
	head, _ := rd(s).GlobalHead()
	if _, err := s.MoveItem(ws.Slug, "IDEA-1", MoveInput{Target: "tasks", Fields: map[string]any{"status": "open"}}, user); err != nil {
		t.Fatal(err)
	}
	entries, _, err := rd(s).JournalSince(context.Background(), head, 10)
	if err != nil || len(entries) != 1 {
		t.Fatalf("journal: %+v %v", entries, err)
	}
	notes, err := rd(s).WatchNotes(entries)
	if err != nil || len(notes) != 1 || len(notes[0]) != 1 {
		t.Fatalf("notes = %+v, %v", notes, err)
	}
	if n := notes[0][0]; n.Kind != WatchKindStatus || n.Summary != "new → open" || n.ItemRef != "TASK-1" || n.Workspace != ws.Slug {
		t.Fatalf("note = %+v", n)
	}
}
