package model_test

import (
	"reflect"
	"testing"

	"github.com/padd/padd/model"
)

// fakeRelationResolver is a test double for model.RelationResolver: a
// table of (collection, value) -> id, with values mapped to a reason
// instead of an id where a lookup should fail. It records its calls.
type fakeRelationResolver struct {
	ids     map[string]string // "collection/value" -> id
	reasons map[string]string // "collection/value" -> reason
	calls   []string
}

func (f *fakeRelationResolver) ResolveRelation(coll, value string) (string, string) {
	k := coll + "/" + value
	f.calls = append(f.calls, k)
	if r, ok := f.reasons[k]; ok {
		return "", r
	}
	if id, ok := f.ids[k]; ok {
		return id, ""
	}
	return "", model.ReasonNotFound
}

var _ model.RelationResolver = (*fakeRelationResolver)(nil)

func newFakeResolver() *fakeRelationResolver {
	return &fakeRelationResolver{
		ids: map[string]string{
			"people/PEOP-1":          "id-ann",
			"people/Ann":             "id-ann",
			"people/id-ann":          "id-ann",
			"people/Bob":             "id-bob",
			"people/PEOP-2":          "id-bob",
			"tasks/TASK-1":           "id-task-1",
			"tasks/Write the README": "id-task-1",
		},
		reasons: map[string]string{
			"people/Sam":         model.ReasonAmbiguous,
			"people/lost":        model.ReasonNotFound,
			"people/odd":         "some_reason_padd_does_not_know",
			"people/target-gone": model.ReasonTargetMissing,
		},
	}
}

var taskSchema = fields(
	model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "in-progress", "done"}, Default: "open", Required: true},
	model.FieldDef{Key: "priority", Type: "select", Options: []string{"low", "medium", "high"}, Default: "medium"},
	model.FieldDef{Key: "estimate", Type: "number"},
	model.FieldDef{Key: "due", Type: "date"},
	model.FieldDef{Key: "tags", Type: "multi_select"},
	model.FieldDef{Key: "owner", Type: "relation", Collection: "people"},
	model.FieldDef{Key: "reviewers", Type: "multi_relation", Collection: "people"},
	model.FieldDef{Key: "progress", Type: "number", Computed: true},
)

func apply(t *testing.T, w model.FieldWrite) (map[string]any, model.Warnings) {
	t.Helper()
	out, warn, err := w.Apply()
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return out, warn
}

func wantFields(t *testing.T, got map[string]any, want map[string]any) {
	t.Helper()
	if !model.EqualJSON(got, want) {
		t.Fatalf("fields =\n %#v\nwant\n %#v", got, want)
	}
}

func TestApplyCreateInjectsDefaults(t *testing.T) {
	out, warn := apply(t, model.FieldWrite{Schema: taskSchema, Create: true, Patch: obj(t, `{"estimate": 9007199254740993}`)})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium", "estimate": num("9007199254740993")})
	if out["estimate"] != num("9007199254740993") {
		t.Fatalf("estimate not kept exactly: %#v", out["estimate"])
	}
	if !warn.Empty() {
		t.Fatalf("warnings %+v", warn)
	}
	// A sent value wins over the default.
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Create: true, Patch: obj(t, `{"status": "done"}`)})
	wantFields(t, out, map[string]any{"status": "done", "priority": "medium"})
	// A create with no fields at all still gets them.
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Create: true})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium"})
	// A blank sent value of an optional field is absent, so its default applies.
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Create: true, Patch: obj(t, `{"priority": ""}`)})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium"})
}

