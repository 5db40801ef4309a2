package storage

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/padd/padd/model"
)

func mustLink(t testing.TB, s *Store, ws, src, dst, typ string) *model.Link {
	t.Helper()
	r, err := s.AddLink(ws, src, dst, typ, user)
	if err != nil {
		t.Fatalf("link %s %s %s: %v", src, typ, dst, err)
	}
	return r.Link
}

// linkRows renders ListLinks as "dir type other-ref" lines.
func linkRows(t testing.TB, s *Store, ws, ref string) []string {
	t.Helper()
	views, err := rd(s).ListLinks(ws, ref)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range views {
		out = append(out, v.Direction+" "+v.Type+" "+v.Other.Ref)
	}
	return out
}

func TestLinkPerspective(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Links").Slug
	for _, title := range []string{"A", "B", "C", "D", "E"} {
		mustCreate(t, s, ws, "tasks", title, nil)
	}
	head := wsSeq(t, s, ws)
	// Stored canonically: "TASK-2 blocked-by TASK-1" is "TASK-1 blocks TASK-2".
	l := mustLink(t, s, ws, "TASK-2", "TASK-1", "blocked_by")
	one, _ := rd(s).GetItem(ws, "TASK-1")
	if l.Type != model.LinkBlocks || l.SourceID != one.ID || l.Seq != head+1 {
		t.Fatalf("stored %+v", l)
	}
	ch, act := lastLog(t, s, ws)
	if ch.Entity != model.EntityLink || ch.Op != model.OpCreated || ch.ID != l.ID || ch.ItemID != one.ID ||
		act.Action != "linked" || act.Metadata["source_ref"] != "TASK-1" || act.Metadata["target_ref"] != "TASK-2" {
		t.Fatalf("logged %+v / %+v", ch, act)
	}
	mustLink(t, s, ws, "TASK-1", "TASK-3", "supersedes")
	mustLink(t, s, ws, "TASK-4", "TASK-1", "implements")
	mustLink(t, s, ws, "TASK-5", "TASK-1", "split_from")

	want := map[string][]string{
		"TASK-1": {"out blocks TASK-2", "out supersedes TASK-3", "in implemented-by TASK-4", "in split-into TASK-5"},
		"TASK-2": {"in blocked-by TASK-1"},
		"TASK-3": {"in superseded-by TASK-1"},
		"TASK-4": {"out implements TASK-1"},
		"TASK-5": {"out split-from TASK-1"},
	}
	for ref, rows := range want {
		if got := linkRows(t, s, ws, ref); !reflect.DeepEqual(got, rows) {
			t.Errorf("%s: got %q, want %q", ref, got, rows)
		}
	}
	views, _ := rd(s).ListLinks(ws, "TASK-2")
	if o := views[0].Other; o.Title != "A" || o.Status != "open" || o.State != model.StateOpen || o.CollectionSlug != "tasks" || o.ID != one.ID {
		t.Fatalf("other side %+v", o)
	}

	// The same link again, in either spelling, is the stored one.
	head = wsSeq(t, s, ws)
	for _, again := range [][3]string{{"TASK-1", "TASK-2", "blocks"}, {"TASK-2", "TASK-1", "blocked-by"}} {
		r, err := s.AddLink(ws, again[0], again[1], again[2], user)
		if err != nil || !r.Existing || r.Link.ID != l.ID {
			t.Fatalf("duplicate %v: %+v %v", again, r, err)
		}
	}
	if wsSeq(t, s, ws) != head {
		t.Fatal("a duplicate link wrote something")
	}

	// Removal by id and by ends.
	if _, err := s.RemoveLink(ws, l.ID, user); err != nil {
		t.Fatal(err)
	}
	if ch, act := lastLog(t, s, ws); ch.Op != model.OpDeleted || ch.ID != l.ID || act.Action != "unlinked" {
		t.Fatalf("unlink logged %+v / %+v", ch, act)
	}
	if got := linkRows(t, s, ws, "TASK-2"); len(got) != 0 {
		t.Fatalf("after remove %v", got)
	}
	if _, err := s.removeLinkBetween(ws, "TASK-3", "TASK-1", "supersedes", user); !model.IsNotFound(err) {
		t.Fatalf("the reverse direction is not the link: %v", err)
	}
	if _, err := s.removeLinkBetween(ws, "TASK-1", "TASK-3", "supersedes", user); err != nil {
		t.Fatal(err)
	}
	if got := linkRows(t, s, ws, "TASK-1"); !reflect.DeepEqual(got, []string{"in implemented-by TASK-4", "in split-into TASK-5"}) {
		t.Fatalf("left %q", got)
	}
}

func TestLinkRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Link refusals").Slug
	mustCreate(t, s, ws, "tasks", "A", nil)
	mustCreate(t, s, ws, "tasks", "B", nil)
	mustCreate(t, s, ws, "tasks", "Archived", nil)
	if _, err := s.DeleteItem(ws, "TASK-3", user); err != nil {
		t.Fatal(err)
	}
	link := func(src, dst, typ string) func() error {
		return func() error { _, err := s.AddLink(ws, src, dst, typ, user); return err }
	}
	for _, tc := range []struct {
		name   string
		code   string
		detail string
		want   any
		write  func() error
	}{
		{"unknown type", model.CodeValidation, "field", "link_type", link("TASK-1", "TASK-2", "depends_on")},
		{"parent", model.CodeValidation, "field", "link_type", link("TASK-1", "TASK-2", "parent")},
		{"self", model.CodeBadRequest, "ref", "TASK-1", link("TASK-1", "task-1", "blocks")},
		{"unknown source", model.CodeNotFound, "ref", "TASK-9", link("TASK-9", "TASK-2", "blocks")},
		{"unknown target", model.CodeBadRequest, "field", "target", link("TASK-1", "TASK-9", "blocks")},
		{"archived source", model.CodeArchived, "ref", "TASK-3", link("TASK-3", "TASK-1", "blocks")},
		{"archived target", model.CodeBadRequest, "archived", true, link("TASK-1", "TASK-3", "blocks")},
		{"remove unknown id", model.CodeNotFound, "link_id", "nope", func() error {
			_, err := s.RemoveLink(ws, "nope", user)
			return err
		}},
		{"remove missing link", model.CodeNotFound, "link_type", "blocks", func() error {
			_, err := s.removeLinkBetween(ws, "TASK-1", "TASK-2", "blocks", user)
			return err
		}},
		{"remove with bad type", model.CodeValidation, "field", "link_type", func() error {
			_, err := s.removeLinkBetween(ws, "TASK-1", "TASK-2", "no such type!", user)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := refused(t, s, ws, tc.code, tc.write)
			if e.Details[tc.detail] != tc.want {
				t.Fatalf("details %v, want %s=%v", e.Details, tc.detail, tc.want)
			}
		})
	}
	e := wantCode(t, link("TASK-1", "TASK-2", "wiki")(), model.CodeValidation)
	if !reflect.DeepEqual(e.Details["valid"], model.LinkTypes) {
		t.Fatalf("valid types %v", e.Details["valid"])
	}
}

