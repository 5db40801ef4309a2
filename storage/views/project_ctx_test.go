package views

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// viewFixture is a small project: a plan with children, work in every
// tier, a blocked task, leases, a reference collection holding work-like
// items, and a role.
type viewFixture struct {
	s   *storage.Store
	clk *testClock
	ws  string
	ref map[string]string // title -> ref
}

func (f *viewFixture) create(t *testing.T, coll, title string, fields map[string]any, extra ...func(*storage.ItemCreate)) string {
	t.Helper()
	in := storage.ItemCreate{Collection: coll, Title: title, Fields: fields}
	for _, e := range extra {
		e(&in)
	}
	r, err := f.s.CreateItem(f.ws, in, user)
	if err != nil {
		t.Fatalf("create %q: %v", title, err)
	}
	f.ref[title] = r.Item.Ref
	f.clk.advance(time.Minute)
	return r.Item.Ref
}

func (f *viewFixture) update(t *testing.T, title string, patch map[string]any) {
	t.Helper()
	if _, err := f.s.UpdateItem(f.ws, f.ref[title], storage.ItemUpdate{FieldsPatch: patch, Force: true}, user); err != nil {
		t.Fatalf("update %q: %v", title, err)
	}
	f.clk.advance(time.Minute)
}

func withParent(p string) func(*storage.ItemCreate) {
	return func(in *storage.ItemCreate) { in.Parent = p }
}

func withRole(r string) func(*storage.ItemCreate) {
	return func(in *storage.ItemCreate) { in.Role = r }
}

func newViewFixture(t *testing.T) *viewFixture {
	t.Helper()
	s, clk := openTestNoSync(t)
	f := &viewFixture{s: s, clk: clk, ws: mustWorkspace(t, s, "Project").Slug, ref: map[string]string{}}
	if _, err := s.CreateRole(f.ws, storage.RoleCreate{Name: "Implementer"}, user); err != nil {
		t.Fatal(err)
	}
	// Stalled: in progress, then nobody touches it for ten days.
	f.create(t, "tasks", "Stuck", map[string]any{"status": "in-progress", "priority": "low"})
	clk.advance(10 * 24 * time.Hour)
	plan := f.create(t, "plans", "Ship v1", map[string]any{"status": "active"})
	f.create(t, "plans", "Later", map[string]any{"status": "planned"})
	f.create(t, "tasks", "Wire the API", map[string]any{"status": "in-progress", "priority": "high"}, withParent(plan), withRole("implementer"))
	f.create(t, "tasks", "Write docs", map[string]any{"status": "open", "priority": "critical"}, withParent(plan))
	f.create(t, "tasks", "Fix crash", map[string]any{"status": "open", "priority": "high"})
	f.create(t, "tasks", "Root cause", map[string]any{"status": "in-progress", "priority": "medium"})
	f.create(t, "tasks", "Polish", map[string]any{"status": "open", "priority": "low"})
	f.create(t, "tasks", "Old chore", map[string]any{"status": "open", "priority": "medium", "due_date": "2026-11-01"})
	f.create(t, "tasks", "Done thing", map[string]any{"status": "open", "priority": "low"}, withParent(plan))
	f.create(t, "tasks", "Leased elsewhere", map[string]any{"status": "open", "priority": "critical"})
	f.update(t, "Done thing", map[string]any{"status": "done"})
	if _, err := s.AddLink(f.ws, f.ref["Root cause"], f.ref["Fix crash"], model.LinkBlocks, user); err != nil {
		t.Fatal(err)
	}
	// Reference material that looks like work must never count as work.
	f.create(t, "docs", "Reference", map[string]any{"priority": "critical", "due_date": "2026-01-01"})
	if _, err := s.CreateCollection(f.ws, storage.CollectionCreate{Name: "Runbooks", FieldsDSL: "status:select:open,done;priority:select:low,high,critical",
		TracksWork: boolPtr(false)}, user); err != nil {
		t.Fatal(err)
	}
	f.create(t, "runbooks", "Runbook", map[string]any{"status": "open", "priority": "critical"})
	if _, err := s.Claim(f.ws, f.ref["Leased elsewhere"], claimOf("cursor", workerB, time.Hour), agent); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(f.ws, f.ref["Polish"], claimOf("claude", workerA, time.Hour), agent); err != nil {
		t.Fatal(err)
	}
	return f
}