func TestApplyPatchDoesNotInjectDefaults(t *testing.T) {
	out, _ := apply(t, model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open"}, Patch: obj(t, `{"estimate": 2}`)})
	wantFields(t, out, map[string]any{"status": "open", "estimate": num("2")})
}

func TestApplyFailingDefaultIsDroppedAndNamed(t *testing.T) {
	schema := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"open"}, Default: "open"},
		model.FieldDef{Key: "priority", Type: "select", Options: []string{"low", "high"}, Default: "medium"},
		model.FieldDef{Key: "due", Type: "date", Default: "soon"},
		model.FieldDef{Key: "owner", Type: "relation", Collection: "people", Default: "nobody"},
	)
	out, warn := apply(t, model.FieldWrite{Schema: schema, Create: true, Resolver: newFakeResolver()})
	wantFields(t, out, map[string]any{"status": "open"})
	if want := []string{"priority", "due", "owner"}; !reflect.DeepEqual(warn.DroppedFields, want) {
		t.Fatalf("DroppedFields = %q, want %q", warn.DroppedFields, want)
	}
}

func TestApplyFailingDefaultOnRequiredFieldRefuses(t *testing.T) {
	schema := fields(model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}, Default: "todo", Required: true})
	out, _, err := model.FieldWrite{Schema: schema, Create: true}.Apply()
	if out != nil {
		t.Fatalf("refusal returned fields %v", out)
	}
	wantInvalid(t, err, map[string]any{"field": "status", "reason": model.ReasonRequired})
	wantMessage(t, err, `field "status" is required and its schema default todo is not a valid value`)
	// Sending a value avoids the bad default.
	out, _ = apply(t, model.FieldWrite{Schema: schema, Create: true, Patch: map[string]any{"status": "done"}})
	wantFields(t, out, map[string]any{"status": "done"})
}

func TestApplyRequiredWithoutDefault(t *testing.T) {
	schema := fields(model.FieldDef{Key: "owner", Type: "text", Required: true})
	_, _, err := model.FieldWrite{Schema: schema, Create: true}.Apply()
	wantInvalid(t, err, map[string]any{"field": "owner", "reason": model.ReasonRequired})
	wantMessage(t, err, `field "owner" is required`)
	// A blank default is no default: the required field is still refused.
	schema = fields(model.FieldDef{Key: "stage", Type: "select", Options: []string{"a"}, Default: "", Required: true})
	out, _, err := model.FieldWrite{Schema: schema, Create: true}.Apply()
	if out != nil {
		t.Fatalf("required field with a blank default stored %v", out)
	}
	wantInvalid(t, err, map[string]any{"field": "stage", "reason": model.ReasonRequired})
}

func TestApplyUndeclaredKeys(t *testing.T) {
	out, warn := apply(t, model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open"},
		Patch: obj(t, `{"zeta": 1, "alpha": "x", "status": "done", "mid": {"a": [1]}}`)})
	wantFields(t, out, map[string]any{"status": "done", "zeta": num("1"), "alpha": "x", "mid": map[string]any{"a": []any{num("1")}}})
	if want := []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(warn.UndeclaredFields, want) {
		t.Fatalf("UndeclaredFields = %q, want %q (sorted)", warn.UndeclaredFields, want)
	}
	// A null for an undeclared key removes it.
	out, warn = apply(t, model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open", "legacy": "x"},
		Patch: map[string]any{"legacy": nil}})
	wantFields(t, out, map[string]any{"status": "open"})
	if !reflect.DeepEqual(warn.UndeclaredFields, []string{"legacy"}) {
		t.Fatalf("UndeclaredFields = %q", warn.UndeclaredFields)
	}
	// A stored undeclared key a patch does not name is neither reported nor lost.
	out, warn = apply(t, model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open", "legacy": "x"},
		Patch: map[string]any{"status": "done"}})
	wantFields(t, out, map[string]any{"status": "done", "legacy": "x"})
	if len(warn.UndeclaredFields) != 0 {
		t.Fatalf("UndeclaredFields = %q", warn.UndeclaredFields)
	}
}

