package storage

import (
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

	list, err := rd(s).ListPlaybooks(ws)
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
		pb, err := rd(s).GetPlaybook(ws, ref)
		if err != nil || pb.Item.ID != ship.ID || pb.Status != "active" || pb.Item.Content == "" {
			t.Fatalf("get %q: %+v %v", ref, pb, err)
		}
	}
	task := mustCreate(t, s, ws, "tasks", "not a playbook", nil)
	_, err = rd(s).GetPlaybook(ws, task.Ref)
	wantCode(t, err, model.CodeNotFound)
	_, err = rd(s).GetPlaybook(ws, "nope")
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
