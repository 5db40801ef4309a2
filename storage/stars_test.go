package storage

import (
	"reflect"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

func starredRefs(t testing.TB, s *Store, ws string, p StarredParams) ([]string, *StarredResult) {
	t.Helper()
	res, err := rd(s).Starred(ws, p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range res.Items {
		out = append(out, it.Item.Ref)
	}
	return out, res
}

func TestStars(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Stars").Slug
	for _, title := range []string{"A", "B", "C", "D"} {
		mustCreate(t, s, ws, "tasks", title, nil)
	}
	before, _ := rd(s).GetItem(ws, "TASK-1")
	for _, ref := range []string{"TASK-1", "TASK-2", "TASK-3", "TASK-4"} {
		clk.advance(time.Second)
		head := wsSeq(t, s, ws)
		r, err := s.Star(ws, ref, user)
		if err != nil || !r.Changed || !r.Starred || r.Ref != ref || wsSeq(t, s, ws) != head+1 {
			t.Fatalf("star %s: %+v %v", ref, r, err)
		}
	}
	if ch, act := lastLog(t, s, ws); ch.Entity != model.EntityStar || ch.Op != model.OpCreated || act.Action != "starred" || act.Metadata["ref"] != "TASK-4" {
		t.Fatalf("logged %+v / %+v", ch, act)
	}
	after, _ := rd(s).GetItem(ws, "TASK-1")
	if after.Seq != before.Seq || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatal("a star is not an edit of the item")
	}

	// Starring again is the same one star.
	clk.advance(time.Second)
	head := wsSeq(t, s, ws)
	if r, err := s.Star(ws, "task-2", user); err != nil || r.Changed || !r.Starred || wsSeq(t, s, ws) != head {
		t.Fatalf("re-star: %+v %v", r, err)
	}
	got, res := starredRefs(t, s, ws, StarredParams{})
	if want := []string{"TASK-4", "TASK-3", "TASK-2", "TASK-1"}; !reflect.DeepEqual(got, want) || res.HasMore {
		t.Fatalf("newest first: %v (has_more %v)", got, res.HasMore)
	}
	if at := res.Items[2].StarredAt; !at.Equal(clk.t.Add(-3 * time.Second)) {
		t.Fatalf("re-star kept the first time? %v", at)
	}

	// Paging.
	for _, tc := range []struct {
		p       StarredParams
		want    []string
		hasMore bool
		next    int
	}{
		{StarredParams{Limit: 2}, []string{"TASK-4", "TASK-3"}, true, 2},
		{StarredParams{Limit: 2, Offset: 2}, []string{"TASK-2", "TASK-1"}, false, 0},
		{StarredParams{Limit: 3, Offset: 1}, []string{"TASK-3", "TASK-2", "TASK-1"}, false, 0},
		{StarredParams{Offset: 4}, nil, false, 0},
	} {
		got, res := starredRefs(t, s, ws, tc.p)
		if !reflect.DeepEqual(got, tc.want) || res.HasMore != tc.hasMore || res.NextOffset != tc.next {
			t.Errorf("%+v: %v has_more %v next %d", tc.p, got, res.HasMore, res.NextOffset)
		}
	}

	// Archived and finished items drop out; finished ones come back on request.
	if _, err := s.DeleteItem(ws, "TASK-3", user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateItem(ws, "TASK-2", ItemUpdate{FieldsPatch: map[string]any{"status": "cancelled"}}, user); err != nil {
		t.Fatal(err)
	}
	if got, _ := starredRefs(t, s, ws, StarredParams{}); !reflect.DeepEqual(got, []string{"TASK-4", "TASK-1"}) {
		t.Fatalf("open only: %v", got)
	}
	if got, res := starredRefs(t, s, ws, StarredParams{IncludeTerminal: true, Limit: 2}); !reflect.DeepEqual(got, []string{"TASK-4", "TASK-2"}) || !res.HasMore {
		t.Fatalf("with terminal: %v %v", got, res.HasMore)
	}
	if got, res := starredRefs(t, s, ws, StarredParams{Limit: 1, Offset: 1}); !reflect.DeepEqual(got, []string{"TASK-1"}) || res.HasMore {
		t.Fatalf("the offset counts listed items only: %v %v", got, res.HasMore)
	}

	// Unstar, also of an archived item; twice is nothing.
	for _, ref := range []string{"TASK-1", "TASK-3"} {
		head := wsSeq(t, s, ws)
		r, err := s.Unstar(ws, ref, user)
		if err != nil || !r.Changed || r.Starred || wsSeq(t, s, ws) != head+1 {
			t.Fatalf("unstar %s: %+v %v", ref, r, err)
		}
	}
	if ch, act := lastLog(t, s, ws); ch.Op != model.OpDeleted || act.Action != "unstarred" {
		t.Fatalf("unstar logged %+v / %+v", ch, act)
	}
	head = wsSeq(t, s, ws)
	if r, err := s.Unstar(ws, "TASK-1", user); err != nil || r.Changed || wsSeq(t, s, ws) != head {
		t.Fatalf("unstar again: %+v %v", r, err)
	}
	if _, err := s.RestoreItem(ws, "TASK-3", user); err != nil {
		t.Fatal(err)
	}
	if got, _ := starredRefs(t, s, ws, StarredParams{IncludeTerminal: true}); !reflect.DeepEqual(got, []string{"TASK-4", "TASK-2"}) {
		t.Fatalf("after unstar: %v", got)
	}

	refused(t, s, ws, model.CodeNotFound, func() error { _, err := s.Star(ws, "TASK-99", user); return err })
	if _, err := s.DeleteItem(ws, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	refused(t, s, ws, model.CodeArchived, func() error { _, err := s.Star(ws, "TASK-1", user); return err })
}