func TestApplyRefuseUndeclared(t *testing.T) {
	_, _, err := model.FieldWrite{Schema: taskSchema, Create: true, RefuseUndeclared: true,
		Patch: map[string]any{"zeta": "1", "alpha": "2", "status": "open"}}.Apply()
	e := wantInvalid(t, err, map[string]any{"reason": model.ReasonUndeclared, "fields": []string{"alpha", "zeta"}})
	wantMessage(t, e, "undeclared field keys refused (refuse_undeclared_fields): alpha, zeta")
	// For a patch only the patched keys count, not stored undeclared ones.
	out, _ := apply(t, model.FieldWrite{Schema: taskSchema, RefuseUndeclared: true,
		Stored: map[string]any{"status": "open", "legacy": "x"}, Patch: map[string]any{"status": "done"}})
	wantFields(t, out, map[string]any{"status": "done", "legacy": "x"})
	// For a full blob the whole blob counts.
	_, _, err = model.FieldWrite{Schema: taskSchema, RefuseUndeclared: true,
		Stored: map[string]any{"status": "open", "legacy": "x"}, Full: map[string]any{"status": "open", "legacy": "x"}}.Apply()
	wantInvalid(t, err, map[string]any{"reason": model.ReasonUndeclared, "fields": []string{"legacy"}})
}

func TestApplyReservedKeysRefused(t *testing.T) {
	for _, k := range model.ReservedFields() {
		for _, mode := range []string{"create", "patch", "full-new"} {
			w := model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open"}}
			val := map[string]any{"status": "open", k: map[string]any{"x": "y"}}
			switch mode {
			case "create":
				w.Stored, w.Create, w.Patch = nil, true, val
			case "patch":
				w.Patch = val
			case "full-new":
				w.Full = val
			}
			out, warn, err := w.Apply()
			if out != nil {
				t.Errorf("%s %s: stored %v", mode, k, out)
			}
			if k == model.FieldGitHubPR && mode == "full-new" {
				// A full write may link a pull request; this one is no link.
				wantInvalid(t, err, map[string]any{"field": k, "reason": model.ReasonWrongType})
			} else {
				wantInvalid(t, err, map[string]any{"field": k, "reason": model.ReasonReserved})
				wantMessage(t, err, "reserved system metadata")
			}
			for _, u := range warn.UndeclaredFields {
				if model.IsReservedField(u) {
					t.Errorf("%s: reserved key %q in undeclared_fields", mode, u)
				}
			}
		}
	}
	// Also refused when the patch carries the stored value unchanged, and
	// even under refuse_undeclared (reserved wins over undeclared).
	stored := map[string]any{"status": "open", "github_pr": map[string]any{"number": num("4")}}
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored, RefuseUndeclared: true,
		Patch: map[string]any{"github_pr": map[string]any{"number": num("4")}}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "github_pr", "reason": model.ReasonReserved})
}

// Pad's CLI links a pull request by writing an item's fields back with
// github_pr added (`pad github link`) and unlinks by writing them back
// without it (`pad github unlink`): a full write may set, change and
// drop the link, checked as link-pr checks it; the other reserved keys
// stay guarded.
func TestApplyFullWritesThePullRequestLink(t *testing.T) {
	notes := []any{map[string]any{"summary": "s"}}
	pr := map[string]any{"number": num("42"), "url": "https://github.com/o/r/pull/42", "state": "OPEN"}
	stored := map[string]any{"status": "open", "implementation_notes": notes}
	out, _ := apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored,
		Full: map[string]any{"status": "open", "implementation_notes": notes, "github_pr": pr}})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium", "implementation_notes": notes, "github_pr": pr})

	linked := map[string]any{"status": "open", "implementation_notes": notes, "github_pr": pr}
	merged := map[string]any{"number": num("42"), "url": "https://github.com/o/r/pull/42", "state": "MERGED"}
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Stored: linked,
		Full: map[string]any{"status": "open", "implementation_notes": notes, "github_pr": merged}})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium", "implementation_notes": notes, "github_pr": merged})

	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Stored: linked,
		Full: map[string]any{"status": "open", "implementation_notes": notes}})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium", "implementation_notes": notes})

	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored,
		Full: map[string]any{"status": "open", "implementation_notes": notes, "github_pr": map[string]any{"number": num("1"), "url": "/pull/1"}}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "github_pr", "reason": model.ReasonWrongType})
	// Dropping the notes in the same write is still refused.
	_, _, err = model.FieldWrite{Schema: taskSchema, Stored: linked, Full: map[string]any{"status": "open"}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "implementation_notes", "reason": model.ReasonReserved})
}