// Pad's related (its default: no type) reads the same from both ends;
// wiki-link reads referenced-by from its target. A type a newer Pad may
// hold and padd does not know is kept as it came when it comes through
// sync, and reads the same from both ends, as Pad's own CLI shows it.
func TestPadLinkTypesAndForeignOnes(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Pad links").Slug
	for _, title := range []string{"A", "B", "C"} {
		mustCreate(t, s, ws, "tasks", title, nil)
	}
	mustLink(t, s, ws, "TASK-1", "TASK-2", "")
	mustLink(t, s, ws, "TASK-1", "TASK-3", "wiki_link")
	mustSyncLink(t, s, ws)
	if err := s.SyncApply(ws, syncActor, func(tx *SyncTx) error {
		if _, err := tx.AddLink("TASK-2", "TASK-3", "Depends_On"); err != nil {
			return err
		}
		_, err := tx.AddLink("TASK-2", "TASK-3", "parent")
		return err
	}); model.ErrorCodeOf(err) != model.CodeValidation {
		t.Fatalf("a parent link through sync: %v, want a validation refusal", err)
	}
	if err := s.SyncApply(ws, syncActor, func(tx *SyncTx) error {
		_, err := tx.AddLink("TASK-2", "TASK-3", "Depends_On")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"TASK-1": {"out related TASK-2", "out wiki-link TASK-3"},
		"TASK-2": {"in related TASK-1", "out depends-on TASK-3"},
		"TASK-3": {"in referenced-by TASK-1", "in depends-on TASK-2"},
	}
	for ref, rows := range want {
		if got := linkRows(t, s, ws, ref); !reflect.DeepEqual(got, rows) {
			t.Errorf("%s: %q, want %q", ref, got, rows)
		}
	}
	if _, err := s.removeLinkBetween(ws, "TASK-2", "TASK-3", "depends_on", user); err != nil {
		t.Fatalf("removing the foreign link: %v", err)
	}
}

func TestBlockingCycleRefused(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Cycles").Slug
	for _, title := range []string{"A", "B", "C", "D"} {
		mustCreate(t, s, ws, "tasks", title, nil)
	}
	mustLink(t, s, ws, "TASK-1", "TASK-2", "blocks")
	mustLink(t, s, ws, "TASK-2", "TASK-3", "blocks")
	for _, tc := range []struct {
		src, dst, typ string
		cycle         []string
	}{
		{"TASK-3", "TASK-1", "blocks", []string{"TASK-3", "TASK-1", "TASK-2", "TASK-3"}},
		{"TASK-1", "TASK-3", "blocked-by", []string{"TASK-3", "TASK-1", "TASK-2", "TASK-3"}},
		{"TASK-2", "TASK-1", "blocks", []string{"TASK-2", "TASK-1", "TASK-2"}},
	} {
		e := refused(t, s, ws, model.CodeValidation, func() error {
			_, err := s.AddLink(ws, tc.src, tc.dst, tc.typ, user)
			return err
		})
		if !reflect.DeepEqual(e.Details["cycle"], tc.cycle) {
			t.Errorf("%s %s %s: cycle %v, want %v (%s)", tc.src, tc.typ, tc.dst, e.Details["cycle"], tc.cycle, e.Message)
		}
	}
	// Other types and a diamond are no cycle.
	mustLink(t, s, ws, "TASK-3", "TASK-1", "supersedes")
	mustLink(t, s, ws, "TASK-1", "TASK-4", "blocks")
	mustLink(t, s, ws, "TASK-4", "TASK-3", "blocks")
}

func TestImplementsUnparented(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Hierarchy").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", nil)
	task := mustCreate(t, s, ws, "tasks", "Task", nil)
	other := mustCreate(t, s, ws, "tasks", "Other", nil)
	unparented := func() []string {
		t.Helper()
		res, err := rd(s).ListItems(context.Background(), ws, ListParams{Collection: "tasks", Unparented: true})
		if err != nil {
			t.Fatal(err)
		}
		got := refs(res.Items)
		sort.Strings(got)
		return got
	}
	all := []string{task.Ref, other.Ref}
	if got := unparented(); !reflect.DeepEqual(got, all) {
		t.Fatalf("before %v", got)
	}
	l := mustLink(t, s, ws, task.Ref, plan.Ref, "implements")
	if got := unparented(); !reflect.DeepEqual(got, []string{other.Ref}) {
		t.Fatalf("an implements link parents its source: %v", got)
	}
	// Linking the target side does not parent the target.
	mustLink(t, s, ws, other.Ref, task.Ref, "blocks")
	if got := unparented(); !reflect.DeepEqual(got, []string{other.Ref}) {
		t.Fatalf("blocks is not hierarchy: %v", got)
	}
	if _, err := s.RemoveLink(ws, l.ID, user); err != nil {
		t.Fatal(err)
	}
	if got := unparented(); !reflect.DeepEqual(got, all) {
		t.Fatalf("after unlink %v", got)
	}
	// The link survives archiving its source, and removing it then
	// moves the archived index entry.
	mustLink(t, s, ws, task.Ref, plan.Ref, "implements")
	if _, err := s.DeleteItem(ws, task.Ref, user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.removeLinkBetween(ws, task.Ref, plan.Ref, "implements", user); err != nil {
		t.Fatal(err)
	}
	res, err := rd(s).ListItems(context.Background(), ws, ListParams{Collection: "tasks", Unparented: true, IncludeArchived: true})
	if err != nil || len(res.Items) != 2 {
		t.Fatalf("archived unparented %v %v", refs(res.Items), err)
	}
}

func TestDeps(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Deps").Slug
	for _, title := range []string{"A", "B", "C", "D", "E"} {
		mustCreate(t, s, ws, "tasks", title, nil)
	}
	// A blocks B blocks C; D blocks B; E is unrelated; A supersedes E.
	mustLink(t, s, ws, "TASK-1", "TASK-2", "blocks")
	mustLink(t, s, ws, "TASK-2", "TASK-3", "blocks")
	mustLink(t, s, ws, "TASK-2", "TASK-4", "blocked-by")
	mustLink(t, s, ws, "TASK-1", "TASK-5", "supersedes")
	if _, err := s.UpdateItem(ws, "TASK-1", ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}, user); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Ref   string
		Depth int
		Via   string
		State model.State
	}
	rows := func(ns []DepNode) []row {
		var out []row
		for _, n := range ns {
			out = append(out, row{n.Ref, n.Depth, n.Via, n.State})
		}
		return out
	}
	for _, tc := range []struct {
		ref              string
		blocks, blockedB []row
	}{
		{"TASK-1", []row{{"TASK-2", 1, "", "open"}, {"TASK-3", 2, "TASK-2", "open"}}, nil},
		{"TASK-2", []row{{"TASK-3", 1, "", "open"}}, []row{{"TASK-1", 1, "", "done"}, {"TASK-4", 1, "", "open"}}},
		{"TASK-3", nil, []row{{"TASK-2", 1, "", "open"}, {"TASK-1", 2, "TASK-2", "done"}, {"TASK-4", 2, "TASK-2", "open"}}},
		{"TASK-5", nil, nil},
	} {
		g, err := rd(s).Deps(ws, tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		if g.Item.Ref != tc.ref || g.Truncated {
			t.Fatalf("%s: item %+v truncated %v", tc.ref, g.Item, g.Truncated)
		}
		if got := rows(g.Blocks); !reflect.DeepEqual(got, tc.blocks) {
			t.Errorf("%s blocks %v, want %v", tc.ref, got, tc.blocks)
		}
		if got := rows(g.BlockedBy); !reflect.DeepEqual(got, tc.blockedB) {
			t.Errorf("%s blocked by %v, want %v", tc.ref, got, tc.blockedB)
		}
	}
}

