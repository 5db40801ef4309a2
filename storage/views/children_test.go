package views

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func mustChild(t *testing.T, s *storage.Store, ws, coll, title, parent string, sortOrder int64, fields map[string]any) *storage.ItemView {
	t.Helper()
	r, err := s.CreateItem(ws, storage.ItemCreate{Collection: coll, Title: title, Parent: parent, SortOrder: &sortOrder,
		Content: "body of " + title, Fields: fields}, user)
	if err != nil {
		t.Fatalf("create %q: %v", title, err)
	}
	return r.Item
}

func TestChildrenOrderAndPaging(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Kids").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", nil)
	c := mustChild(t, s, ws, "tasks", "c", plan.Ref, 2, nil)
	clk.advance(time.Second)
	b := mustChild(t, s, ws, "tasks", "b", plan.Ref, 1, nil)
	clk.advance(time.Second)
	d := mustChild(t, s, ws, "docs", "d", plan.Ref, 2, nil)  // same sort_order as c, created later
	a := mustChild(t, s, ws, "ideas", "a", plan.Ref, 1, nil) // same sort_order as b, created later
	gone := mustChild(t, s, ws, "tasks", "gone", plan.Ref, 0, nil)
	mustCreate(t, s, ws, "tasks", "Unrelated", nil)
	if _, err := s.DeleteItem(ws, gone.Ref, user); err != nil {
		t.Fatal(err)
	}
	// Touching c later does not move it: the order is not updated_at.
	clk.advance(time.Minute)
	mustUpdateItem(t, s, ws, c.Ref, storage.ItemUpdate{Title: ptrTo("c2")})

	page, err := Of(s).Children(ws, plan.Ref, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{b.Ref, a.Ref, c.Ref, d.Ref}
	if got := refs(page.Items); len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("order %v, want %v", got, want)
	}
	if page.HasMore || page.Items[0].Content != "body of b" || page.Items[0].ParentRef != plan.Ref {
		t.Fatalf("page: more %v, first %+v", page.HasMore, page.Items[0])
	}
	p1, _ := Of(s).Children(ws, plan.Ref, 3, 0)
	p2, _ := Of(s).Children(ws, plan.Ref, 3, p1.NextOffset)
	if len(p1.Items) != 3 || !p1.HasMore || p1.NextOffset != 3 || len(p2.Items) != 1 || p2.HasMore || p2.Items[0].Ref != d.Ref {
		t.Fatalf("pages %v (+%v) / %v", refs(p1.Items), p1.NextOffset, refs(p2.Items))
	}
	if past, _ := Of(s).Children(ws, plan.Ref, 3, 99); len(past.Items) != 0 || past.HasMore {
		t.Fatalf("offset past the end: %+v", past)
	}
	// An archived parent still lists its children; an unknown one is 404.
	if _, err := s.DeleteItem(ws, plan.Ref, user); err != nil {
		t.Fatal(err)
	}
	if page, err := Of(s).Children(ws, plan.Ref, 0, 0); err != nil || len(page.Items) != 4 {
		t.Fatalf("archived parent: %v %v", refs(page.Items), err)
	}
	_, err = Of(s).Children(ws, "PLAN-404", 0, 0)
	wantCode(t, err, model.CodeNotFound)
}

func TestChildrenLimitCap(t *testing.T) {
	s, _ := openTest(t)
	setNoSync(s, true) // setup speed
	ws := mustWorkspace(t, s, "Big").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", nil)
	for i := range DefaultChildrenLimit + 1 {
		mustChild(t, s, ws, "tasks", "t"+strconv.Itoa(i), plan.Ref, int64(i), nil)
	}
	page, err := Of(s).Children(ws, plan.Ref, 5000, 0)
	if err != nil || len(page.Items) != DefaultChildrenLimit || !page.HasMore || page.NextOffset != DefaultChildrenLimit {
		t.Fatalf("capped: %d more %v next %d %v", len(page.Items), page.HasMore, page.NextOffset, err)
	}
}

func TestProgressCountsWorkChildrenOnly(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Prog").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", nil)
	status := func(v string) map[string]any { return map[string]any{"status": v} }
	mustChild(t, s, ws, "tasks", "open", plan.Ref, 0, nil)
	mustChild(t, s, ws, "tasks", "doing", plan.Ref, 0, status("in-progress"))
	mustChild(t, s, ws, "tasks", "done", plan.Ref, 0, status("done"))
	mustChild(t, s, ws, "tasks", "dropped", plan.Ref, 0, status("cancelled"))
	mustChild(t, s, ws, "ideas", "shipped idea", plan.Ref, 0, status("implemented"))
	mustChild(t, s, ws, "docs", "reference doc", plan.Ref, 0, nil) // tracks_work false
	archived := mustChild(t, s, ws, "tasks", "archived", plan.Ref, 0, nil)
	if _, err := s.DeleteItem(ws, archived.Ref, user); err != nil {
		t.Fatal(err)
	}
	p, err := Of(s).Progress(ws, plan.Ref)
	if err != nil {
		t.Fatal(err)
	}
	want := Progress{Total: 5, Done: 3, Abandoned: 1, Open: 2, Percent: 60}
	if *p != want {
		t.Fatalf("progress %+v, want %+v", *p, want)
	}
	lone := mustCreate(t, s, ws, "tasks", "Lone", nil)
	if p, _ := Of(s).Progress(ws, lone.Ref); *p != (Progress{}) {
		t.Fatalf("no children: %+v", *p)
	}
	_, err = Of(s).Progress(ws, "nope")
	wantCode(t, err, model.CodeNotFound)
}