func TestApplyFullCarriesReservedKeysUnchanged(t *testing.T) {
	notes := []any{map[string]any{"summary": "s", "n": num("1")}}
	stored := map[string]any{"status": "open", "estimate": num("3"), "implementation_notes": notes, "legacy": "x"}
	// Carried unchanged (compared as decoded JSON: 1 == 1.0): kept, never warned about.
	out, warn := apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored,
		Full: obj(t, `{"status": "done", "implementation_notes": [{"summary": "s", "n": 1.0}]}`)})
	wantFields(t, out, map[string]any{"status": "done", "priority": "medium", "implementation_notes": notes})
	if !reflect.DeepEqual(out["implementation_notes"], notes) {
		t.Fatalf("reserved key not kept as stored: %#v", out["implementation_notes"])
	}
	if len(warn.UndeclaredFields) != 0 || len(warn.DroppedFields) != 0 {
		t.Fatalf("warnings %+v", warn)
	}
	// Omitting a stored reserved key would delete it: refused.
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored, Full: map[string]any{"status": "done"}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "implementation_notes", "reason": model.ReasonReserved})
	wantMessage(t, err, `full fields would delete the reserved key "implementation_notes"`)
	// Two omitted: the refusal names the same one every time.
	two := map[string]any{"status": "open", "github_pr": map[string]any{}, "decision_log": []any{}}
	for range 20 {
		_, _, err := model.FieldWrite{Schema: taskSchema, Stored: two, Full: map[string]any{"status": "open"}}.Apply()
		wantInvalid(t, err, map[string]any{"field": "decision_log", "reason": model.ReasonReserved})
	}
	// Changing it: refused.
	_, _, err = model.FieldWrite{Schema: taskSchema, Stored: stored,
		Full: obj(t, `{"status": "done", "implementation_notes": []}`)}.Apply()
	wantInvalid(t, err, map[string]any{"field": "implementation_notes", "reason": model.ReasonReserved})
	wantMessage(t, err, "cannot be changed through fields")
}

// A note or a decision appended the way Pad's own clients append one
// (the whole fields written back with the entry added after the stored
// ones) is kept as written; any other change to the list is refused.
func TestApplyFullAppendsEntries(t *testing.T) {
	first := map[string]any{"id": "n1", "summary": "first", "created_by": "user"}
	stored := map[string]any{"status": "open", "implementation_notes": []any{first}}
	added := map[string]any{"id": "n2", "summary": "second", "details": "d", "created_at": "2026-12-07T18:00:00Z", "created_by": "agent", "agent": "claude"}
	out, _ := apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored,
		Full: map[string]any{"status": "open", "implementation_notes": []any{first, added}}})
	if want := []any{first, added}; !reflect.DeepEqual(out["implementation_notes"], want) {
		t.Errorf("notes %#v, want %#v", out["implementation_notes"], want)
	}
	// A first decision on an item that has none.
	dec := map[string]any{"id": "d1", "decision": "keep it", "rationale": "works"}
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored,
		Full: map[string]any{"status": "open", "implementation_notes": []any{first}, "decision_log": []any{dec}}})
	if !reflect.DeepEqual(out["decision_log"], []any{dec}) {
		t.Errorf("decisions %#v", out["decision_log"])
	}
	for name, notes := range map[string]any{
		"edited":             []any{map[string]any{"id": "n1", "summary": "changed"}, added},
		"removed":            []any{added},
		"inserted before":    []any{added, first},
		"entry without text": []any{first, map[string]any{"id": "n3", "details": "no summary"}},
		"emptied":            []any{},
	} {
		_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored,
			Full: map[string]any{"status": "open", "implementation_notes": notes}}.Apply()
		wantInvalid(t, err, map[string]any{"field": "implementation_notes", "reason": model.ReasonReserved})
		if err == nil {
			t.Errorf("%s: taken", name)
		}
	}
	// Through a patch it is still refused: a patch is a user's field write.
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored,
		Patch: map[string]any{"implementation_notes": []any{first, added}}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "implementation_notes", "reason": model.ReasonReserved})
}