func TestDepsBounded(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Deep").Slug
	n := MaxDepDepth + 2
	for i := 1; i <= n; i++ {
		mustCreate(t, s, ws, "tasks", "Step", nil)
		if i > 1 {
			mustLink(t, s, ws, refOfN(i-1), refOfN(i), "blocks")
		}
	}
	g, err := rd(s).Deps(ws, "TASK-1")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Truncated || len(g.Blocks) != MaxDepDepth || g.Blocks[len(g.Blocks)-1].Depth != MaxDepDepth {
		t.Fatalf("walk of %d: %d nodes, truncated %v", n, len(g.Blocks), g.Truncated)
	}
	if g, _ = rd(s).Deps(ws, refOfN(3)); g.Truncated || len(g.Blocks) != n-3 || len(g.BlockedBy) != 2 {
		t.Fatalf("a walk inside the bounds: %d/%d truncated %v", len(g.Blocks), len(g.BlockedBy), g.Truncated)
	}
}

func refOfN(n int) string { return "TASK-" + strconv.Itoa(n) }

// A link's twin is found from whichever end has fewer links: a hub with
// many outgoing links and a sink with many incoming ones still see each
// duplicate, each missing link, and each removal by ends.
func TestLinkBetweenHubs(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Hubs").Slug
	hub := mustCreate(t, s, ws, "tasks", "hub", nil)
	sink := mustCreate(t, s, ws, "tasks", "sink", nil)
	type end struct {
		src, dst string
		link     *model.Link
	}
	const n = 40
	var links []end
	for i := range n {
		a := mustCreate(t, s, ws, "tasks", fmt.Sprintf("a%d", i), nil)
		z := mustCreate(t, s, ws, "tasks", fmt.Sprintf("z%d", i), nil)
		for _, e := range []end{{src: hub.Ref, dst: a.Ref}, {src: z.Ref, dst: sink.Ref}} {
			r, err := s.AddLink(ws, e.src, e.dst, "blocks", user)
			if err != nil || r.Existing {
				t.Fatalf("%s blocks %s: %+v %v", e.src, e.dst, r, err)
			}
			e.link = r.Link
			links = append(links, e)
		}
	}
	head := wsSeq(t, s, ws)
	for _, e := range links {
		r, err := s.AddLink(ws, e.src, e.dst, "blocks", user)
		if err != nil || !r.Existing || r.Link.ID != e.link.ID {
			t.Fatalf("%s blocks %s again: %+v %v", e.src, e.dst, r, err)
		}
		if r, err = s.AddLink(ws, e.dst, e.src, "blocked-by", user); err != nil || !r.Existing || r.Link.ID != e.link.ID {
			t.Fatalf("%s blocked-by %s: %+v %v", e.dst, e.src, r, err)
		}
	}
	if wsSeq(t, s, ws) != head {
		t.Fatal("a duplicate link wrote something")
	}
	// Between the two hubs: no link yet, then one, then none.
	if _, err := s.removeLinkBetween(ws, hub.Ref, sink.Ref, "blocks", user); !model.IsNotFound(err) {
		t.Fatalf("removing a link that is not there: %v", err)
	}
	r, err := s.AddLink(ws, hub.Ref, sink.Ref, "blocks", user)
	if err != nil || r.Existing {
		t.Fatalf("hub blocks sink: %+v %v", r, err)
	}
	if l, err := s.removeLinkBetween(ws, sink.Ref, hub.Ref, "blocked-by", user); err != nil || l.ID != r.Link.ID {
		t.Fatalf("removing hub blocks sink by its other spelling: %+v %v", l, err)
	}
	for _, e := range []end{links[n], links[n+1]} {
		if l, err := s.removeLinkBetween(ws, e.src, e.dst, "blocks", user); err != nil || l.ID != e.link.ID {
			t.Fatalf("removing %s blocks %s: %+v %v", e.src, e.dst, l, err)
		}
	}
}

