package views

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

var agent = model.Actor{Kind: model.ActorAgent, Name: "claude", Source: model.SourceMCP}

func seqsOf(entries []ActivityView) []int64 {
	var out []int64
	for _, e := range entries {
		out = append(out, e.Seq)
	}
	return out
}

func TestListActivityOrderFiltersEnrichment(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Feed").Slug
	task := mustCreate(t, s, ws, "tasks", "Fix login", nil)
	clk.advance(time.Hour)
	idea, err := s.CreateItem(ws, storage.ItemCreate{Collection: "ideas", Title: "Dark mode"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Hour)
	if _, err := s.UpdateItem(ws, "TASK-1", storage.ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}, agent); err != nil {
		t.Fatal(err)
	}

	all, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(all.Entries); i++ {
		if all.Entries[i].Seq >= all.Entries[i-1].Seq {
			t.Fatalf("not newest first: %v", seqsOf(all.Entries))
		}
	}
	top := all.Entries[0]
	if top.Action != "updated" || top.ItemRef != "TASK-1" || top.ItemTitle != "Fix login" ||
		top.ItemSlug != task.Slug || top.CollectionSlug != "tasks" || top.Actor.Kind != model.ActorAgent {
		t.Fatalf("enriched entry: %+v", top)
	}
	if ch, _ := top.Metadata["changes"].(map[string]any); ch["fields.status"] == nil {
		t.Fatalf("field-level change details: %v", top.Metadata)
	}
	last := all.Entries[len(all.Entries)-1]
	if last.Action != "workspace_created" || last.ItemRef != "" {
		t.Fatalf("oldest entry: %+v", last)
	}

	check := func(q ActivityQuery, want ...int64) {
		t.Helper()
		p, err := Of(s).ListActivity(context.Background(), ws, q)
		if err != nil {
			t.Fatal(err)
		}
		got := seqsOf(p.Entries)
		if len(got) != len(want) {
			t.Fatalf("%+v: got %v, want %v", q, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%+v: got %v, want %v", q, got, want)
			}
		}
	}
	up := top.Seq
	check(ActivityQuery{Actor: "agent"}, up, idea.Item.Seq)
	check(ActivityQuery{Actor: "agent", Action: "created"}, idea.Item.Seq)
	check(ActivityQuery{Source: model.SourceMCP, Collection: "tasks"}, up)
	check(ActivityQuery{Collection: "task"}, up, task.Seq) // alias
	check(ActivityQuery{Collection: "ideas"}, idea.Item.Seq)
	check(ActivityQuery{Collection: "no-such"})
	check(ActivityQuery{ItemRef: "TASK-1"}, up, task.Seq)
	check(ActivityQuery{ItemRef: idea.Item.ID, Actor: "user"})
	// Filters apply before the limit: the one agent entry older than the
	// newest is still found with limit 1 after skipping.
	check(ActivityQuery{Actor: "agent", Before: up, Limit: 1}, idea.Item.Seq)

	// since: a date is that day's UTC start; an instant is inclusive at
	// whole seconds, in UTC.
	check(ActivityQuery{Since: "2026-12-01"})
	day := "2026-11-30"
	if p, _ := Of(s).ListActivity(context.Background(), ws, ActivityQuery{Since: day}); len(p.Entries) != len(all.Entries) {
		t.Fatalf("since %s: %d of %d", day, len(p.Entries), len(all.Entries))
	}
	check(ActivityQuery{Since: "2026-11-30T11:00:00Z"}, up)
	check(ActivityQuery{Since: "2026-11-30T11:00:00.900+01:00"}, up, idea.Item.Seq)
	check(ActivityQuery{Since: "2026-11-30T10:00:00.5Z", ItemRef: "TASK-1"}, up)
}

func TestListActivityPaging(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Pages").Slug
	mustCreate(t, s, ws, "tasks", "T", nil)
	for i := range 25 {
		mustUpdateItem(t, s, ws, "TASK-1", storage.ItemUpdate{Content: ptrTo(string(rune('a' + i))), Replace: true})
	}
	for _, itemRef := range []string{"", "TASK-1"} {
		var got []int64
		q := ActivityQuery{ItemRef: itemRef, Limit: 7}
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatal("paging does not end")
			}
			p, err := Of(s).ListActivity(context.Background(), ws, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, seqsOf(p.Entries)...)
			if !p.HasMore {
				if p.NextBefore != 0 {
					t.Fatalf("last page carries a cursor %d", p.NextBefore)
				}
				break
			}
			if len(p.Entries) != 7 || p.NextBefore != p.Entries[6].Seq {
				t.Fatalf("page %d: %v next %d", pages, seqsOf(p.Entries), p.NextBefore)
			}
			q.Before = p.NextBefore
		}
		want := 26 // the create and 25 updates
		if itemRef == "" {
			want = 27 // and workspace_created
		}
		if len(got) != want {
			t.Fatalf("item %q: %d entries, want %d", itemRef, len(got), want)
		}
		for i := 1; i < len(got); i++ {
			if got[i] >= got[i-1] {
				t.Fatalf("item %q: repeated or out of order: %v", itemRef, got)
			}
		}
	}
}

