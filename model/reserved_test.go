package model_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

// decoded is JSON text as an import decodes an item's fields (numbers
// as json.Number).
func decoded(t *testing.T, text string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// An import takes each reserved key back in the shape the system writes
// it, and nothing else under its name.
func TestSplitReserved(t *testing.T) {
	fields := decoded(t, `{"priority": "high",
		"implementation_notes": [{"id": "n1", "summary": "did it", "details": "so", "created_at": "2026-01-02T03:04:05Z", "created_by": "agent", "agent": "robot"}],
		"decision_log": [{"id": "d1", "decision": "keep", "rationale": "works", "created_by": "user"}],
		"convention": {"category": "git", "trigger": "on-commit", "surfaces": ["all"], "enforcement": "must", "commands": ["git commit"]},
		"github_pr": {"number": 12, "url": "https://example.com/o/r/pull/12", "title": "Fix", "state": "open", "branch": "fix", "repo": "o/r", "updated_at": "2026-01-02T03:04:05Z"}}`)
	plain, reserved, err := model.SplitReserved(fields)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 1 || plain["priority"] != "high" {
		t.Errorf("plain fields %v", plain)
	}
	for _, k := range model.ReservedFields() {
		if reserved[k] == nil {
			t.Errorf("reserved %s was not kept: %v", k, reserved)
		}
	}
	if len(fields) != 5 {
		t.Error("SplitReserved changed its input")
	}
	if p, r, err := model.SplitReserved(map[string]any{"convention": nil}); err != nil || len(p) != 0 || len(r) != 1 || r["convention"] != nil {
		t.Errorf("a null reserved value: %v, %v, %v (want it apart, as nil)", p, r, err)
	}

	long := strings.Repeat("x", model.LimitComment.Max+1)
	for name, text := range map[string]string{
		"notes not a list":        `{"implementation_notes": {"summary": "s"}}`,
		"note without summary":    `{"implementation_notes": [{"details": "d"}]}`,
		"note entry not object":   `{"implementation_notes": ["s"]}`,
		"note nests":              `{"implementation_notes": [{"summary": "s", "more": {"a": 1}}]}`,
		"note too long":           `{"implementation_notes": [{"summary": "` + long + `"}]}`,
		"decision without text":   `{"decision_log": [{"decision": "  "}]}`,
		"empty convention":        `{"convention": {}}`,
		"convention not object":   `{"convention": "must"}`,
		"convention list of nums": `{"convention": {"surfaces": [1]}}`,
		"pr without number":       `{"github_pr": {"url": "https://example.com/p/1"}}`,
		"pr number zero":          `{"github_pr": {"number": 0, "url": "https://example.com/p/1"}}`,
		"pr number fraction":      `{"github_pr": {"number": 1.5, "url": "https://example.com/p/1"}}`,
		"pr url not http":         `{"github_pr": {"number": 1, "url": "javascript:alert(1)"}}`,
		"pr url relative":         `{"github_pr": {"number": 1, "url": "/pull/1"}}`,
	} {
		_, _, err := model.SplitReserved(decoded(t, text))
		if model.ErrorCodeOf(err) != model.CodeValidation {
			t.Errorf("%s: %v, want validation_error", name, err)
			continue
		}
		e, _ := model.AsError(err)
		if k, _ := e.Details["field"].(string); !model.IsReservedField(k) && e.Details["key"] == nil {
			t.Errorf("%s: the refusal names no reserved key: %v", name, e.Details)
		}
	}
}

func TestEntriesAdded(t *testing.T) {
	a := map[string]any{"id": "a", "summary": "one"}
	b := map[string]any{"id": "b", "summary": "two"}
	c := map[string]any{"id": "c", "summary": "three"}
	for _, tc := range []struct {
		name    string
		base, x any
		added   []any
		extends bool
	}{
		{"both absent", nil, nil, nil, true},
		{"grown from none", nil, []any{a}, []any{a}, true},
		{"grown", []any{a}, []any{a, b, c}, []any{b, c}, true},
		{"the same", []any{a, b}, []any{a, b}, []any{}, true},
		{"one removed", []any{a, b}, []any{b}, nil, false},
		{"one put before", []any{a}, []any{b, a}, []any{b}, false},
		{"one edited", []any{a}, []any{map[string]any{"id": "a", "summary": "ONE"}}, []any{map[string]any{"id": "a", "summary": "ONE"}}, false},
		{"not a list", map[string]any{}, []any{a}, nil, false},
	} {
		added, extends := model.EntriesAdded(tc.base, tc.x)
		if extends != tc.extends || len(added) != len(tc.added) || (len(added) > 0 && !model.EqualJSON(added, tc.added)) {
			t.Errorf("%s: added %v, extends %v; want %v, %v", tc.name, added, extends, tc.added, tc.extends)
		}
	}
}

func TestSameEntry(t *testing.T) {
	note := map[string]any{"id": "n1", "summary": "did it", "details": "so", "created_by": "agent"}
	for _, tc := range []struct {
		name string
		key  string
		b    any
		same bool
	}{
		{"same id", model.FieldImplementationNotes, map[string]any{"id": "n1", "summary": "other"}, true},
		{"same words, the server's own id", model.FieldImplementationNotes, map[string]any{"id": "x", "summary": "did it", "details": "so", "created_by": "user"}, true},
		{"other details", model.FieldImplementationNotes, map[string]any{"id": "x", "summary": "did it", "details": "not so"}, false},
		{"other summary", model.FieldImplementationNotes, map[string]any{"summary": "did not"}, false},
		{"not an object", model.FieldImplementationNotes, "did it", false},
	} {
		if got := model.SameEntry(tc.key, note, tc.b); got != tc.same {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.same)
		}
	}
	dec := map[string]any{"decision": "keep", "rationale": "works"}
	if !model.SameEntry(model.FieldDecisionLog, dec, map[string]any{"id": "d", "decision": "keep", "rationale": "works"}) {
		t.Error("a decision with the same words is not the same")
	}
	if model.SameEntry(model.FieldDecisionLog, dec, map[string]any{"decision": "keep"}) {
		t.Error("a decision without its rationale is the same")
	}
	if model.SameEntry(model.FieldDecisionLog, map[string]any{"decision": ""}, map[string]any{"decision": ""}) {
		t.Error("two entries without text are the same")
	}
}