func boolPtr(b bool) *bool { return &b }

var claude = model.Claimant{Holder: "claude", Worker: workerA}

func workRefs(items []WorkItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ItemRef)
	}
	return out
}

func (f *viewFixture) refs(titles ...string) []string {
	out := []string{}
	for _, t := range titles {
		out = append(out, f.ref[t])
	}
	return out
}

func (f *viewFixture) next(t *testing.T, p NextParams) *NextWork {
	t.Helper()
	p.Now = f.clk.now()
	out, err := Of(f.s).Next(context.Background(), f.ws, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNextRanksAndFilters(t *testing.T) {
	f := newViewFixture(t)
	// Mine (the lease claude holds), then in flight by rank, then the
	// critical task; never the blocked task, the other worker's, or
	// reference items.
	got := f.next(t, NextParams{Who: claude, Limit: 3})
	if want := f.refs("Polish", "Wire the API", "Root cause"); !reflect.DeepEqual(workRefs(got.Items), want) || !got.HasMore {
		t.Fatalf("next = %v (more %v), want %v", workRefs(got.Items), got.HasMore, want)
	}
	if got.Items[0].Tier != "mine" || got.Items[1].Reason != `In-progress task in active plan "Ship v1" (high priority)` {
		t.Fatalf("tiers/reasons: %+v", got.Items[:2])
	}
	ready := f.next(t, NextParams{Who: claude, Limit: 20})
	want := f.refs("Polish", "Wire the API", "Root cause", "Stuck", "Write docs", "Old chore")
	if !reflect.DeepEqual(workRefs(ready.Items), want) || ready.HasMore {
		t.Fatalf("ready = %v, want %v", workRefs(ready.Items), want)
	}
	// Without claude's identity, Polish is leased to someone else.
	anon := f.next(t, NextParams{Limit: 20})
	if want := f.refs("Wire the API", "Root cause", "Stuck", "Write docs", "Old chore"); !reflect.DeepEqual(workRefs(anon.Items), want) {
		t.Fatalf("anonymous ready = %v, want %v", workRefs(anon.Items), want)
	}
	// Role-aware.
	role := f.next(t, NextParams{Who: claude, Role: "implementer", Limit: 20})
	if want := f.refs("Wire the API"); !reflect.DeepEqual(workRefs(role.Items), want) {
		t.Fatalf("implementer ready = %v, want %v", workRefs(role.Items), want)
	}
	// Closing the blocker unblocks the crash fix: urgent, above the
	// critical docs task? No: same tier, high ranks after critical.
	f.update(t, "Root cause", map[string]any{"status": "done"})
	ready = f.next(t, NextParams{Who: claude, Limit: 20})
	if want := f.refs("Polish", "Wire the API", "Stuck", "Write docs", "Fix crash", "Old chore"); !reflect.DeepEqual(workRefs(ready.Items), want) {
		t.Fatalf("ready after unblocking = %v, want %v", workRefs(ready.Items), want)
	}
	// The other worker's lease expires: its item is offered again.
	f.clk.advance(2 * time.Hour)
	ready = f.next(t, NextParams{Limit: 20})
	if !contains(workRefs(ready.Items), f.ref["Leased elsewhere"]) {
		t.Fatalf("expired lease still hides its item: %v", workRefs(ready.Items))
	}
	for _, it := range ready.Items {
		if it.Collection == "docs" || it.Collection == "runbooks" {
			t.Fatalf("reference item suggested: %+v", it)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDashboardSections(t *testing.T) {
	f := newViewFixture(t)
	rem, err := f.s.AddReminder(f.ws, f.ref["Polish"], f.clk.now(), user)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.FireDueReminders(f.clk.now(), 0); err != nil {
		t.Fatal(err)
	}
	d, err := Of(f.s).Dashboard(context.Background(), f.ws, DashboardParams{Now: f.clk.now(), Who: claude})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.TotalItems != 13 || d.Summary.ByCollection["tasks"]["in-progress"] != 3 || d.Summary.ByCollection["docs"]["draft"] != 1 {
		t.Fatalf("summary = %+v", d.Summary)
	}
	var active []string
	for _, a := range d.ActiveItems {
		active = append(active, a.ItemRef)
	}
	if want := f.refs("Wire the API", "Root cause", "Stuck"); !reflect.DeepEqual(active, want) {
		t.Fatalf("active items = %v, want %v", active, want)
	}
	if len(d.ActivePlans) != 1 || d.ActivePlans[0].Ref != f.ref["Ship v1"] || d.ActivePlans[0].TaskCount != 3 ||
		d.ActivePlans[0].DoneCount != 1 || d.ActivePlans[0].Progress != 33 {
		t.Fatalf("active plans = %+v", d.ActivePlans)
	}
	types := map[string][]string{}
	for _, a := range d.Attention {
		types[a.Type] = append(types[a.Type], a.ItemRef)
	}
	// Every unfinished task without a parent is orphaned (the plan has
	// children), newest first.
	want := map[string][]string{"stalled": f.refs("Stuck"), "overdue": f.refs("Old chore"), "blocked": f.refs("Fix crash"),
		"orphaned_task": f.refs("Leased elsewhere", "Old chore", "Polish", "Root cause", "Fix crash", "Stuck")}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("attention = %v, want %v", types, want)
	}
	if d.AttentionTotals["blocked"] != 1 || d.AttentionTotals["plan_completion"] != 0 || d.AttentionTotals["orphaned_task"] != 6 {
		t.Fatalf("totals = %v", d.AttentionTotals)
	}
	var next []string
	for _, n := range d.SuggestedNext {
		next = append(next, n.ItemRef)
	}
	if want := f.refs("Polish", "Wire the API", "Root cause"); !reflect.DeepEqual(next, want) {
		t.Fatalf("suggested_next = %v, want %v", next, want)
	}
	// Open work: 9 tasks open or in flight less "Done thing" = 8, plus
	// the active and planned plans = 10; the implementer has one.
	if len(d.ByRole) != 2 || d.ByRole[0].RoleSlug != "implementer" || d.ByRole[0].ItemCount != 1 ||
		d.ByRole[1].RoleID != nil || d.ByRole[1].ItemCount != 9 {
		t.Fatalf("by_role = %+v", d.ByRole)
	}
	if len(d.PendingReminders) != 1 || d.PendingReminders[0].ID != rem.ID {
		t.Fatalf("pending = %+v", d.PendingReminders)
	}
	if len(d.RecentActivity) != dashboardRecent || d.RecentActivity[0].Action != "reminder_fired" {
		t.Fatalf("recent activity starts %+v", d.RecentActivity[0])
	}

	// Finishing the plan's children asks to complete it.
	f.update(t, "Wire the API", map[string]any{"status": "done"})
	f.update(t, "Write docs", map[string]any{"status": "cancelled"})
	d, err = Of(f.s).Dashboard(context.Background(), f.ws, DashboardParams{Now: f.clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	if d.ActivePlans[0].Progress != 100 || d.AttentionTotals["plan_completion"] != 1 {
		t.Fatalf("after finishing: plans %+v, totals %v", d.ActivePlans, d.AttentionTotals)
	}
}

func TestStaleCategories(t *testing.T) {
	f := newViewFixture(t)
	// Take "blocked" out of the workflow: an option items hold that the
	// schema no longer lists.
	c, err := Of(f.s).GetCollection(f.ws, "tasks")
	if err != nil {
		t.Fatal(err)
	}
	sch := c.Schema
	sch.Fields[0].Options = append(sch.Fields[0].Options, "waiting")
	if _, _, err := f.s.UpdateCollection(f.ws, "tasks", storage.CollectionUpdate{Schema: &sch}, user); err != nil {
		t.Fatal(err)
	}
	f.update(t, "Polish", map[string]any{"status": "waiting"})
	sch.Fields[0].Options = sch.Fields[0].Options[:len(sch.Fields[0].Options)-1]
	if _, _, err := f.s.UpdateCollection(f.ws, "tasks", storage.CollectionUpdate{Schema: &sch}, user); err != nil {
		t.Fatal(err)
	}
	out, err := Of(f.s).Stale(context.Background(), f.ws, StaleParams{Now: f.clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	wantTotals := map[string]int{"stalled": 1, "blocked": 1, "overdue": 1, "out_of_workflow": 1}
	if !reflect.DeepEqual(out.Totals, wantTotals) || out.Days != 3 {
		t.Fatalf("totals = %v (days %d), want %v", out.Totals, out.Days, wantTotals)
	}
	if want := f.refs("Stuck", "Fix crash", "Old chore", "Polish"); !reflect.DeepEqual(workRefs(out.Items), want) {
		t.Fatalf("stale = %v, want %v", workRefs(out.Items), want)
	}
	// A shorter threshold finds more stalled work; a type filter keeps one.
	out, err = Of(f.s).Stale(context.Background(), f.ws, StaleParams{Now: f.clk.now().Add(time.Hour), Days: 1, Type: "stalled", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Totals["stalled"] != 1 || len(out.Items) != 1 || out.HasMore || len(out.Totals) != 1 {
		t.Fatalf("stalled only = %+v", out)
	}
	out, err = Of(f.s).Stale(context.Background(), f.ws, StaleParams{Now: f.clk.now().Add(48 * time.Hour), Days: 1, Type: "stalled", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Totals["stalled"] != 3 || len(out.Items) != 1 || !out.HasMore || out.Items[0].ItemRef != f.ref["Stuck"] {
		t.Fatalf("stalled after two days = %+v", out)
	}
	_, err = Of(f.s).Stale(context.Background(), f.ws, StaleParams{Type: "bogus"})
	wantCode(t, err, model.CodeValidation)
}

func TestStandupAndChangelog(t *testing.T) {
	f := newViewFixture(t)
	since := f.clk.now()
	f.clk.advance(time.Hour)
	f.update(t, "Write docs", map[string]any{"status": "done"})
	f.update(t, "Polish", map[string]any{"status": "cancelled"}) // dropped: not a completion
	f.update(t, "Old chore", map[string]any{"status": "done"})
	f.update(t, "Old chore", map[string]any{"status": "open"}) // reopened: no longer done
	st, err := Of(f.s).Standup(context.Background(), f.ws, StandupParams{Now: f.clk.now(), Days: 1})
	if err != nil {
		t.Fatal(err)
	}
	// A day back reaches the fixture's own completion too; the dropped
	// and the reopened items are not done.
	if want := f.refs("Write docs", "Done thing"); !reflect.DeepEqual(workRefs(st.Done.Items), want) || st.Done.Total != 2 {
		t.Fatalf("standup done = %v, want %v", workRefs(st.Done.Items), want)
	}
	if st.InProgress.Total != 3 || st.Blockers.Total != 1 {
		t.Fatalf("standup in progress %d, blockers %d", st.InProgress.Total, st.Blockers.Total)
	}
	cl, err := Of(f.s).Changelog(context.Background(), f.ws, ChangelogParams{Now: f.clk.now(), Since: since.Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Total != 1 || cl.Items[0].Ref != f.ref["Write docs"] || cl.Items[0].ParentRef != f.ref["Ship v1"] {
		t.Fatalf("changelog = %+v", cl)
	}
	// The default week reaches "Done thing", completed before since.
	cl, err = Of(f.s).Changelog(context.Background(), f.ws, ChangelogParams{Now: f.clk.now()})
	if err != nil {
		t.Fatal(err)
	}
	if want := f.refs("Write docs", "Done thing"); !reflect.DeepEqual(changelogRefs(cl), want) {
		t.Fatalf("week changelog = %v, want %v", changelogRefs(cl), want)
	}
	cl, err = Of(f.s).Changelog(context.Background(), f.ws, ChangelogParams{Now: f.clk.now(), Until: since.Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	if want := f.refs("Done thing"); !reflect.DeepEqual(changelogRefs(cl), want) {
		t.Fatalf("changelog until %v = %v, want %v", since, changelogRefs(cl), want)
	}
	_, err = Of(f.s).Changelog(context.Background(), f.ws, ChangelogParams{Since: "yesterday"})
	wantCode(t, err, model.CodeInvalidSince)
}

func changelogRefs(c *Changelog) []string {
	out := []string{}
	for _, e := range c.Items {
		out = append(out, e.Ref)
	}
	return out
}

func TestReport(t *testing.T) {
	f := newViewFixture(t)
	f.update(t, "Write docs", map[string]any{"status": "done"})
	r, err := Of(f.s).Report(context.Background(), f.ws, ReportParams{Now: f.clk.now(), Window: "week", TZ: "America/Los_Angeles", IncludeItems: true})
	if err != nil {
		t.Fatal(err)
	}
	// By default the report covers every live collection, as Pad's does:
	// twelve of the fixture's items were created in the last week (not
	// the stalled one, ten days ago), the reference doc and runbook
	// included; two tasks were completed.
	if r.Totals.Created != 12 || r.Totals.Completed != 2 || r.Totals.NetFlow != 10 || r.Granularity != "day" || r.TZ != "America/Los_Angeles" {
		t.Fatalf("report totals = %+v (%s, %s)", r.Totals, r.Granularity, r.TZ)
	}
	if len(r.Buckets) != 8 || r.Buckets[len(r.Buckets)-1].Bucket != f.clk.now().In(mustZone(t, "America/Los_Angeles")).Format(time.DateOnly) {
		t.Fatalf("buckets = %+v", r.Buckets)
	}
	if !reflect.DeepEqual(r.Collections, []string{"tasks", "runbooks", "ideas", "plans", "docs", "conventions", "playbooks"}) || len(r.CompletedItems) != 2 {
		t.Fatalf("collections %v, completed items %+v", r.Collections, r.CompletedItems)
	}
	if r.WIP.OpenCount != 11 || r.CycleTime.SampleSize != 2 || r.WIP.AgingBuckets[2].Count != 1 {
		t.Fatalf("wip %+v, cycle %+v", r.WIP, r.CycleTime)
	}
	// Naming a reference collection includes it; a day window buckets hours.
	r, err = Of(f.s).Report(context.Background(), f.ws, ReportParams{Now: f.clk.now(), Window: "day", Collections: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Collections, []string{"docs"}) || r.Granularity != "hour" || len(r.Buckets) != 25 || r.TZ != "" {
		t.Fatalf("docs day report: %v %s %d buckets", r.Collections, r.Granularity, len(r.Buckets))
	}
	for _, tz := range []string{"Local", "Mars/Olympus"} {
		_, err = Of(f.s).Report(context.Background(), f.ws, ReportParams{TZ: tz})
		wantCode(t, err, model.CodeInvalidTZ)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestCatchUp(t *testing.T) {
	f := newViewFixture(t)
	s, ws := f.s, f.ws
	me := user
	// Seen now: the digest starts here (inclusive, so past the second of
	// the fixture's last writes).
	f.clk.advance(time.Minute)
	seen, err := s.MarkSeen(ws, me, f.clk.now())
	if err != nil {
		t.Fatal(err)
	}
	f.clk.advance(time.Minute)
	// The user's own change is left out; the agent's are grouped.
	f.update(t, "Write docs", map[string]any{"status": "done"})
	if _, err := s.UpdateItem(ws, f.ref["Old chore"], storage.ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}, agent); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateItem(ws, f.ref["Old chore"], storage.ItemUpdate{FieldsPatch: map[string]any{"status": "open"}}, agent); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddComment(ws, f.ref["Polish"], storage.CommentCreate{Body: "looks good"}, agent); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateItem(ws, storage.ItemCreate{Collection: "ideas", Title: "New idea"}, agent); err != nil {
		t.Fatal(err)
	}
	// The user is assigned a task the root cause blocks.
	assign := "local"
	if _, err := s.UpdateItem(ws, f.ref["Fix crash"], storage.ItemUpdate{Assign: &assign}, user); err != nil {
		t.Fatal(err)
	}
	c, err := Of(s).CatchUp(context.Background(), ws, CatchUpParams{Now: f.clk.now(), Caller: me})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Window.HasCursor || c.Window.CappedAtCeiling || c.Window.Since != records.FmtTime(seen) {
		t.Fatalf("window = %+v", c.Window)
	}
	if c.Finished.Total != 1 || c.Finished.Lines[0].Ref != f.ref["Old chore"] || c.Finished.Lines[0].Agent != "claude" {
		t.Fatalf("finished = %+v", c.Finished)
	}
	if c.NewAndReopened.Total != 2 || c.Comments.Total != 1 {
		t.Fatalf("new/reopened = %+v, comments = %+v", c.NewAndReopened, c.Comments)
	}
	if c.Agents.Total != 4 || len(c.Agents.Groups) != 1 || c.Agents.Groups[0].Agent != "claude" || c.Agents.Groups[0].Items != 3 {
		t.Fatalf("agents = %+v", c.Agents)
	}
	if c.NeedsYou.Total != 1 || !strings.HasPrefix(c.NeedsYou.Lines[0].What, "blocked by "+f.ref["Root cause"]) {
		t.Fatalf("needs you = %+v", c.NeedsYou)
	}
	// The agent's own digest leaves out its work and keeps the user's.
	c, err = Of(s).CatchUp(context.Background(), ws, CatchUpParams{Now: f.clk.now(), Caller: agent})
	if err != nil {
		t.Fatal(err)
	}
	if c.Window.HasCursor || !c.Window.CappedAtCeiling || c.Agents.Total != 0 {
		t.Fatalf("agent digest: window %+v, agents %+v", c.Window, c.Agents)
	}
	// The cursor never moves back.
	if got, err := s.MarkSeen(ws, me, seen.Add(-time.Hour)); err != nil || !got.Equal(seen) {
		t.Fatalf("seen moved back to %v (%v)", got, err)
	}
}

// orphaned_task (Pad's): an unfinished task of the tasks collection
// with no parent and implementing nothing, flagged only while some
// active plan has children, between plan_completion and blocked.
func TestDashboardOrphanedTasks(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Orphans").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", map[string]any{"status": "active"})
	lone := mustCreate(t, s, ws, "tasks", "Lone", map[string]any{"status": "open"})
	mustCreate(t, s, ws, "tasks", "Finished", map[string]any{"status": "done"})
	impl := mustCreate(t, s, ws, "tasks", "Implementer", map[string]any{"status": "open"})
	mustCreate(t, s, ws, "ideas", "Idea", nil) // not a task
	dash := func() *Dashboard {
		t.Helper()
		d, err := Of(s).Dashboard(context.Background(), ws, DashboardParams{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// No active plan has children: nothing is orphaned.
	if d := dash(); len(d.Attention) != 0 || d.AttentionTotals[model.NoticeOrphanedTask] != 0 {
		t.Fatalf("without plan children: %+v", d.Attention)
	}
	mustLink(t, s, ws, impl.Ref, plan.Ref, model.LinkImplements)
	d := dash()
	if len(d.Attention) != 1 || d.Attention[0].Type != model.NoticeOrphanedTask || d.Attention[0].ItemRef != lone.Ref ||
		d.Attention[0].Reason != "Task has no plan assigned" || d.Attention[0].Collection != "tasks" || d.AttentionTotals[model.NoticeOrphanedTask] != 1 {
		t.Fatalf("attention %+v totals %v", d.Attention, d.AttentionTotals)
	}
	// Once the lone task has a parent, nothing is orphaned.
	if _, err := s.UpdateItem(ws, lone.Ref, storage.ItemUpdate{Parent: ptrTo(plan.Ref)}, user); err != nil {
		t.Fatal(err)
	}
	if d := dash(); len(d.Attention) != 0 {
		t.Fatalf("after parenting: %+v", d.Attention)
	}
}

// The dashboard's suggested_next, which Pad's CLI prints for project
// next and ready, suggests work not yet started as Pad's server does:
// status open, and below high priority only a child of an active plan
// (an implementer counts). A superseded item is suggested like any
// other, as Pad's server does.
func TestDashboardSuggestsNotStartedAsPad(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Suggest").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", map[string]any{"status": "active"})
	impl := mustCreate(t, s, ws, "tasks", "Implementer", map[string]any{"status": "open", "priority": "medium"})
	mustLink(t, s, ws, impl.Ref, plan.Ref, model.LinkImplements)
	mustCreate(t, s, ws, "tasks", "Orphan", map[string]any{"status": "open", "priority": "medium"})
	mustCreate(t, s, ws, "ideas", "Shiny", map[string]any{"status": "new", "impact": "high"})
	old := mustCreate(t, s, ws, "tasks", "Old approach", map[string]any{"status": "open", "priority": "critical"})
	newer := mustCreate(t, s, ws, "tasks", "New approach", map[string]any{"status": "done", "priority": "low"})
	mustLink(t, s, ws, newer.Ref, old.Ref, model.LinkSupersedes)
	d, err := Of(s).Dashboard(context.Background(), ws, DashboardParams{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range d.SuggestedNext {
		got = append(got, n.ItemRef+": "+n.Reason)
	}
	want := []string{old.Ref + ": Open task (critical priority)", impl.Ref + `: Open task in active plan "Plan" (medium priority)`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("suggested_next %q, want %q", got, want)
	}
}
