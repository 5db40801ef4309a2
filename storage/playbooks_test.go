package storage

import (
	"context"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

func TestPlaybooks(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "PB").Slug
	ship := activate(t, s, ws, "Implement and ship a task").Item
	plan := activate(t, s, ws, "Plan an initiative").Item
	draft := mustCreate(t, s, ws, "playbooks", "Hand-written checklist", nil) // status defaults to draft

	list, err := s.ListPlaybooks(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].Title != "Implement and ship a task" || list[1].InvocationSlug != "plan" || list[2].Ref != draft.Ref {
		t.Fatalf("list order %+v", list)
	}
	if m := list[0]; m.Status != "active" || !m.HasArguments || m.Summary == "" || m.Trigger != "on-implement" || m.Slug != ship.Slug {
		t.Fatalf("metadata %+v", m)
	}
	if list[2].Status != "draft" || list[2].HasArguments {
		t.Fatalf("draft metadata %+v", list[2])
	}

	for _, ref := range []string{"ship", ship.Ref, ship.Slug, ship.ID} {
		pb, err := s.GetPlaybook(ws, ref)
		if err != nil || pb.Item.ID != ship.ID || pb.Status != "active" || pb.Item.Content == "" {
			t.Fatalf("get %q: %+v %v", ref, pb, err)
		}
	}
	task := mustCreate(t, s, ws, "tasks", "not a playbook", nil)
	_, err = s.GetPlaybook(ws, task.Ref)
	wantCode(t, err, model.CodeNotFound)
	_, err = s.GetPlaybook(ws, "nope")
	wantCode(t, err, model.CodeNotFound)

	run, err := s.RunPlaybook(ws, "plan", PlaybookRun{RawArgs: []string{"offline sync"}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Binding.Bound["topic"] != "offline sync" || run.Binding.Bound["horizon"] != "month" || len(run.Arguments) != 2 || run.Item.ID != plan.ID {
		t.Fatalf("run %+v", run.Binding)
	}
	run, err = s.RunPlaybook(ws, "ship", PlaybookRun{})
	if err != nil || len(run.Binding.Unbound) != 1 || run.Binding.Unbound[0].Name != "task" {
		t.Fatalf("unbound %+v %v", run, err)
	}
	_, err = s.RunPlaybook(ws, draft.Ref, PlaybookRun{})
	if e := wantCode(t, err, model.CodePlaybookNotActive); api.StatusOf(e.Code) != 409 || e.Details["status"] != "draft" {
		t.Fatalf("refusal %+v", e)
	}
	for _, in := range []PlaybookRun{{AllowDraft: true}, {RawArgs: []string{"allow-draft"}}} {
		if run, err = s.RunPlaybook(ws, draft.Ref, in); err != nil || run.Status != "draft" || len(run.Arguments) != 0 {
			t.Fatalf("allow draft %+v: %+v %v", in, run, err)
		}
	}
	_, err = s.RunPlaybook(ws, "ship", PlaybookRun{RawArgs: []string{"TASK-1", "extra"}})
	wantCode(t, err, model.CodeBadRequest)
}

func TestBootstrap(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Boot")
	b, err := s.Bootstrap(context.Background(), ws.Slug, DashboardParams{})
	if err != nil {
		t.Fatal(err)
	}
	if !b.NeedsOnboarding || b.Workspace.ID != ws.ID || len(b.Collections) != 6 || len(b.Conventions) != 0 || b.BuiltinUpdates != 0 {
		t.Fatalf("fresh bootstrap %+v", b)
	}
	for _, c := range b.Collections {
		for _, f := range c.Schema.Fields {
			if f.Label == model.TitleCase(f.Key) {
				t.Fatalf("%s.%s keeps a derivable label", c.Slug, f.Key)
			}
		}
	}
	if f := b.Collections[4].Schema.Fields[1]; b.Collections[4].Slug != "conventions" || f.Key != "trigger" || f.Label != "When" {
		t.Fatalf("a custom label must stay: %+v", f)
	}
	if b.Dashboard == nil || b.Dashboard.Dashboard == nil {
		t.Fatal("no dashboard")
	}

	activate(t, s, ws.Slug, "Ask before destructive operations")             // always, must
	activate(t, s, ws.Slug, "Never put secrets in code or items")            // always, must
	activate(t, s, ws.Slug, "Commit messages say what and why")              // on-commit
	off := activate(t, s, ws.Slug, "Keep changes small and reviewable").Item // disabled below
	if _, err := s.UpdateItem(ws.Slug, off.Ref, ItemUpdate{FieldsPatch: map[string]any{"status": "disabled", "trigger": "always"}}, user); err != nil {
		t.Fatal(err)
	}
	activate(t, s, ws.Slug, "Run a retrospective")
	if _, err := s.CreateRole(ws.Slug, RoleCreate{Name: "Reviewer"}, user); err != nil {
		t.Fatal(err)
	}
	for i, st := range []string{"in-progress", "in-progress", "open", "in-progress", "in-progress", "in-progress", "in-progress"} {
		mustCreate(t, s, ws.Slug, "tasks", "task "+string(rune('a'+i)), map[string]any{"status": st})
	}
	b, err = s.Bootstrap(context.Background(), ws.Slug, DashboardParams{})
	if err != nil {
		t.Fatal(err)
	}
	if b.NeedsOnboarding || len(b.Conventions) != 2 || b.Conventions[0].Ref != "CONVE-1" || b.Conventions[0].Content == "" {
		t.Fatalf("conventions %+v", b.Conventions)
	}
	if len(b.ConventionIndex) != 3 || b.ConventionIndex[0].Trigger != "always" || b.ConventionIndex[2].Trigger != "on-commit" {
		t.Fatalf("index %+v", b.ConventionIndex)
	}
	if len(b.Playbooks) != 1 || b.Playbooks[0].InvocationSlug != "retro" || len(b.Roles) != 1 || b.Roles[0].Slug != "reviewer" {
		t.Fatalf("playbooks %+v roles %+v", b.Playbooks, b.Roles)
	}
	d := b.Dashboard
	if len(d.ActiveItems) != model.BootstrapCap || d.ActiveItemsOverflowCount != 1 || d.Summary.ByCollection["tasks"]["in-progress"] != 6 {
		t.Fatalf("dashboard %+v", d)
	}
	if len(d.RecentActivity) != model.BootstrapCap || d.RecentActivityOverflowCount == 0 || d.Summary.TotalItems != 12 {
		t.Fatalf("recent %d overflow %d total %d", len(d.RecentActivity), d.RecentActivityOverflowCount, d.Summary.TotalItems)
	}

	// The dashboard's plans carry their progress.
	plan := mustCreate(t, s, ws.Slug, "plans", "Launch", map[string]any{"status": "active"})
	for _, kid := range []struct{ coll, status string }{{"tasks", "done"}, {"tasks", "cancelled"}, {"tasks", "open"}, {"docs", "draft"}} {
		if _, err := s.CreateItem(ws.Slug, ItemCreate{Collection: kid.coll, Title: "kid", Parent: plan.Ref,
			Fields: map[string]any{"status": kid.status}}, user); err != nil {
			t.Fatal(err)
		}
	}
	if b, err = s.Bootstrap(context.Background(), ws.Slug, DashboardParams{}); err != nil {
		t.Fatal(err)
	}
	prog, err := s.Progress(ws.Slug, plan.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if p := b.Dashboard.ActivePlans; len(p) != 1 || p[0].Ref != plan.Ref || p[0].TaskCount != prog.Total || p[0].DoneCount != prog.Done ||
		p[0].Progress != prog.Percent || prog.Total != 3 || prog.Done != 2 {
		t.Fatalf("active plans %+v, progress %+v", p, prog)
	}

	// A library entry that changed since activation is an update to offer.
	err = s.update(func(tx *txn) error {
		b := openWS(tx, ws.ID)
		orig := b.root.Bucket(bOrigins)
		k, v := orig.Cursor().First()
		var o builtinOrigin
		if err := decode(v, &o); err != nil {
			return err
		}
		o.SeedHash = "older"
		raw, _ := encode(o)
		return orig.Put(append([]byte(nil), k...), raw)
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = s.Bootstrap(context.Background(), ws.Slug, DashboardParams{}); err != nil || b.BuiltinUpdates != 1 {
		t.Fatalf("builtin_updates %d %v", b.BuiltinUpdates, err)
	}
}
