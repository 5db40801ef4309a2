package views

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// contextFixture is a plan with acceptance criteria, a task under it
// with a blocker, a link and a decision, and conventions of several
// triggers, priorities and roles.
type contextFixture struct {
	ws                         string
	plan, task, blocker, other *storage.ItemView
	convs                      map[string]string // title -> ref
}

func newContextFixture(t *testing.T, s *storage.Store) *contextFixture {
	t.Helper()
	f := &contextFixture{ws: mustWorkspace(t, s, "Ctx").Slug, convs: map[string]string{}}
	ws := f.ws
	if _, err := s.CreateRole(ws, storage.RoleCreate{Name: "Implementer"}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRole(ws, storage.RoleCreate{Name: "Reviewer"}, user); err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Never put secrets in code or items", "Record decisions on the item they shape",
		"Commit messages say what and why", "Say what you are working on"} {
		f.convs[title] = activate(t, s, ws, title).Item.Ref
	}
	// A role-scoped twin of a global rule, and a rule for another role.
	for _, c := range []struct{ title, trigger, priority, role string }{
		{"Never put secrets in code or items", "always", "should", "implementer"},
		{"Reviewers read every line", "always", "must", "reviewer"},
		{"Prefer small helpers", "on-implement", "nice-to-have", ""},
	} {
		r, err := s.CreateItem(ws, storage.ItemCreate{Collection: "conventions", Title: c.title, Content: "Body of " + c.title,
			Fields: map[string]any{"status": "active", "trigger": c.trigger, "priority": c.priority}, Role: c.role}, user)
		if err != nil {
			t.Fatal(err)
		}
		f.convs[c.title+"/"+c.role] = r.Item.Ref
	}
	activate(t, s, ws, "Implement and ship a task")
	activate(t, s, ws, "Plan an initiative")

	var err error
	pr, err := s.CreateItem(ws, storage.ItemCreate{Collection: "plans", Title: "Offline mode",
		Content: "## Goal\nWork offline.\n\n## Acceptance criteria\n- [ ] edits survive a restart\n- [x] reads need no network\n",
		Fields:  map[string]any{"status": "active"}}, user)
	if err != nil {
		t.Fatal(err)
	}
	f.plan = pr.Item
	tr, err := s.CreateItem(ws, storage.ItemCreate{Collection: "tasks", Title: "Queue writes", Content: "Write to a local queue.",
		Parent: f.plan.Ref}, user)
	if err != nil {
		t.Fatal(err)
	}
	f.task = tr.Item
	f.blocker = mustCreate(t, s, ws, "tasks", "Pick a storage engine", nil)
	f.other = mustCreate(t, s, ws, "docs", "Storage notes", nil)
	if _, err := s.AddLink(ws, f.blocker.Ref, f.task.Ref, model.LinkBlocks, user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddLink(ws, f.task.Ref, f.other.Ref, model.LinkImplements, user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateItem(ws, f.task.Ref, storage.ItemUpdate{AppendDecision: &storage.Decision{Decision: "Use bbolt", Rationale: "one file"}}, user); err != nil {
		t.Fatal(err)
	}
	if f.task, err = Of(s).GetItem(ws, f.task.Ref); err != nil {
		t.Fatal(err)
	}
	return f
}

func refsOf[T any](list []T, ref func(T) string) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, ref(x))
	}
	return out
}