// BenchmarkLinkOnHub links a new item to a hub that already has 5,000
// links of the same type: the duplicate check must not read them all.
func BenchmarkLinkOnHub(b *testing.B) {
	s, _ := openTestNoSync(b)
	ws := mustWorkspace(b, s, "Hub").Slug
	hub := mustCreate(b, s, ws, "plans", "hub", nil)
	in := make([]ItemCreate, 5000+b.N)
	for i := range in {
		in[i] = ItemCreate{Collection: "tasks", Title: fmt.Sprintf("t%d", i)}
	}
	items, err := s.CreateItems(ws, in, user, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, it := range items[:5000] {
		if _, err := s.AddLink(ws, hub.Ref, it.Ref, "blocks", user); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.AddLink(ws, hub.Ref, items[5000+i].Ref, "blocks", user); err != nil {
			b.Fatal(err)
		}
	}
}

// GetItemWith and CommentsOfItems read in one go what GetItem,
// ListComments and ListLinks read one by one.
func TestGetItemWithReadsWhatTheSeparateReadsRead(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "With").Slug
	for _, title := range []string{"A", "B", "C"} {
		mustCreate(t, s, ws, "tasks", title, nil)
	}
	mustLink(t, s, ws, "TASK-2", "TASK-1", "blocked_by")
	mustLink(t, s, ws, "TASK-1", "TASK-3", "supersedes")
	for _, body := range []string{"first", "second"} {
		if _, err := s.AddComment(ws, "TASK-1", CommentCreate{Body: body}, user); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range []string{"TASK-1", "TASK-2", "TASK-3"} {
		got, err := rd(s).GetItemWith(ws, ref, true, true)
		if err != nil {
			t.Fatal(err)
		}
		item, _ := rd(s).GetItem(ws, ref)
		comments, _ := rd(s).ListComments(ws, ref)
		links, _ := rd(s).ListLinks(ws, ref)
		if !reflect.DeepEqual(got.Item, item) || !reflect.DeepEqual(got.Comments, comments) || !reflect.DeepEqual(got.Links, links) {
			t.Errorf("%s: GetItemWith %+v\nseparately %+v %+v %+v", ref, got, item, comments, links)
		}
		if ref == "TASK-1" && (len(got.Comments) != 2 || len(got.Links) != 2) {
			t.Errorf("%s: %d comments, %d links", ref, len(got.Comments), len(got.Links))
		}
	}
	lists, err := rd(s).CommentsOfItems(ws, []string{"TASK-1", "TASK-9", "TASK-2"})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := rd(s).ListComments(ws, "TASK-1")
	second, _ := rd(s).ListComments(ws, "TASK-2")
	if len(lists) != 3 || !reflect.DeepEqual(lists[0], first) || lists[1] != nil || !reflect.DeepEqual(lists[2], second) {
		t.Errorf("CommentsOfItems: %+v", lists)
	}
	if got, err := rd(s).GetItemWith(ws, "TASK-1", false, false); err != nil || got.Comments != nil || got.Links != nil {
		t.Errorf("no parts asked: %+v %v", got, err)
	}
	if _, err := rd(s).GetItemWith(ws, "TASK-9", true, true); !model.IsNotFound(err) {
		t.Errorf("a missing item: %v", err)
	}
}
