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
