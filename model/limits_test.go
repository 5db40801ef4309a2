package model_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

// commas writes n with thousands separators, as the docs do.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Every limit of the table is in docs/DESIGN.md's table, at its value.
func TestLimitsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "## Input limits")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, l := range model.Limits() {
		if !strings.Contains(table, "| "+commas(l.Max)) {
			t.Errorf("limit %q (%d characters) is not in DESIGN.md's table of input limits", l.Name, l.Max)
		}
	}
}

// A string over its limit is refused with a validation_error naming the
// limit, counted in characters, quoting no more than the opening; one at
// its limit is taken.
func TestLimitCheck(t *testing.T) {
	l := model.Limit{Name: "title", Max: 5}
	if err := l.Check("ééééé"); err != nil {
		t.Errorf("5 characters (10 bytes) refused: %v", err)
	}
	err := l.Check(strings.Repeat("é", 5000))
	e, ok := model.AsError(err)
	if !ok || e.Code != model.CodeValidation || e.Details["field"] != "title" || e.Details["limit"] != 5 || e.Details["length"] != 5000 {
		t.Fatalf("got %#v", err)
	}
	if len(e.Message) > 200 {
		t.Errorf("the message echoes the value: %d bytes", len(e.Message))
	}
	if err := model.CheckFields(map[string]any{"k": []any{"ok", strings.Repeat("v", model.LimitFieldValue.Max+1)}}); !model.IsCode(err, model.CodeValidation) {
		t.Errorf("a list element over the limit: %v", err)
	}
	for name, v := range map[string]any{
		"an object":                 map[string]any{"y": strings.Repeat("v", model.LimitFieldValue.Max)},
		"an object in a list":       []any{"ok", map[string]any{"y": strings.Repeat("v", model.LimitFieldValue.Max)}},
		"lists nested 2,001 deep":   nested(2001),
		"objects nested 1,000 deep": nestedObject(1000),
	} {
		if err := model.CheckFields(map[string]any{"k": v}); !model.IsCode(err, model.CodeValidation) {
			t.Errorf("%s: %v, want a validation_error", name, err)
		}
	}
	for name, v := range map[string]any{
		"a small object":          map[string]any{"y": "v", "n": json.Number("3"), "b": true},
		"lists nested 1,999 deep": nested(1999),
		"a list of plain values":  []any{strings.Repeat("v", model.LimitFieldValue.Max), json.Number("1"), true, nil},
	} {
		if err := model.CheckFields(map[string]any{"k": v}); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
}

// A filter value no collection in scope offers is refused as a write of
// it is; a field that takes any value, or "", is never refused.
func TestCheckFilterValues(t *testing.T) {
	status := model.FieldDef{Key: "status", Type: model.TypeSelect, Options: []string{"open", "in-progress", "done"}}
	other := model.FieldDef{Key: "status", Type: model.TypeSelect, Options: []string{"active", "done"}}
	text := model.FieldDef{Key: "status", Type: model.TypeText}
	for _, tc := range []struct {
		defs   []model.FieldDef
		values []string
		ok     bool
	}{
		{[]model.FieldDef{status}, []string{"open", "in-progress"}, true},
		{[]model.FieldDef{status}, []string{"in_progress"}, false},
		{[]model.FieldDef{status}, []string{""}, true},
		{[]model.FieldDef{status, other}, []string{"active"}, true},
		{[]model.FieldDef{status, text}, []string{"anything"}, true},
		{nil, []string{"anything"}, true},
	} {
		err := model.CheckFilterValues(tc.defs, tc.values)
		if (err == nil) != tc.ok || (err != nil && !model.IsCode(err, model.CodeValidation)) {
			t.Errorf("%v %v: %v", tc.defs, tc.values, err)
		}
	}
}

// nested is a list inside a list, depth deep: 2*depth characters of JSON.
func nested(depth int) any {
	var v any = []any{}
	for range depth - 1 {
		v = []any{v}
	}
	return v
}

// nestedObject is {"a":{"a":...}}, depth deep.
func nestedObject(depth int) any {
	var v any = map[string]any{}
	for range depth - 1 {
		v = map[string]any{"a": v}
	}
	return v
}
