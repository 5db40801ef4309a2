package model_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/padd/padd/model"
)

func shipSpecs(t *testing.T) []model.ArgSpec {
	t.Helper()
	raw := `[
		{"name": "task", "type": "ref", "required": true},
		{"name": "mode", "type": "enum", "enum": ["fast", "careful"], "default": "careful"},
		{"name": "target", "type": "string", "required": true},
		{"name": "dry-run", "type": "flag"},
		{"name": "retries", "type": "number"},
		{"name": "note", "type": "string"}
	]`
	v, err := model.DecodeJSON([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := model.ParseArgSpecs(v)
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

func TestBindArgs(t *testing.T) {
	specs := shipSpecs(t)
	tests := []struct {
		name    string
		args    map[string]any
		raw     []string
		bound   map[string]any
		unbound []string
		ignored []string
		code    string
	}{
		{name: "nothing supplied: defaults, flags false, required unbound",
			bound: map[string]any{"mode": "careful", "dry-run": false}, unbound: []string{"task", "target"}},
		{name: "positionals fill required arguments in order, skipping optional ones",
			raw:   []string{"TASK-7", "prod"},
			bound: map[string]any{"task": "TASK-7", "target": "prod", "mode": "careful", "dry-run": false}},
		{name: "bareword flag and key=value",
			raw:   []string{"dry-run", "mode=fast", "retries=3", "TASK-1", "prod"},
			bound: map[string]any{"task": "TASK-1", "target": "prod", "mode": "fast", "dry-run": true, "retries": json.Number("3")}},
		{name: "key=value for a required argument frees its positional slot",
			raw:   []string{"task=TASK-2", "staging"},
			bound: map[string]any{"task": "TASK-2", "target": "staging", "mode": "careful", "dry-run": false}},
		{name: "args wins over raw_args on a conflict (positionals bind as if args were absent)",
			args:    map[string]any{"mode": "careful", "task": "TASK-9"},
			raw:     []string{"TASK-1", "mode=fast"},
			bound:   map[string]any{"task": "TASK-9", "mode": "careful", "dry-run": false},
			unbound: []string{"target"}},
		{name: "undeclared args members are dropped and listed",
			args:    map[string]any{"task": "TASK-1", "target": "x", "colour": "blue"},
			bound:   map[string]any{"task": "TASK-1", "target": "x", "mode": "careful", "dry-run": false},
			ignored: []string{"colour"}},
		{name: "a value that looks like a flag name is still a positional", raw: []string{"note", "x"},
			bound: map[string]any{"task": "note", "target": "x", "mode": "careful", "dry-run": false}},
		{name: "unknown key in raw_args", raw: []string{"colour=blue"}, code: model.CodeBadRequest},
		{name: "flag given as key=value", raw: []string{"dry-run=true"}, code: model.CodeBadRequest},
		{name: "surplus positional", raw: []string{"a", "b", "c"}, code: model.CodeBadRequest},
		{name: "enum outside its list", raw: []string{"mode=reckless"}, code: model.CodeBadRequest},
		{name: "number that is not one", raw: []string{"retries=three"}, code: model.CodeBadRequest},
		{name: "infinite number", raw: []string{"retries=Inf"}, code: model.CodeBadRequest},
		{name: "args number checked too", args: map[string]any{"retries": "many"}, code: model.CodeBadRequest},
		{name: "args flag takes a boolean", args: map[string]any{"dry-run": true},
			bound: map[string]any{"dry-run": true, "mode": "careful"}, unbound: []string{"task", "target"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := model.BindArgs(specs, tc.args, tc.raw)
			if tc.code != "" {
				wantErr(t, err, tc.code, 400, nil)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Bound, tc.bound) {
				t.Errorf("bound = %#v, want %#v", got.Bound, tc.bound)
			}
			var names []string
			for _, u := range got.Unbound {
				names = append(names, u.Name)
				if u.Spec.Name != u.Name || !u.Spec.Required {
					t.Errorf("unbound %q carries spec %+v", u.Name, u.Spec)
				}
			}
			if !reflect.DeepEqual(names, tc.unbound) {
				t.Errorf("unbound = %v, want %v", names, tc.unbound)
			}
			if !reflect.DeepEqual(got.Ignored, tc.ignored) {
				t.Errorf("ignored = %v, want %v", got.Ignored, tc.ignored)
			}
		})
	}
}

func TestParseArgSpecs(t *testing.T) {
	for _, raw := range []string{`null`, `[]`, `{}`} {
		v, _ := model.DecodeJSON([]byte(raw))
		if specs, err := model.ParseArgSpecs(v); err != nil || len(specs) != 0 {
			t.Errorf("%s: %v %v, want no arguments", raw, specs, err)
		}
	}
	for _, raw := range []string{`"text"`, `[1]`, `[{"type": "string"}]`, `[{"name": "a"}, {"name": "a"}]`, `[{"name": "a", "type": "date"}]`} {
		v, _ := model.DecodeJSON([]byte(raw))
		_, err := model.ParseArgSpecs(v)
		wantInvalid(t, err, map[string]any{"field": "arguments"})
	}
	v, _ := model.DecodeJSON([]byte(`[{"name": " topic "}]`))
	specs, err := model.ParseArgSpecs(v)
	if err != nil || specs[0].Name != "topic" || specs[0].Type != model.ArgString {
		t.Fatalf("a typeless argument is text: %+v %v", specs, err)
	}
}

func TestAllowDraftToken(t *testing.T) {
	rest, ok := model.AllowDraftToken([]string{"TASK-1", "allow-draft", "x=y"})
	if !ok || !reflect.DeepEqual(rest, []string{"TASK-1", "x=y"}) {
		t.Fatalf("got %v %v", rest, ok)
	}
	if _, ok := model.AllowDraftToken([]string{"allow"}); ok {
		t.Fatal("allow is not allow-draft")
	}
}

func TestPlaybookSummary(t *testing.T) {
	tests := []struct{ body, want string }{
		{"# Title\n\nDo the thing\nproperly.\n\n## Steps\n1. a", "Do the thing properly."},
		{"## Arguments\n- `x` (string)\n\nAfter the list.", "After the list."},
		{"```\ncode first\n```\nProse.", "Prose."},
		{"", ""},
	}
	for _, tc := range tests {
		if got := model.PlaybookSummary(tc.body); got != tc.want {
			t.Errorf("PlaybookSummary(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	long := ""
	for range 100 {
		long += "word "
	}
	if got := []rune(model.PlaybookSummary(long)); len(got) > 241 || got[len(got)-1] != '…' {
		t.Errorf("long summary not cut: %d runes", len(got))
	}
}

func TestPlaybookNotActive(t *testing.T) {
	wantErr(t, model.PlaybookNotActive("PLAYB-3", "draft"), model.CodePlaybookNotActive, 409,
		map[string]any{"ref": "PLAYB-3", "status": "draft"})
}