// A parent named in the fields is the parent link, in a patch and in a
// full fields write alike (Pad reads fields.parent so); named twice with
// two values, it is refused.
func TestParentInFieldsSetsTheLink(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Kids").Slug
	p1 := mustCreate(t, s, ws, "plans", "One", nil)
	p2 := mustCreate(t, s, ws, "plans", "Two", nil)
	kid := mustCreate(t, s, ws, "tasks", "Kid", map[string]any{"status": "open"})

	r := mustUpdateItem(t, s, ws, kid.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"parent": p1.Ref}})
	if r.ParentRef != p1.Ref {
		t.Errorf("a patch naming parent %s left the parent %q", p1.Ref, r.ParentRef)
	}
	r = mustUpdateItem(t, s, ws, kid.Ref, storage.ItemUpdate{Fields: map[string]any{"status": "done", "parent": p2.Ref}})
	if r.ParentRef != p2.Ref {
		t.Errorf("a full fields write naming parent %s left the parent %q", p2.Ref, r.ParentRef)
	}
	if _, has := r.Fields["parent"]; has || r.Fields["status"] != "done" {
		t.Errorf("fields after the full write: %v, want status done and no parent key", r.Fields)
	}
	r = mustUpdateItem(t, s, ws, kid.Ref, storage.ItemUpdate{Fields: map[string]any{"status": "open"}})
	if r.ParentRef != p2.Ref {
		t.Errorf("a full fields write naming no parent moved the parent to %q", r.ParentRef)
	}
	if _, err := s.UpdateItem(ws, kid.Ref, storage.ItemUpdate{Parent: ptrTo(p1.Ref), Fields: map[string]any{"parent": p2.Ref}}, user); !model.IsCode(err, model.CodeBadRequest) {
		t.Errorf("parent and fields.parent with two values: %v, want bad_request", err)
	}
}

// An item that implements another is its child, as Pad counts it: in
// the children list, the progress, the item's parent and has_children,
// the dashboard's plan progress and the guard on closing the parent.
// An item that is both a child and an implementer counts once; an
// archived implementer not at all.
func TestImplementsCountsAsChild(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Impl").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", map[string]any{"status": "active"})
	kid := mustChild(t, s, ws, "tasks", "kid", plan.Ref, 1, map[string]any{"status": "done"})
	clk.advance(time.Second)
	impl := mustChild(t, s, ws, "tasks", "impl", "", 2, map[string]any{"status": "open"})
	both := mustChild(t, s, ws, "tasks", "both", plan.Ref, 3, map[string]any{"status": "open"})
	gone := mustChild(t, s, ws, "tasks", "gone", "", 4, map[string]any{"status": "open"})
	ref := mustChild(t, s, ws, "docs", "ref", "", 5, nil)
	for _, src := range []string{impl.Ref, both.Ref, gone.Ref, ref.Ref} {
		mustLink(t, s, ws, src, plan.Ref, model.LinkImplements)
	}
	if _, err := s.DeleteItem(ws, gone.Ref, user); err != nil {
		t.Fatal(err)
	}

	page, err := Of(s).Children(ws, plan.Ref, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := refs(page.Items), []string{kid.Ref, impl.Ref, both.Ref, ref.Ref}; !slices.Equal(got, want) {
		t.Fatalf("children %v, want %v", got, want)
	}
	// Progress counts work children: kid (done), impl and both (open).
	p, err := Of(s).Progress(ws, plan.Ref)
	if err != nil || p.Total != 3 || p.Done != 1 || p.Open != 2 || p.Percent != 33 {
		t.Fatalf("progress %+v %v", p, err)
	}
	d, err := Of(s).Dashboard(context.Background(), ws, DashboardParams{})
	if err != nil || len(d.ActivePlans) != 1 || d.ActivePlans[0].TaskCount != 3 || d.ActivePlans[0].DoneCount != 1 {
		t.Fatalf("active plans %+v %v", d.ActivePlans, err)
	}
	v, err := Of(s).GetItem(ws, impl.Ref)
	if err != nil || v.ParentRef != plan.Ref || v.ParentTitle != "Plan" || v.ParentLinkID != plan.ID || v.ParentID != "" {
		t.Fatalf("implementer's parent: ref %q title %q link %q id %q (%v)", v.ParentRef, v.ParentTitle, v.ParentLinkID, v.ParentID, err)
	}
	if pv, err := Of(s).GetItem(ws, plan.Ref); err != nil || !pv.HasChildren {
		t.Fatalf("plan has_children %v (%v)", pv.HasChildren, err)
	}
	// Closing the plan is refused while the implementer is open; the
	// open children are named once each.
	_, err = s.UpdateItem(ws, plan.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"status": "completed"}}, user)
	e := wantCode(t, err, model.CodeOpenChildren)
	open, _ := e.Details["open_children"].([]map[string]any)
	if len(open) != 2 || open[0]["ref"] != impl.Ref && open[1]["ref"] != impl.Ref {
		t.Fatalf("open children %v", e.Details["open_children"])
	}
}
