package daemon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func TestFieldIssueJSONNames(t *testing.T) {
	is := model.ValidateValue(model.FieldDef{Key: "tags", Type: "multi_select"}, []any{""})
	raw, err := json.Marshal(wireDetails(map[string]any{"issues": []*model.FieldIssue{is}})["issues"])
	if err != nil {
		t.Fatal(err)
	}
	b := string(raw)
	for _, frag := range []string{`"field":"tags"`, `"reason":"empty_element"`, `"index":0`, `"message":`} {
		if !strings.Contains(b, frag) {
			t.Errorf("FieldIssue JSON %s lacks %s", b, frag)
		}
	}
}

// A write refusing several values answers every one in details.issues,
// the first one's field, reason and index at the top of details.
func TestValidationIssuesOnTheWire(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Bugs", "schema": map[string]any{"fields": []any{
		map[string]any{"key": "n", "type": "number"},
		map[string]any{"key": "m", "type": "multi_select", "options": []any{"a"}},
	}}}, 201, nil)
	r := h.call("POST", wsPath("/collections/bugs/items"), map[string]any{"title": "x", "fields": map[string]any{"n": "three", "m": []any{"a", ""}}})
	want := `{"error":{"code":"validation_error","message":"field validation failed: field \"m\" element 1 is empty; field \"n\" must be a number",` +
		`"details":{"field":"m","index":1,"issues":[{"field":"m","reason":"empty_element","message":"field \"m\" element 1 is empty","index":1},` +
		`{"field":"n","reason":"wrong_type","message":"field \"n\" must be a number"}],"reason":"empty_element"}}}`
	if r.status != 400 || strings.TrimSpace(string(r.body)) != want {
		t.Fatalf("status %d, body\n%s\nwant\n%s", r.status, r.body, want)
	}
}

// wireDetails leaves the refusal's own details as they were.
func TestWireDetailsKeepsTheError(t *testing.T) {
	issues := []*model.FieldIssue{{Key: "a", Reason: model.ReasonWrongType, Message: "a"}}
	d := map[string]any{"field": "a", "issues": issues}
	out := wireDetails(d)
	if !reflect.DeepEqual(d, map[string]any{"field": "a", "issues": issues}) || out["field"] != "a" {
		t.Fatalf("details %v, sent %v", d, out)
	}
}
