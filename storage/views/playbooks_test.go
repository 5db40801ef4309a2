package views

import (
	"context"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

func TestBootstrap(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Boot")
	b, err := Of(s).Bootstrap(context.Background(), ws.Slug, DashboardParams{})
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
	if _, err := s.UpdateItem(ws.Slug, off.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"status": "disabled", "trigger": "always"}}, user); err != nil {
		t.Fatal(err)
	}
	activate(t, s, ws.Slug, "Run a retrospective")
	if _, err := s.CreateRole(ws.Slug, storage.RoleCreate{Name: "Reviewer"}, user); err != nil {
		t.Fatal(err)
	}
	for i, st := range []string{"in-progress", "in-progress", "open", "in-progress", "in-progress", "in-progress", "in-progress"} {
		mustCreate(t, s, ws.Slug, "tasks", "task "+string(rune('a'+i)), map[string]any{"status": st})
	}
	b, err = Of(s).Bootstrap(context.Background(), ws.Slug, DashboardParams{})
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
		if _, err := s.CreateItem(ws.Slug, storage.ItemCreate{Collection: kid.coll, Title: "kid", Parent: plan.Ref,
			Fields: map[string]any{"status": kid.status}}, user); err != nil {
			t.Fatal(err)
		}
	}
	if b, err = Of(s).Bootstrap(context.Background(), ws.Slug, DashboardParams{}); err != nil {
		t.Fatal(err)
	}
	prog, err := Of(s).Progress(ws.Slug, plan.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if p := b.Dashboard.ActivePlans; len(p) != 1 || p[0].Ref != plan.Ref || p[0].TaskCount != prog.Total || p[0].DoneCount != prog.Done ||
		p[0].Progress != prog.Percent || prog.Total != 3 || prog.Done != 2 {
		t.Fatalf("active plans %+v, progress %+v", p, prog)
	}

	// A library entry that changed since activation is an update to offer.
	err = s.Base().Update(func(tx *records.Txn) error {
		b := records.OpenWS(tx, ws.ID)
		orig := b.Root.Bucket(records.BOrigins)
		k, v := orig.Cursor().First()
		var o records.BuiltinOrigin
		if err := records.Decode(v, &o); err != nil {
			return err
		}
		o.SeedHash = "older"
		raw, _ := records.Encode(o)
		return orig.Put(append([]byte(nil), k...), raw)
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err = Of(s).Bootstrap(context.Background(), ws.Slug, DashboardParams{}); err != nil || b.BuiltinUpdates != 1 {
		t.Fatalf("builtin_updates %d %v", b.BuiltinUpdates, err)
	}
}
