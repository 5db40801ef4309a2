package model_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func TestValidateValue(t *testing.T) {
	sel := model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}}
	freeSel := model.FieldDef{Key: "kind", Type: "select"}
	multi := model.FieldDef{Key: "tags", Type: "multi_select", Options: []string{"a", "b"}}
	freeMulti := model.FieldDef{Key: "labels", Type: "multi_select"}
	tests := []struct {
		name   string
		def    model.FieldDef
		v      any
		reason string // "" means valid
		index  *int
	}{
		{"text", model.FieldDef{Key: "t", Type: "text"}, "hi", "", nil},
		{"text empty", model.FieldDef{Key: "t", Type: "text"}, "", "", nil},
		{"text number", model.FieldDef{Key: "t", Type: "text"}, num("1"), model.ReasonWrongType, nil},
		{"untyped is text", model.FieldDef{Key: "t"}, true, model.ReasonWrongType, nil},
		{"unknown type passes", model.FieldDef{Key: "t", Type: "blob"}, true, "", nil},

		{"number json", model.FieldDef{Key: "n", Type: "number"}, num("9007199254740993"), "", nil},
		{"number float", model.FieldDef{Key: "n", Type: "number"}, 3.5, "", nil},
		{"number int", model.FieldDef{Key: "n", Type: "number"}, 3, "", nil},
		{"number string", model.FieldDef{Key: "n", Type: "number"}, "3", model.ReasonWrongType, nil},
		{"number bad literal", model.FieldDef{Key: "n", Type: "number"}, num("0x10"), model.ReasonWrongType, nil},
		{"number NaN", model.FieldDef{Key: "n", Type: "number"}, math.NaN(), model.ReasonWrongType, nil},
		{"number Inf", model.FieldDef{Key: "n", Type: "number"}, math.Inf(1), model.ReasonWrongType, nil},

		{"checkbox", model.FieldDef{Key: "c", Type: "checkbox"}, false, "", nil},
		{"checkbox string", model.FieldDef{Key: "c", Type: "checkbox"}, "true", model.ReasonWrongType, nil},

		{"url", model.FieldDef{Key: "u", Type: "url"}, "https://example.com/x", "", nil},
		{"url empty", model.FieldDef{Key: "u", Type: "url"}, "", "", nil},
		{"url relative", model.FieldDef{Key: "u", Type: "url"}, "/x/y", model.ReasonInvalidURL, nil},
		{"url no host", model.FieldDef{Key: "u", Type: "url"}, "mailto:me", model.ReasonInvalidURL, nil},
		{"url number", model.FieldDef{Key: "u", Type: "url"}, num("1"), model.ReasonWrongType, nil},

		{"date", model.FieldDef{Key: "d", Type: "date"}, "2024-02-29", "", nil},
		{"date rfc3339", model.FieldDef{Key: "d", Type: "date"}, "2024-02-29T10:00:00Z", "", nil},
		{"date empty", model.FieldDef{Key: "d", Type: "date"}, "", "", nil},
		{"date impossible", model.FieldDef{Key: "d", Type: "date"}, "2023-02-29", model.ReasonInvalidDate, nil},
		{"date format", model.FieldDef{Key: "d", Type: "date"}, "29/02/2024", model.ReasonInvalidDate, nil},
		{"date number", model.FieldDef{Key: "d", Type: "date"}, num("20240229"), model.ReasonWrongType, nil},

		{"select", sel, "open", "", nil},
		{"select not option", sel, "closed", model.ReasonNotAnOption, nil},
		{"select case", sel, "Open", model.ReasonNotAnOption, nil},
		{"select padded", sel, " open", model.ReasonNotAnOption, nil},
		{"select empty", sel, "", "", nil},
		{"select no options", freeSel, "anything", "", nil},
		{"select list", sel, []any{"open"}, model.ReasonWrongType, nil},

		{"multi", multi, []any{"a", "b"}, "", nil},
		{"multi strings", multi, []string{"a"}, "", nil},
		{"multi empty list", multi, []any{}, "", nil},
		{"multi not option", multi, []any{"a", "c"}, model.ReasonNotAnOption, nil},
		{"multi empty element", multi, []any{"a", " "}, model.ReasonEmptyElement, intp(1)},
		{"multi free", freeMulti, []any{"x", "y"}, "", nil},
		{"multi free empty element", freeMulti, []any{""}, model.ReasonEmptyElement, intp(0)},
		{"multi mixed", freeMulti, []any{"x", num("1")}, model.ReasonWrongType, nil},
		{"multi string", multi, "a", model.ReasonWrongType, nil},

		{"relation", model.FieldDef{Key: "r", Type: "relation", Collection: "tasks"}, "TASK-1", "", nil},
		{"relation number", model.FieldDef{Key: "r", Type: "relation"}, num("1"), model.ReasonWrongType, nil},
		{"multi_relation", model.FieldDef{Key: "r", Type: "multi_relation"}, []any{"TASK-1", "x"}, "", nil},
		{"multi_relation blank element", model.FieldDef{Key: "r", Type: "multi_relation"}, []any{"TASK-1", "  "}, model.ReasonEmptyElement, intp(1)},
		{"multi_relation string", model.FieldDef{Key: "r", Type: "multi_relation"}, "TASK-1", model.ReasonWrongType, nil},

		{"json object", model.FieldDef{Key: "j", Type: "json"}, map[string]any{"a": num("1")}, "", nil},
		{"json array", model.FieldDef{Key: "j", Type: "json"}, []any{}, "", nil},
		{"json null", model.FieldDef{Key: "j", Type: "json"}, nil, "", nil},
		{"json scalar", model.FieldDef{Key: "j", Type: "json"}, "x", model.ReasonWrongType, nil},

		{"pattern ok", model.FieldDef{Key: "s", Type: "text", Pattern: model.InvocationSlugPattern}, "run-tests", "", nil},
		{"pattern bad", model.FieldDef{Key: "s", Type: "text", Pattern: model.InvocationSlugPattern}, "Run Tests", model.ReasonPatternMismatch, nil},
		{"pattern empty skipped", model.FieldDef{Key: "s", Type: "text", Pattern: model.InvocationSlugPattern}, "", "", nil},
		{"pattern invalid", model.FieldDef{Key: "s", Type: "text", Pattern: "("}, "x", model.ReasonPatternMismatch, nil},
	}
	for _, tt := range tests {
		is := model.ValidateValue(tt.def, tt.v)
		if tt.reason == "" {
			if is != nil {
				t.Errorf("%s: unexpected issue %+v", tt.name, is)
			}
			continue
		}
		if is == nil {
			t.Errorf("%s: want %s, got valid", tt.name, tt.reason)
			continue
		}
		if is.Reason != tt.reason || is.Key != tt.def.Key || is.Message == "" {
			t.Errorf("%s: got %+v, want reason %s on %q", tt.name, is, tt.reason, tt.def.Key)
		}
		if !reflect.DeepEqual(is.Index, tt.index) {
			t.Errorf("%s: index %v, want %v", tt.name, is.Index, tt.index)
		}
	}
}