func TestApplyFullReplaces(t *testing.T) {
	stored := map[string]any{"status": "open", "priority": "high", "estimate": num("3"), "legacy": "x"}
	out, warn := apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored, Full: map[string]any{"status": "done", "legacy": "x"}})
	// Keys left out are gone; defaults fill declared gaps, as on create.
	wantFields(t, out, map[string]any{"status": "done", "priority": "medium", "legacy": "x"})
	if !reflect.DeepEqual(warn.UndeclaredFields, []string{"legacy"}) {
		t.Fatalf("UndeclaredFields = %q", warn.UndeclaredFields)
	}
}

func TestApplyPatchAndFullAreExclusive(t *testing.T) {
	_, _, err := model.FieldWrite{Schema: taskSchema, Patch: map[string]any{}, Full: map[string]any{}}.Apply()
	wantErr(t, err, model.CodeBadRequest, 400, nil)
}

func TestApplyRemovedOptions(t *testing.T) {
	// "cancelled" was an option once; the schema no longer lists it.
	stored := map[string]any{"status": "cancelled", "tags": []any{"x"}, "estimate": num("1")}
	narrowed := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}, Required: true},
		model.FieldDef{Key: "tags", Type: "multi_select", Options: []string{"y"}},
		model.FieldDef{Key: "estimate", Type: "number"},
	)
	// A patch of other keys keeps the stored values.
	out, _ := apply(t, model.FieldWrite{Schema: narrowed, Stored: stored, Patch: map[string]any{"estimate": num("2")}})
	wantFields(t, out, map[string]any{"status": "cancelled", "tags": []any{"x"}, "estimate": num("2")})
	// A patch setting a removed option is refused, even to its stored value.
	_, _, err := model.FieldWrite{Schema: narrowed, Stored: stored, Patch: map[string]any{"status": "cancelled"}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "status", "reason": model.ReasonNotAnOption})
	wantMessage(t, err, `field "status" value "cancelled" is not in allowed options [open done]`)
	// A full blob that carries one is refused.
	_, _, err = model.FieldWrite{Schema: narrowed, Stored: stored, Full: map[string]any{"status": "open", "tags": []any{"x"}, "estimate": num("1")}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "tags", "reason": model.ReasonNotAnOption})
	// Moving off the removed option is fine.
	out, _ = apply(t, model.FieldWrite{Schema: narrowed, Stored: stored, Patch: map[string]any{"status": "done"}})
	wantFields(t, out, map[string]any{"status": "done", "tags": []any{"x"}, "estimate": num("1")})
}

func TestApplyClears(t *testing.T) {
	stored := map[string]any{"status": "open", "priority": "high", "estimate": num("3"), "tags": []any{"a"},
		"owner": "id-ann", "reviewers": []any{"id-bob"}, "due": "2024-01-01"}
	tests := []struct {
		key string
		v   any
	}{
		{"priority", nil},
		{"priority", ""},
		{"estimate", nil},
		{"tags", []any{}},
		{"tags", nil},
		{"owner", ""},
		{"owner", "   "}, // whitespace clears a relation
		{"owner", nil},
		{"reviewers", []any{}},
		{"due", ""},
	}
	for _, tt := range tests {
		out, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored, Resolver: newFakeResolver(),
			Patch: map[string]any{tt.key: tt.v}}.Apply()
		if err != nil {
			t.Errorf("clear %s=%#v: %v", tt.key, tt.v, err)
			continue
		}
		if _, has := out[tt.key]; has {
			t.Errorf("clear %s=%#v: key still present: %#v", tt.key, tt.v, out[tt.key])
		}
		if len(out) != len(stored)-1 {
			t.Errorf("clear %s=%#v: other keys changed: %v", tt.key, tt.v, out)
		}
	}
	// Whitespace is not a clear for a select: it is a value, and not an option.
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored, Patch: map[string]any{"priority": " "}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "priority", "reason": model.ReasonNotAnOption})
}

