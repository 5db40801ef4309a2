package model_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func TestAcceptanceCriteria(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		body string
		want []model.AcceptanceCriterion
	}{
		{"none", "# Plan\n\nNo criteria here.", []model.AcceptanceCriterion{}},
		{"list items of the section only",
			"## Goal\n- not this\n\n## Acceptance criteria\n- loads in 1s\n* works offline\n1. survives a crash\n\n## Risks\n- not this either",
			[]model.AcceptanceCriterion{{Text: "loads in 1s"}, {Text: "works offline"}, {Text: "survives a crash"}}},
		{"task-list items carry checked",
			"### Acceptance Criteria:\n- [ ] open\n- [x] done\n- [X] also done",
			[]model.AcceptanceCriterion{{Text: "open", Checked: &no}, {Text: "done", Checked: &yes}, {Text: "also done", Checked: &yes}}},
		{"a deeper heading stays inside the section; continuation lines join",
			"## Acceptance criteria\n- first\n  continues here\n### Detail\n- second\n## Next\n- out",
			[]model.AcceptanceCriterion{{Text: "first continues here"}, {Text: "second"}}},
		{"code fences are skipped",
			"## Acceptance criteria\n```\n- not an item\n```\n- real",
			[]model.AcceptanceCriterion{{Text: "real"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := model.AcceptanceCriteria(tc.body); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestResolveIntent(t *testing.T) {
	triggers := model.ConventionTriggers
	tests := []struct {
		intent, want string
		bad          bool
	}{
		{"", "always", false},
		{"implement", "on-implement", false},
		{"on-commit", "on-commit", false},
		{"  Task-Start ", "on-task-start", false},
		{"always", "always", false},
		{"deploy", "", true},
	}
	for _, tc := range tests {
		got, err := model.ResolveIntent(tc.intent, triggers)
		if tc.bad {
			e := wantErr(t, err, model.CodeUnknownIntent, 400, nil)
			valid, _ := e.Details["valid_intents"].([]string)
			if !reflect.DeepEqual(valid, []string{"task-start", "task-complete", "implement", "commit", "pr-create", "plan-start", "plan-complete", "plan"}) {
				t.Fatalf("valid_intents = %v", valid)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ResolveIntent(%q) = %q, %v; want %q", tc.intent, got, err, tc.want)
		}
	}
	// Without a conventions collection there is nothing to check against.
	if got, err := model.ResolveIntent("deploy", nil); err != nil || got != "on-deploy" {
		t.Errorf("unchecked intent = %q, %v", got, err)
	}
}

func TestSortConventions(t *testing.T) {
	cs := []model.ContextConvention{
		{Ref: "CONVE-10", Priority: "should"}, {Ref: "CONVE-2", Priority: "nice-to-have"},
		{Ref: "CONVE-9", Priority: "should"}, {Ref: "CONVE-3"}, {Ref: "CONVE-11", Priority: "must"},
	}
	model.SortConventions(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Ref)
	}
	if want := []string{"CONVE-11", "CONVE-9", "CONVE-10", "CONVE-2", "CONVE-3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestAdmitContext(t *testing.T) {
	part := func(p, ref string, n int) model.ContextCandidate {
		return model.ContextCandidate{Part: p, Ref: ref, Seq: 1, Value: strings.Repeat("x", n)}
	}
	size := func(n int) int { return n + 2 } // a JSON string's quotes
	cands := []model.ContextCandidate{
		part(model.PartParents, "PLAN-1", 10),
		part(model.PartConventions, "CONVE-1", 50),
		part(model.PartConventions, "CONVE-2", 500), // does not fit
		part(model.PartPlaybooks, "PLAYB-1", 1),     // would fit, but comes after a refusal
		part(model.PartLinks, "TASK-9", 1),
	}
	used0 := 100
	admitted, omitted, used := model.AdmitContext(cands, 200, used0)
	if len(admitted) != 2 || admitted[0].Ref != "PLAN-1" || admitted[1].Ref != "CONVE-1" {
		t.Fatalf("admitted %+v", admitted)
	}
	if used != used0+size(10)+size(50) {
		t.Fatalf("used %d", used)
	}
	want := []model.ContextOmitted{
		{Part: model.PartConventions, Ref: "CONVE-2", Seq: 1, Size: size(500), Reason: "budget"},
		{Part: model.PartPlaybooks, Ref: "PLAYB-1", Seq: 1, Size: size(1), Reason: "budget"},
		{Part: model.PartLinks, Ref: "TASK-9", Seq: 1, Size: size(1), Reason: "budget"},
	}
	if !reflect.DeepEqual(omitted, want) {
		t.Fatalf("omitted %+v\nwant %+v", omitted, want)
	}
	// Size counts characters, not bytes.
	if got := model.ContextSize("ééé"); got != 5 {
		t.Fatalf("ContextSize = %d, want 5", got)
	}
	// An item already past the budget still leaves everything omitted, never negative room.
	admitted, omitted, _ = model.AdmitContext(cands, 10, 50)
	if len(admitted) != 0 || len(omitted) != len(cands) {
		t.Fatalf("over-budget item: admitted %d omitted %d", len(admitted), len(omitted))
	}
}

func TestRefLess(t *testing.T) {
	if !model.RefLess("TASK-9", "TASK-10") || model.RefLess("TASK-10", "TASK-9") || !model.RefLess("CONVE-5", "TASK-1") || !model.RefLess("TASK-1", "zzz") {
		t.Fatal("RefLess order wrong")
	}
}