func TestListActivityLimitCap(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Cap").Slug
	mustCreate(t, s, ws, "tasks", "T", nil)
	bulkUpdates(t, s, ws, "TASK-1", MaxActivityLimit+10, func(i int) storage.ItemUpdate {
		return storage.ItemUpdate{SortOrder: ptrTo(int64(i + 1))}
	})
	p, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{Limit: 5000})
	if err != nil || len(p.Entries) != MaxActivityLimit || !p.HasMore {
		t.Fatalf("cap: %d entries, more %v, %v", len(p.Entries), p.HasMore, err)
	}
	p, _ = Of(s).ListActivity(context.Background(), ws, ActivityQuery{})
	if len(p.Entries) != DefaultActivityLimit {
		t.Fatalf("default: %d", len(p.Entries))
	}
}

func TestListActivityRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Bad").Slug
	for _, since := range []string{"yesterday", "2026-13-01", "2026-11-30T10:00", "9999-12-31T23:59:59-01:00"} {
		_, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{Since: since})
		if e := wantCode(t, err, model.CodeInvalidSince); api.StatusOf(e.Code) != 400 {
			t.Fatalf("%s: status %d", since, api.StatusOf(e.Code))
		}
	}
	if _, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{Since: "9999-12-31T23:59:59Z"}); err != nil {
		t.Fatalf("year 9999 is fine: %v", err)
	}
	_, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{Actor: "robot"})
	wantCode(t, err, model.CodeValidation)
	_, err = Of(s).ListActivity(context.Background(), ws, ActivityQuery{ItemRef: "TASK-404"})
	wantCode(t, err, model.CodeNotFound)
	_, err = Of(s).ListActivity(context.Background(), "nope", ActivityQuery{})
	wantCode(t, err, model.CodeNotFound)
}

func TestParseSince(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-30":                "2026-11-30T00:00:00Z",
		"2026-11-30T10:00:00.999Z":  "2026-11-30T10:00:00Z",
		"2026-11-30T01:30:00+02:00": "2026-11-29T23:30:00Z",
	} {
		got, err := parseSince(in)
		if err != nil || got.Format(time.RFC3339Nano) != want {
			t.Errorf("parseSince(%q) = %v %v, want %s", in, got, err, want)
		}
	}
}

// The feed's since and action filters are applied before entries are
// decoded (a seq bound from the change log, the action read alone): the
// answer must be what filtering the whole feed gives, at any instant.
func TestListActivityFiltersMatchWholeFeed(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Filters").Slug
	r := rand.New(rand.NewPCG(5, 6))
	start := clk.now()
	var refs []string
	for i := range 200 {
		clk.advance(time.Duration(r.IntN(3)) * 700 * time.Millisecond)
		switch {
		case len(refs) == 0 || r.IntN(3) == 0:
			refs = append(refs, mustCreate(t, s, ws, "tasks", fmt.Sprintf("t%d", i), nil).Ref)
		case r.IntN(2) == 0:
			if _, err := s.AddComment(ws, refs[r.IntN(len(refs))], storage.CommentCreate{Body: "c"}, agent); err != nil {
				t.Fatal(err)
			}
		default:
			title := fmt.Sprintf("u%d", i)
			if _, err := s.UpdateItem(ws, refs[r.IntN(len(refs))], storage.ItemUpdate{Title: &title}, user); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{Limit: MaxActivityLimit})
	if err != nil || all.HasMore {
		t.Fatalf("whole feed: %v, has_more %v", err, all.HasMore)
	}
	span := clk.now().Sub(start)
	for range 300 {
		q := ActivityQuery{Limit: MaxActivityLimit}
		if r.IntN(2) == 0 {
			q.Action = []string{"created", "updated", "commented", "linked"}[r.IntN(4)]
		}
		var since time.Time
		if r.IntN(3) > 0 {
			since = start.Add(time.Duration(r.Int64N(int64(span) + 1)))
			q.Since = since.Format(time.RFC3339Nano)
			since = since.Truncate(time.Second)
		}
		if r.IntN(3) == 0 {
			q.ItemRef = refs[r.IntN(len(refs))]
		}
		got, err := Of(s).ListActivity(context.Background(), ws, q)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, e := range all.Entries {
			if (q.Action == "" || e.Action == q.Action) && (since.IsZero() || !e.CreatedAt.Before(since)) &&
				(q.ItemRef == "" || e.ItemRef == q.ItemRef) {
				want = append(want, e.Seq)
			}
		}
		if g := seqsOf(got.Entries); !slices.Equal(g, want) {
			t.Fatalf("%+v: got %v, want %v", q, g, want)
		}
	}
}