func TestApplyRequiredCannotBeEmptied(t *testing.T) {
	schema := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"open"}, Required: true, Default: "open"},
		model.FieldDef{Key: "owner", Type: "relation", Collection: "people", Required: true},
		model.FieldDef{Key: "reviewers", Type: "multi_relation", Collection: "people", Required: true},
	)
	stored := map[string]any{"status": "open", "owner": "id-ann", "reviewers": []any{"id-ann"}}
	for _, tt := range []struct {
		key string
		v   any
	}{{"status", ""}, {"status", nil}, {"owner", " "}, {"owner", nil}, {"reviewers", []any{}}} {
		out, _, err := model.FieldWrite{Schema: schema, Stored: stored, Patch: map[string]any{tt.key: tt.v}}.Apply()
		if out != nil {
			t.Errorf("%s=%#v stored %v", tt.key, tt.v, out)
		}
		wantInvalid(t, err, map[string]any{"field": tt.key, "reason": model.ReasonRequired})
		wantMessage(t, err, "is required and cannot be emptied")
	}
}

func TestApplyComputedDroppedAndReported(t *testing.T) {
	stored := map[string]any{"status": "open", "progress": num("40")}
	out, warn := apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored, Patch: obj(t, `{"progress": 90, "estimate": 1}`)})
	wantFields(t, out, map[string]any{"status": "open", "progress": num("40"), "estimate": num("1")})
	if !reflect.DeepEqual(warn.DroppedFields, []string{"progress"}) {
		t.Fatalf("DroppedFields = %q", warn.DroppedFields)
	}
	// On create too, and a computed field gets no default.
	schema := fields(model.FieldDef{Key: "score", Type: "number", Computed: true, Default: num("1")})
	out, warn = apply(t, model.FieldWrite{Schema: schema, Create: true, Patch: obj(t, `{"score": "not even a number"}`)})
	if len(out) != 0 || !reflect.DeepEqual(warn.DroppedFields, []string{"score"}) {
		t.Fatalf("out %v, DroppedFields %q", out, warn.DroppedFields)
	}
}

func TestApplyTypeErrors(t *testing.T) {
	_, _, err := model.FieldWrite{Schema: taskSchema, Create: true,
		Patch: obj(t, `{"estimate": "three", "due": "tomorrow", "status": "open"}`)}.Apply()
	e := wantInvalid(t, err, map[string]any{"field": "due", "reason": model.ReasonInvalidDate})
	issues, ok := e.Details["issues"].([]*model.FieldIssue)
	if !ok || len(issues) != 2 || issues[0].Key != "due" || issues[1].Key != "estimate" || issues[1].Reason != model.ReasonWrongType {
		t.Fatalf("issues = %#v", e.Details["issues"])
	}
	wantMessage(t, err, "field validation failed: ", `field "due" has invalid date "tomorrow"`, `field "estimate" must be a number`)
	// One issue: no issues list.
	_, _, err = model.FieldWrite{Schema: taskSchema, Create: true, Patch: map[string]any{"estimate": "x"}}.Apply()
	e = wantInvalid(t, err, map[string]any{"field": "estimate", "reason": model.ReasonWrongType})
	if _, has := e.Details["issues"]; has {
		t.Fatalf("single issue carries an issues list: %v", e.Details)
	}
}

func TestApplyBadKey(t *testing.T) {
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: map[string]any{}, Patch: map[string]any{"bad key": "x"}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "bad key"})
	wantMessage(t, err, "may contain only letters")
}

