package daemon

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// The field usage census counts live items only, an item once per key
// even when a list field holds several values, each list element as a
// value, and follows edits; an unknown collection is not_found.
func TestFieldUsage(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Bugs", "prefix": "BUG",
		"schema": map[string]any{"fields": []any{
			map[string]any{"key": "severity", "label": "Severity", "type": "select", "options": []string{"low", "high"}},
			map[string]any{"key": "labels", "label": "Labels", "type": "multi_select", "options": []string{"a", "b", "c"}},
			map[string]any{"key": "points", "label": "Points", "type": "number"}}}}, 201, nil)
	b1 := h.create("bugs", map[string]any{"title": "B1", "fields": map[string]any{"severity": "high", "labels": []string{"a", "b"}, "points": 3}})
	h.create("bugs", map[string]any{"title": "B2", "fields": map[string]any{"severity": "low", "labels": []string{"a"}}})
	h.create("bugs", map[string]any{"title": "B3", "fields": map[string]any{"severity": "high"}})
	old := h.create("bugs", map[string]any{"title": "Old", "fields": map[string]any{"severity": "low", "labels": []string{"c"}}})
	h.mustJSON("DELETE", wsPath("/items/"+old.Ref), nil, 204, nil)

	census := func() map[string]api.FieldUsageRow {
		t.Helper()
		got, err := h.client().FieldUsage(context.Background(), "w", "bugs")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]api.FieldUsageRow{}
		for i, r := range got.Fields {
			if i > 0 && got.Fields[i-1].Key >= r.Key {
				t.Errorf("rows out of key order: %q after %q", r.Key, got.Fields[i-1].Key)
			}
			if strings.HasPrefix(r.Key, "@") {
				t.Errorf("pseudo key %q in the census", r.Key)
			}
			out[r.Key] = r
		}
		return out
	}
	want := func(got map[string]api.FieldUsageRow, key string, items int, values map[string]int) {
		t.Helper()
		r := got[key]
		if r.Items != items || !maps.Equal(r.Values, values) {
			t.Errorf("%s = %d %v, want %d %v", key, r.Items, r.Values, items, values)
		}
	}
	got := census()
	want(got, "severity", 3, map[string]int{"high": 2, "low": 1})
	want(got, "labels", 2, map[string]int{"a": 2, "b": 1})
	want(got, "points", 1, map[string]int{"3": 1})

	h.mustJSON("PATCH", wsPath("/items/"+b1.Ref), map[string]any{"fields_patch": map[string]any{"labels": []string{"c"}, "severity": "low"}}, 200, nil)
	got = census()
	want(got, "severity", 3, map[string]int{"high": 1, "low": 2})
	want(got, "labels", 2, map[string]int{"a": 1, "c": 1})

	h.wantError("GET", wsPath("/collections/nope/field-usage"), nil, 404, "not_found")
}