func TestValidateValueMessages(t *testing.T) {
	sel := model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}}
	is := model.ValidateValue(sel, "closed")
	if is.Message != `field "status" value "closed" is not in allowed options [open done]` {
		t.Errorf("select message %q", is.Message)
	}
	is = model.ValidateValue(model.FieldDef{Key: "tags", Type: "multi_select"}, []any{"a", ""})
	if is.Message != `field "tags" element 1 is empty` {
		t.Errorf("empty element message %q", is.Message)
	}
}

func TestValidDate(t *testing.T) {
	for s, want := range map[string]bool{
		"2024-01-31": true, "2024-12-01T00:00:00+02:00": true,
		"2024-1-31": false, "2024-13-01": false, "2024-04-31": false, "": false, "today": false,
	} {
		if got := model.ValidDate(s); got != want {
			t.Errorf("ValidDate(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsNumber(t *testing.T) {
	for _, v := range []any{num("0"), num("-1.5e10"), num("1e400"), num("9007199254740993"), 1.5, float32(1), 1, int64(1), int32(1), uint64(1)} {
		if !model.IsNumber(v) {
			t.Errorf("IsNumber(%#v) = false", v)
		}
	}
	// Only JSON's number grammar: anything else could not be written back out.
	for _, v := range []any{num(""), num("+1"), num(".5"), num("5."), num("01"), num("0x10"), num("1_0"), num("Inf"), num("NaN"), num("1/2"),
		math.NaN(), math.Inf(-1), "1", true, nil} {
		if model.IsNumber(v) {
			t.Errorf("IsNumber(%#v) = true", v)
		}
	}
}

func TestEqualJSON(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{"a", "a", true},
		{"a", "b", false},
		{true, true, true},
		{true, "true", false},
		{num("3"), num("3.0"), true},
		{num("3"), 3.0, true},
		{3, num("3e0"), true},
		{num("300"), num("3e2"), true},
		{num("0.1"), 0.1, false}, // 0.1 as a float64 is not exactly 1/10
		{num("9007199254740993"), num("9007199254740992"), false},
		{num("9007199254740993"), float64(9007199254740992), false},
		{num("9007199254740993"), num("9007199254740993.0"), true},
		{num("1e999999999"), num("1e999999999"), true}, // same literal, past big.Rat's reach
		{num("3"), "3", false},
		{nil, num("0"), false},
		{[]any{"a", num("1")}, []any{"a", num("1.0")}, true},
		{[]any{"a"}, []any{"a", "b"}, false},
		{[]any{"b", "a"}, []any{"a", "b"}, false},
		{[]any{"a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []any{"a", "b"}, true},
		{[]string{"a"}, []any{"a", "b"}, false},
		{[]any{}, []string{}, true},
		{map[string]any{"x": num("1"), "y": []any{nil}}, map[string]any{"y": []any{nil}, "x": 1.0}, true},
		{map[string]any{"x": num("1")}, map[string]any{"x": num("2")}, false},
		{map[string]any{"x": nil}, map[string]any{"y": nil}, false},
		{map[string]any{}, []any{}, false},
	}
	for _, tt := range tests {
		if got := model.EqualJSON(tt.a, tt.b); got != tt.want {
			t.Errorf("EqualJSON(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := model.EqualJSON(tt.b, tt.a); got != tt.want {
			t.Errorf("EqualJSON(%#v, %#v) (swapped) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	v := decode(t, `{"n": 9007199254740993, "f": 1.50, "a": [true, null]}`)
	m := v.(map[string]any)
	if m["n"] != num("9007199254740993") || m["f"] != num("1.50") {
		t.Fatalf("numbers not kept exactly: %#v", m)
	}
	for _, bad := range []string{``, `{`, `{} {}`, `1 2`, `nul`, `1 ]`, `{} }`, `[1]]`, `"a" ,`} {
		if _, err := model.DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("DecodeJSON(%q) succeeded", bad)
		}
	}
	// Trailing whitespace is fine.
	if _, err := model.DecodeJSON([]byte("[1] \n")); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

func TestSplitFieldEntry(t *testing.T) {
	tests := []struct{ entry, key, value string }{
		{"status=open", "status", "open"},
		{"title=  spaced value  ", "title", "  spaced value  "},
		{"expr=a=b==c", "expr", "a=b==c"},
		{"empty=", "empty", ""},
		{"url=https://x.test/?a=1&b=2", "url", "https://x.test/?a=1&b=2"},
		{"weird key!=v", "weird key!", "v"}, // key checks beyond padding are the write's job
		{"k=line1\nline2", "k", "line1\nline2"},
	}
	for _, tt := range tests {
		k, v, err := model.SplitFieldEntry(tt.entry)
		if err != nil || k != tt.key || v != tt.value {
			t.Errorf("SplitFieldEntry(%q) = %q, %q, %v; want %q, %q", tt.entry, k, v, err, tt.key, tt.value)
		}
	}
}

func TestSplitFieldEntryRefuses(t *testing.T) {
	tests := []struct{ entry, message string }{
		{"status", `field entry "status" has no '=': write key=value`},
		{"", `has no '='`},
		{"=open", `has an empty key`},
		{" status=open", `has spaces around its key " status": write status=value`},
		{"status =open", `has spaces around its key "status ": write status=value`},
		{"\tstatus=open", `spaces around its key`},
		{"   =x", `spaces around its key`},
	}
	for _, tt := range tests {
		_, _, err := model.SplitFieldEntry(tt.entry)
		wantInvalid(t, err, map[string]any{"entry": tt.entry})
		wantMessage(t, err, tt.message)
	}
}

func TestCoerceEntryValue(t *testing.T) {
	number := &model.FieldDef{Key: "n", Type: "number"}
	check := &model.FieldDef{Key: "c", Type: "checkbox"}
	multi := &model.FieldDef{Key: "tags", Type: "multi_select"}
	mrel := &model.FieldDef{Key: "owners", Type: "multi_relation"}
	js := &model.FieldDef{Key: "j", Type: "json"}
	text := &model.FieldDef{Key: "t", Type: "text"}
	sel := &model.FieldDef{Key: "s", Type: "select"}
	tests := []struct {
		name string
		def  *model.FieldDef
		raw  string
		want any
	}{
		{"undeclared stays text", nil, " 42 ", " 42 "},
		{"text verbatim", text, "  a, b  ", "  a, b  "},
		{"select verbatim", sel, "open", "open"},
		{"number beyond 2^53", number, "9007199254740993", num("9007199254740993")},
		{"number exact decimal", number, "0.10", num("0.10")},
		{"number exponent", number, "1e400", num("1e400")},
		{"number negative", number, "-3", num("-3")},
		{"number trimmed", number, " 7 ", num("7")},
		{"number empty clears", number, "", nil},
		{"checkbox true", check, "true", true},
		{"checkbox 0", check, " 0 ", false},
		{"multi split", multi, "a, b ,c", []any{"a", "b", "c"}},
		{"multi empty", multi, "", []any{}},
		{"multi keeps empty element", multi, "a,,b", []any{"a", "", "b"}},
		{"multi_relation split", mrel, "TASK-1,TASK-2", []any{"TASK-1", "TASK-2"}},
		{"json object", js, `{"a": 12345678901234567890}`, map[string]any{"a": num("12345678901234567890")}},
		{"json array", js, `[1, "x"]`, []any{num("1"), "x"}},
	}
	for _, tt := range tests {
		got, err := model.CoerceEntryValue(tt.def, tt.raw)
		if err != nil {
			t.Errorf("%s: CoerceEntryValue(%q): %v", tt.name, tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: CoerceEntryValue(%q) = %#v, want %#v", tt.name, tt.raw, got, tt.want)
		}
	}
	// The exact literal survives a JSON round trip.
	v, _ := model.CoerceEntryValue(number, "9007199254740993")
	b, err := json.Marshal(map[string]any{"n": v})
	if err != nil || string(b) != `{"n":9007199254740993}` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
}

func TestCoerceEntryValueRefuses(t *testing.T) {
	number := &model.FieldDef{Key: "n", Type: "number"}
	tests := []struct {
		def *model.FieldDef
		raw string
	}{
		{number, "abc"},
		{number, "1,5"},
		{number, "Inf"},
		{number, "NaN"},
		// Not JSON numbers: the store could not write these back out.
		{number, "0x10"},
		{number, "0x1p4"},
		{number, "+5"},
		{number, ".5"},
		{number, "5."},
		{number, "05"},
		{number, "1_000"},
		{number, "   "},
		{&model.FieldDef{Key: "c", Type: "checkbox"}, "yes"},
		{&model.FieldDef{Key: "c", Type: "checkbox"}, ""},
		{&model.FieldDef{Key: "j", Type: "json"}, "{"},
		{&model.FieldDef{Key: "j", Type: "json"}, "1 2"},
		{&model.FieldDef{Key: "j", Type: "json"}, ""},
	}
	for _, tt := range tests {
		v, err := model.CoerceEntryValue(tt.def, tt.raw)
		if err == nil {
			t.Errorf("CoerceEntryValue(%s, %q) = %#v, want a refusal", tt.def.Type, tt.raw, v)
			continue
		}
		wantInvalid(t, err, map[string]any{"field": tt.def.Key, "reason": model.ReasonWrongType})
	}
}

func TestMergeFieldSources(t *testing.T) {
	schema := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}},
		model.FieldDef{Key: "estimate", Type: "number"},
		model.FieldDef{Key: "tags", Type: "multi_select"},
		model.FieldDef{Key: "urgent", Type: "checkbox"},
	)
	got, err := model.MergeFieldSources(schema,
		obj(t, `{"status": "open", "estimate": 3, "tags": ["a", "b"], "urgent": true, "other": "x"}`),
		[]string{"status=open", "estimate=3.0", "tags=a,b", "urgent=true", "note= keep = me ", "note= keep = me "},
		map[string]any{"status": "open", "estimate": 3.0})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"status": "open", "tags": []any{"a", "b"}, "urgent": true, "other": "x", "note": " keep = me ",
	}
	est := got["estimate"]
	delete(got, "estimate")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged = %#v\nwant %#v", got, want)
	}
	if !model.EqualJSON(est, num("3")) {
		t.Fatalf("estimate = %#v", est)
	}
}

func TestMergeFieldSourcesExactBeyond2p53(t *testing.T) {
	schema := fields(model.FieldDef{Key: "n", Type: "number"})
	got, err := model.MergeFieldSources(schema, nil, []string{"n=9007199254740993"}, nil)
	if err != nil || got["n"] != num("9007199254740993") {
		t.Fatalf("got %#v, %v", got, err)
	}
	got, err = model.MergeFieldSources(schema, obj(t, `{"n": 9007199254740993}`), []string{"n=9007199254740993"}, nil)
	if err != nil || !model.EqualJSON(got["n"], num("9007199254740993")) {
		t.Fatalf("equal big numbers: got %#v, %v", got, err)
	}
	// A difference only past 2^53 is still a conflict.
	_, err = model.MergeFieldSources(schema, obj(t, `{"n": 9007199254740992}`), []string{"n=9007199254740993"}, nil)
	wantInvalid(t, err, map[string]any{"field": "n"})
	// A float64 from a plain decoder cannot equal it either.
	_, err = model.MergeFieldSources(schema, nil, []string{"n=9007199254740993"}, map[string]any{"n": float64(9007199254740992)})
	wantInvalid(t, err, map[string]any{"field": "n"})
}

func TestMergeFieldSourcesRefuses(t *testing.T) {
	schema := fields(
		model.FieldDef{Key: "status", Type: "select"},
		model.FieldDef{Key: "estimate", Type: "number"},
	)
	tests := []struct {
		name      string
		object    map[string]any
		entries   []string
		dedicated map[string]any
		details   map[string]any
		message   string
	}{
		{"object vs entry", map[string]any{"status": "open"}, []string{"status=done"}, nil,
			map[string]any{"field": "status"}, `field "status" is given twice with different values (fields and field status=): send it once`},
		{"entry vs entry", nil, []string{"status=open", "status=done"}, nil,
			map[string]any{"field": "status"}, "given twice"},
		{"entry vs dedicated", nil, []string{"status=open"}, map[string]any{"status": "done"},
			map[string]any{"field": "status"}, "(field status= and status)"},
		{"padded value is a different value", nil, []string{"status=open", "status=open "}, nil,
			map[string]any{"field": "status"}, "given twice"},
		{"number vs string", map[string]any{"estimate": "3"}, []string{"estimate=3"}, nil,
			map[string]any{"field": "estimate"}, "given twice"},
		{"bad entry", nil, []string{"status"}, nil,
			map[string]any{"entry": "status"}, "has no '='"},
		{"padded key", nil, []string{"status =open"}, nil,
			map[string]any{"entry": "status =open"}, "spaces around its key"},
		{"bad number entry", nil, []string{"estimate=lots"}, nil,
			map[string]any{"field": "estimate", "reason": model.ReasonWrongType}, "must be a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := model.MergeFieldSources(schema, tt.object, tt.entries, tt.dedicated)
			if got != nil {
				t.Errorf("refusal returned fields %v", got)
			}
			wantInvalid(t, err, tt.details)
			wantMessage(t, err, tt.message)
		})
	}
}

func TestMergeFieldSourcesEmpty(t *testing.T) {
	got, err := model.MergeFieldSources(model.Schema{}, nil, nil, nil)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("got %#v, %v", got, err)
	}
	// Undeclared entry keys stay text, verbatim.
	got, err = model.MergeFieldSources(model.Schema{}, nil, []string{"n=0042"}, nil)
	if err != nil || got["n"] != "0042" {
		t.Fatalf("got %#v, %v", got, err)
	}
}

func TestErrorHelpers(t *testing.T) {
	err := model.WorkspaceNotFound("nope")
	wantErr(t, err, model.CodeNotFound, 404, map[string]any{"scope": "workspace"})
	if !model.IsNotFound(err) || model.IsUpdateConflict(err) {
		t.Fatal("IsNotFound/IsUpdateConflict wrong")
	}
	wrapped := &wrapErr{err}
	if !model.IsCode(wrapped, model.CodeNotFound) {
		t.Fatal("IsCode does not unwrap")
	}
	if model.IsCode(nil, model.CodeNotFound) || model.IsCode(errString("x"), model.CodeNotFound) {
		t.Fatal("IsCode on a plain error")
	}
	wantErr(t, model.BadRequest("x"), model.CodeBadRequest, 400, nil)
	wantErr(t, model.Conflict("x"), model.CodeConflict, 409, nil)
	e := model.Invalid("bad %s", "thing").With("field", "f")
	if e.Error() != "bad thing" || e.Details["field"] != "f" {
		t.Fatalf("Invalid = %+v", e)
	}
	if !strings.Contains(model.Errorf(model.CodeUpdateConflict, "seq %d", 3).Error(), "seq 3") {
		t.Fatal("Errorf formats")
	}
}

type wrapErr struct{ err error }

func (w *wrapErr) Error() string { return "wrapped: " + w.err.Error() }
func (w *wrapErr) Unwrap() error { return w.err }

type errString string

func (e errString) Error() string { return string(e) }