func TestApplyRelations(t *testing.T) {
	res := newFakeResolver()
	out, _ := apply(t, model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open"}, Resolver: res,
		Patch: map[string]any{"owner": " Ann ", "reviewers": []any{"PEOP-2", "Ann"}}})
	wantFields(t, out, map[string]any{"status": "open", "owner": "id-ann", "reviewers": []any{"id-bob", "id-ann"}})
	// Values are trimmed before lookup, in the declared collection.
	if !reflect.DeepEqual(res.calls, []string{"people/Ann", "people/PEOP-2", "people/Ann"}) {
		t.Fatalf("resolver calls = %q", res.calls)
	}
	// Without a resolver, values are kept (trimmed).
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Stored: map[string]any{"status": "open"},
		Patch: map[string]any{"owner": " Ann ", "reviewers": []string{"a", "b"}}})
	wantFields(t, out, map[string]any{"status": "open", "owner": "Ann", "reviewers": []any{"a", "b"}})
}

func TestApplyRelationRefusals(t *testing.T) {
	noTarget := fields(
		model.FieldDef{Key: "owner", Type: "relation"},
		model.FieldDef{Key: "reviewers", Type: "multi_relation"},
	)
	tests := []struct {
		name    string
		schema  model.Schema
		stored  map[string]any
		patch   map[string]any
		details map[string]any
		message string
	}{
		{"relation not_found", taskSchema, nil, map[string]any{"owner": "Zed"},
			map[string]any{"field": "owner", "reason": model.ReasonNotFound},
			`field "owner" value "Zed" names no live item in collection "people" (give an id, a ref, or an exact title)`},
		{"relation ambiguous", taskSchema, nil, map[string]any{"owner": "Sam"},
			map[string]any{"field": "owner", "reason": model.ReasonAmbiguous},
			`field "owner" value "Sam" matches more than one item in "people" by title; use its ref`},
		{"unknown resolver reason collapses to not_found", taskSchema, nil, map[string]any{"owner": "odd"},
			map[string]any{"field": "owner", "reason": model.ReasonNotFound}, "names no live item"},
		{"relation target_missing", noTarget, nil, map[string]any{"owner": "Ann"},
			map[string]any{"field": "owner", "reason": model.ReasonTargetMissing},
			`field "owner" is a relation with no target collection`},
		{"multi target_missing", noTarget, nil, map[string]any{"reviewers": []any{"Ann"}},
			map[string]any{"field": "reviewers", "reason": model.ReasonTargetMissing},
			`field "reviewers" is a multi_relation with no target collection`},
		{"multi not_found names index", taskSchema, nil, map[string]any{"reviewers": []any{"Ann", "lost"}},
			map[string]any{"field": "reviewers", "reason": model.ReasonNotFound, "index": 1}, `value "lost"`},
		{"multi ambiguous names index", taskSchema, nil, map[string]any{"reviewers": []any{"Sam"}},
			map[string]any{"field": "reviewers", "reason": model.ReasonAmbiguous, "index": 0}, "more than one item"},
		{"multi duplicate referent names the second", taskSchema, nil, map[string]any{"reviewers": []any{"Bob", "Ann", "PEOP-1"}},
			map[string]any{"field": "reviewers", "reason": model.ReasonDuplicateReferent, "index": 2},
			`field "reviewers" element 2 ("PEOP-1") names the same item as an earlier element`},
		{"multi literal duplicate", taskSchema, nil, map[string]any{"reviewers": []any{"Ann", " Ann"}},
			map[string]any{"field": "reviewers", "reason": model.ReasonDuplicateReferent, "index": 1}, "same item"},
		{"multi blank element", taskSchema, nil, map[string]any{"reviewers": []any{"Ann", " "}},
			map[string]any{"field": "reviewers", "reason": model.ReasonEmptyElement, "index": 1}, "element 1 is empty"},
		{"relation wrong type", taskSchema, nil, map[string]any{"owner": []any{"Ann"}},
			map[string]any{"field": "owner", "reason": model.ReasonWrongType}, "must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := tt.stored
			if stored == nil {
				stored = map[string]any{}
			}
			out, _, err := model.FieldWrite{Schema: tt.schema, Stored: stored, Patch: tt.patch, Resolver: newFakeResolver()}.Apply()
			if out != nil {
				t.Errorf("refusal returned fields %v", out)
			}
			wantInvalid(t, err, tt.details)
			wantMessage(t, err, tt.message)
		})
	}
}

