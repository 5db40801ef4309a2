package daemon

import (
	"encoding/json"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// IMP-01: a workspace whose items carry an implementation note, a
// decision and an activated library convention (the reserved keys only
// the system writes) imports from its own export, and the copy's export
// equals the original's.
func TestImportTakesBackReservedMetadata(t *testing.T) {
	h := newHarness(t)
	a := h.task("Noted")
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{
		"append_implementation_note": map[string]any{"summary": "did it", "details": "this way"},
		"append_decision":            map[string]any{"decision": "keep it", "rationale": "it works"}}, 200, nil)
	h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"title": "Commit messages say what and why"}, 201, nil)
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy", string(exp.body), 201, &res)
	copied := h.mustJSON("GET", "/api/v1/workspaces/copy/export", nil, 200, nil)
	if a, b := normalizeExport(t, exp.body), normalizeExport(t, copied.body); a != b {
		t.Fatalf("the copy differs from the original:\n--- original\n%s\n--- copy\n%s", a, b)
	}
}

// A reserved key is taken back only in the shape the system writes it:
// anything else under its name refuses the import, naming the item, and
// nothing is created.
func TestImportRefusesMalformedReservedMetadata(t *testing.T) {
	h := newHarness(t)
	h.task("Noted")
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	var e api.WorkspaceExport
	if err := json.Unmarshal(exp.body, &e); err != nil {
		t.Fatal(err)
	}
	for name, fields := range map[string]string{
		"a note without summary": `{"implementation_notes": [{"details": "d"}]}`,
		"a PR link without url":  `{"github_pr": {"number": 3}}`,
		"a convention as text":   `{"convention": "must"}`,
	} {
		e.Items[0].Fields = fields
		body, _ := json.Marshal(e)
		err := h.wantError("POST", "/api/v1/workspaces/import?name=Bad", string(body), 400, model.CodeValidation)
		if err.Details["entity"] != "item" || err.Details["index"] != float64(0) {
			t.Errorf("%s: refusal details %v", name, err.Details)
		}
	}
	h.wantError("GET", "/api/v1/workspaces/bad", nil, 404, model.CodeNotFound)
}

// Pad's own clients add a note or a decision by reading the item and
// writing its whole fields back, as JSON text, with the entry after the
// stored ones (Pad's `pad item note`, and the sync engine against a Pad
// without item_field_append). padd keeps such an entry as written; an
// edit or a removal through the fields stays refused.
func TestFullFieldsWriteAppendsAsPadsClientsDo(t *testing.T) {
	h := newHarness(t)
	a := h.task("Noted")
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{
		"append_implementation_note": map[string]any{"summary": "first"}}, 200, nil)
	var cur api.Item
	h.mustJSON("GET", wsPath("/items/"+a.Ref), nil, 200, &cur)
	fields, err := api.DecodeObject(cur.Fields)
	if err != nil {
		t.Fatal(err)
	}
	notes := fields["implementation_notes"].([]any)
	entry := map[string]any{"id": "note-1796000000000000000", "summary": "second", "details": "the CLI's",
		"created_at": "2026-12-07T18:00:00Z", "created_by": "agent"}
	fields["implementation_notes"] = append(notes, entry)
	fields["decision_log"] = []any{map[string]any{"id": "decision-1", "decision": "keep", "created_at": "2026-12-07T18:00:01Z", "created_by": "user"}}
	text, _ := json.Marshal(fields)
	var got api.Item
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{"fields": string(text), "source": "cli"}, 200, &got)
	out, err := api.DecodeObject(got.Fields)
	if err != nil {
		t.Fatal(err)
	}
	if !model.EqualJSON(out["implementation_notes"], fields["implementation_notes"]) || !model.EqualJSON(out["decision_log"], fields["decision_log"]) {
		t.Errorf("the entries were not kept as written:\nnotes %v\ndecisions %v", out["implementation_notes"], out["decision_log"])
	}

	edited := append([]any{}, fields["implementation_notes"].([]any)...)
	edited[0] = map[string]any{"summary": "rewritten"}
	for name, list := range map[string][]any{"edited": edited, "removed": edited[1:]} {
		fields["implementation_notes"] = list
		text, _ := json.Marshal(fields)
		err := h.wantError("PATCH", wsPath("/items/"+a.Ref), map[string]any{"fields": string(text)}, 400, model.CodeValidation)
		if err.Details["field"] != "implementation_notes" {
			t.Errorf("%s: refusal details %v", name, err.Details)
		}
	}
}