func TestItemContext(t *testing.T) {
	s, _ := openTest(t)
	f := newContextFixture(t, s)
	b, err := Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Intent: "implement", Role: "implementer"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Item.Ref != f.task.Ref || b.Item.Seq != f.task.Seq || b.Item.Body != "Write to a local queue." || b.Trigger != "on-implement" {
		t.Fatalf("item %+v trigger %q", b.Item, b.Trigger)
	}
	if _, ok := b.Item.Fields[model.FieldDecisionLog]; ok {
		t.Fatal("the decision log ships twice")
	}
	if len(b.Parents) != 1 || b.Parents[0].Ref != f.plan.Ref || b.Parents[0].Body == nil || len(b.Parents[0].AcceptanceCriteria) != 2 {
		t.Fatalf("parents %+v", b.Parents)
	}
	// must -> should -> nice-to-have, then ref; the reviewer's rule is left out.
	want := []string{f.convs["Never put secrets in code or items"], f.convs["Record decisions on the item they shape"],
		f.convs["Never put secrets in code or items/implementer"], f.convs["Prefer small helpers/"]}
	if got := refsOf(b.Conventions, func(c model.ContextConvention) string { return c.Ref }); !records.EqualStrings(got, want) {
		t.Fatalf("conventions %v, want %v", got, want)
	}
	if len(b.Playbooks) != 1 || b.Playbooks[0].InvocationSlug != "ship" {
		t.Fatalf("playbooks %+v", b.Playbooks)
	}
	if len(b.Deps.BlockedBy) != 1 || b.Deps.BlockedBy[0].Ref != f.blocker.Ref || b.Deps.BlockedBy[0].Status != "open" || len(b.Deps.Blocks) != 0 {
		t.Fatalf("deps %+v", b.Deps)
	}
	if len(b.Decisions) != 1 || b.Decisions[0].Decision != "Use bbolt" || b.Decisions[0].Ref != f.task.Ref || !b.Decisions[0].Current {
		t.Fatalf("decisions %+v", b.Decisions)
	}
	if len(b.Links) != 1 || b.Links[0].Ref != f.other.Ref || b.Links[0].Type != model.LinkImplements {
		t.Fatalf("links %+v", b.Links)
	}
	c := b.Conflicts
	if len(c.OpenBlocker) != 1 || c.OpenBlocker[0].Ref != f.blocker.Ref || len(c.RoleAndGlobalConvention) != 1 ||
		c.RoleAndGlobalConvention[0].Role != "implementer" || len(c.OpenUnderClosedParent) != 0 {
		t.Fatalf("conflicts %+v", c)
	}
	if len(b.Omitted) != 0 || b.Used <= 0 || b.Used > b.Budget || b.Budget != model.DefaultContextBudget {
		t.Fatalf("budget %d used %d omitted %v", b.Budget, b.Used, b.Omitted)
	}

	// No intent: always-on only; no role: every role's rules.
	b, err = Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Trigger != "always" || len(b.Conventions) != 3 || len(b.Playbooks) != 2 {
		t.Fatalf("no intent: %d conventions, %d playbooks", len(b.Conventions), len(b.Playbooks))
	}
}

func TestItemContextBudget(t *testing.T) {
	s, _ := openTest(t)
	f := newContextFixture(t, s)
	full, err := Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Intent: "implement"})
	if err != nil {
		t.Fatal(err)
	}
	// Room for the item and the parent only: everything from the first
	// convention on is omitted, in order, with sizes.
	item := model.ContextSize(full.Item)
	parent := model.ContextSize(full.Parents[0])
	b, err := Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Intent: "implement", Budget: item + parent + 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Parents) != 1 || len(b.Conventions) != 0 || len(b.Playbooks) != 0 || len(b.Links) != 0 || len(b.Deps.BlockedBy) != 0 {
		t.Fatalf("admitted past the budget: %+v", b)
	}
	total := len(full.Conventions) + len(full.Playbooks) + len(full.Deps.BlockedBy) + len(full.Decisions) + len(full.Links)
	if len(b.Omitted) != total || b.Omitted[0].Part != model.PartConventions || b.Omitted[0].Ref != full.Conventions[0].Ref ||
		b.Omitted[len(b.Omitted)-1].Part != model.PartLinks || b.Omitted[0].Size != model.ContextSize(full.Conventions[0]) {
		t.Fatalf("omitted %+v", b.Omitted)
	}
	// The item ships even when it alone is past the budget.
	b, err = Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Budget: 1})
	if err != nil || b.Item.Ref != f.task.Ref || len(b.Parents) != 0 || b.Omitted[0].Part != model.PartParents {
		t.Fatalf("tiny budget: %+v %v", b, err)
	}
	if b, _ = Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Budget: 10 * model.MaxContextBudget}); b.Budget != model.MaxContextBudget {
		t.Fatalf("budget not capped: %d", b.Budget)
	}
}

func TestItemContextRefusalsAndConflicts(t *testing.T) {
	s, _ := openTest(t)
	f := newContextFixture(t, s)
	_, err := Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Intent: "dance"})
	if e := wantCode(t, err, model.CodeUnknownIntent); len(e.Details["valid_intents"].([]string)) == 0 {
		t.Fatalf("details %v", e.Details)
	}
	_, err = Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{Role: "Implementer"}) // a name, not a slug
	wantCode(t, err, model.CodeUnknownRole)
	_, err = Of(s).ItemContext(f.ws, "TASK-999", ContextQuery{})
	wantCode(t, err, model.CodeNotFound)

	// An open task under a completed plan.
	if _, err := s.UpdateItem(f.ws, f.plan.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"status": "completed"}, Force: true}, user); err != nil {
		t.Fatal(err)
	}
	b, err := Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Conflicts.OpenUnderClosedParent) != 1 || b.Conflicts.OpenUnderClosedParent[0].Ref != f.plan.Ref {
		t.Fatalf("conflicts %+v", b.Conflicts)
	}
	// Archived neighbours drop out, uncounted.
	if _, err := s.DeleteItem(f.ws, f.blocker.Ref, user); err != nil {
		t.Fatal(err)
	}
	if b, _ = Of(s).ItemContext(f.ws, f.task.Ref, ContextQuery{}); len(b.Deps.BlockedBy) != 0 || len(b.Conflicts.OpenBlocker) != 0 || len(b.Omitted) != 0 {
		t.Fatalf("archived blocker still listed: %+v", b.Deps)
	}
}