func TestApplyRelationDuplicatesWithoutResolver(t *testing.T) {
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: map[string]any{},
		Patch: map[string]any{"reviewers": []any{"a", "b", "a"}}}.Apply()
	wantInvalid(t, err, map[string]any{"reason": model.ReasonDuplicateReferent, "index": 2})
}

func TestApplyStoredRelationsAreNeverRefused(t *testing.T) {
	// "gone" no longer resolves, but the caller did not send it: it was stored.
	res := newFakeResolver()
	stored := map[string]any{"status": "open", "owner": "gone", "reviewers": []any{"gone-1", "gone-2"}}
	out, _ := apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored, Resolver: res,
		Full: map[string]any{"status": "open", "owner": "gone", "reviewers": []any{"gone-1", "gone-2"}}})
	wantFields(t, out, map[string]any{"status": "open", "priority": "medium", "owner": "gone", "reviewers": []any{"gone-1", "gone-2"}})
	out, _ = apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored, Resolver: res, Patch: map[string]any{"estimate": num("1")}})
	wantFields(t, out, map[string]any{"status": "open", "owner": "gone", "reviewers": []any{"gone-1", "gone-2"}, "estimate": num("1")})
	if len(res.calls) != 0 {
		t.Fatalf("stored values were looked up: %q", res.calls)
	}
	// A different value is resolved, and refused when it does not resolve.
	_, _, err := model.FieldWrite{Schema: taskSchema, Stored: stored, Resolver: res, Patch: map[string]any{"owner": "gone2"}}.Apply()
	wantInvalid(t, err, map[string]any{"field": "owner", "reason": model.ReasonNotFound})
}

func TestApplyRelationDefault(t *testing.T) {
	schema := fields(model.FieldDef{Key: "project", Type: "relation", Collection: "tasks", Default: "Write the README"})
	out, warn := apply(t, model.FieldWrite{Schema: schema, Create: true, Resolver: newFakeResolver()})
	wantFields(t, out, map[string]any{"project": "id-task-1"})
	if !warn.Empty() {
		t.Fatalf("warnings %+v", warn)
	}
	// A relation default that no longer resolves on a required field refuses, naming it.
	schema.Fields[0].Required = true
	schema.Fields[0].Default = "Gone Task"
	_, _, err := model.FieldWrite{Schema: schema, Create: true, Resolver: newFakeResolver()}.Apply()
	wantInvalid(t, err, map[string]any{"field": "project", "reason": model.ReasonRequired})
	wantMessage(t, err, "schema default Gone Task is not a valid value")
}

func TestApplyDoesNotMutateInputs(t *testing.T) {
	stored := map[string]any{"status": "open", "estimate": num("1")}
	patch := map[string]any{"estimate": nil, "priority": "high"}
	apply(t, model.FieldWrite{Schema: taskSchema, Stored: stored, Patch: patch})
	if !reflect.DeepEqual(stored, map[string]any{"status": "open", "estimate": num("1")}) {
		t.Fatalf("stored mutated: %v", stored)
	}
	if !reflect.DeepEqual(patch, map[string]any{"estimate": nil, "priority": "high"}) {
		t.Fatalf("patch mutated: %v", patch)
	}
}

func TestWarningsEmpty(t *testing.T) {
	if !(model.Warnings{}).Empty() {
		t.Fatal("zero Warnings not empty")
	}
	for _, w := range []model.Warnings{
		{UndeclaredFields: []string{"x"}}, {DroppedFields: []string{"x"}}, {NotUnique: []model.NotUnique{{Key: "k"}}},
		{UnguardedContentWrite: true}, {Orphaned: []model.Orphan{{Field: "f"}}},
	} {
		if w.Empty() {
			t.Errorf("%+v reads as empty", w)
		}
	}
}
