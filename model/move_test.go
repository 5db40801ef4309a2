package model_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/padd/padd/model"
)

func TestMigrateFields(t *testing.T) {
	src := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done"}},
		model.FieldDef{Key: "priority", Type: "select", Options: []string{"low", "urgent"}},
		model.FieldDef{Key: "estimate", Type: "number"},
		model.FieldDef{Key: "size", Type: "text"},
		model.FieldDef{Key: "link", Type: "text"},
		model.FieldDef{Key: "home", Type: "url"},
		model.FieldDef{Key: "due", Type: "date"},
		model.FieldDef{Key: "ok", Type: "checkbox"},
		model.FieldDef{Key: "tags", Type: "multi_select"},
		model.FieldDef{Key: "score", Type: "number"},
		model.FieldDef{Key: "slug", Type: "number"},
	)
	dst := fields(
		model.FieldDef{Key: "status", Type: "select", Options: []string{"todo", "open", "done"}},
		model.FieldDef{Key: "priority", Type: "select", Options: []string{"low", "high"}},
		model.FieldDef{Key: "estimate", Type: "text"},
		model.FieldDef{Key: "size", Type: "number"},
		model.FieldDef{Key: "link", Type: "url"},
		model.FieldDef{Key: "home", Type: "text"},
		model.FieldDef{Key: "due", Type: "text"},
		model.FieldDef{Key: "ok", Type: "text"},
		model.FieldDef{Key: "tags", Type: "multi_select", Options: []string{"a"}},
		model.FieldDef{Key: "score", Type: "number", Computed: true},
		model.FieldDef{Key: "slug", Type: "text", Pattern: model.InvocationSlugPattern},
		model.FieldDef{Key: "legacy", Type: "select"},
	)
	current := map[string]any{
		"status": "done", "priority": "urgent", "estimate": num("9007199254740993"), "size": "12.5",
		"link": "https://x.test/a", "home": "https://y.test", "due": "2024-01-02", "ok": true,
		"tags": []any{"a", "b"}, "score": num("3"), "slug": num("5"), "legacy": "v", "gone": "x",
		"github_pr": map[string]any{"number": num("7")}, "convention": map[string]any{},
	}
	out, dropped := model.MigrateFields(current, src, dst)
	want := map[string]any{
		"status": "done", "estimate": "9007199254740993", "size": num("12.5"), "link": "https://x.test/a",
		"home": "https://y.test", "due": "2024-01-02", "ok": "true", "legacy": "v",
		"github_pr": map[string]any{"number": num("7")}, "convention": map[string]any{},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("MigrateFields =\n %#v\nwant\n %#v", out, want)
	}
	// Sorted; the reserved keys always ride along and are never dropped.
	if wantDropped := []string{"gone", "priority", "score", "slug", "tags"}; !reflect.DeepEqual(dropped, wantDropped) {
		t.Errorf("dropped = %q, want %q", dropped, wantDropped)
	}
}

func TestMigrateFieldsTextToNumberKeepsOnlyJSONNumbers(t *testing.T) {
	src := fields(model.FieldDef{Key: "n", Type: "text"})
	dst := fields(model.FieldDef{Key: "n", Type: "number"})
	for raw, want := range map[string]any{
		"5": num("5"), "9007199254740993": num("9007199254740993"), "-0.25": num("-0.25"), "1e400": num("1e400"),
		"Inf": nil, "NaN": nil, "+5": nil, ".5": nil, "0x1p4": nil, "five": nil, "": nil,
	} {
		out, dropped := model.MigrateFields(map[string]any{"n": raw}, src, dst)
		got, has := out["n"]
		if want == nil {
			if has || !reflect.DeepEqual(dropped, []string{"n"}) {
				t.Errorf("text %q carried into a number field as %#v (%T)", raw, got, got)
			}
			continue
		}
		if got != want {
			t.Errorf("text %q -> %#v (%T), want %#v", raw, got, got, want)
		}
		if _, err := json.Marshal(out); err != nil {
			t.Errorf("text %q: result does not marshal: %v", raw, err)
		}
	}
}

func TestMigrateFieldsTextToURLMustBeAURL(t *testing.T) {
	src := fields(model.FieldDef{Key: "u", Type: "text"})
	dst := fields(model.FieldDef{Key: "u", Type: "url"})
	out, dropped := model.MigrateFields(map[string]any{"u": "see the wiki"}, src, dst)
	if _, has := out["u"]; has || !reflect.DeepEqual(dropped, []string{"u"}) {
		t.Fatalf("a non-URL text was carried into a url field: %v", out)
	}
}

func moveColl(slug string, schema model.Schema, set model.Settings) *model.Collection {
	return &model.Collection{Slug: slug, Schema: schema, Settings: set}
}

func TestCheckMoveOverrides(t *testing.T) {
	dst := moveColl("ideas", fields(model.FieldDef{Key: "status", Type: "select"}, model.FieldDef{Key: "impact", Type: "select"}), model.Settings{})
	if err := model.CheckMoveOverrides(dst, map[string]any{"status": "new", "impact": "high"}); err != nil {
		t.Fatal(err)
	}
	if err := model.CheckMoveOverrides(dst, nil); err != nil {
		t.Fatal(err)
	}
	err := model.CheckMoveOverrides(dst, map[string]any{"status": "new", "zeta": 1, "alpha": 2})
	wantErr(t, err, model.CodeMalformedOverride, 400, map[string]any{"field": "alpha"})
	wantMessage(t, err, `override names field "alpha", which collection "ideas" does not declare`)
	for _, k := range model.ReservedFields() {
		err := model.CheckMoveOverrides(dst, map[string]any{k: "x"})
		wantInvalid(t, err, map[string]any{"field": k, "reason": model.ReasonReserved})
	}
}

func TestCheckMoveState(t *testing.T) {
	tasks := moveColl("tasks", fields(model.FieldDef{Key: "status", Type: "select",
		Options: []string{"open", "done", "cancelled"}, TerminalOptions: []string{"done", "cancelled"}}), model.Settings{})
	ideas := moveColl("ideas", fields(model.FieldDef{Key: "status", Type: "select",
		Options: []string{"new", "implemented", "rejected"}, TerminalOptions: []string{"implemented", "rejected"}}), model.Settings{})
	notes := moveColl("notes", fields(model.FieldDef{Key: "body", Type: "text"}), model.Settings{})

	// Same state on both sides: fine.
	if err := model.CheckMoveState(map[string]any{"status": "done"}, map[string]any{"status": "implemented"}, tasks, ideas, nil); err != nil {
		t.Fatal(err)
	}
	// done -> open without naming the destination's status: refused with details.
	err := model.CheckMoveState(map[string]any{"status": "done"}, map[string]any{}, tasks, ideas, nil)
	wantErr(t, err, model.CodeStateChangeRequiresValue, 400, map[string]any{
		"field": "status", "options": []string{"new", "implemented", "rejected"}, "from": "done", "to": "open",
	})
	// abandoned -> done is a state change too.
	err = model.CheckMoveState(map[string]any{"status": "cancelled"}, map[string]any{"status": "implemented"}, tasks, ideas, nil)
	wantErr(t, err, model.CodeStateChangeRequiresValue, 400, map[string]any{"from": "abandoned", "to": "done"})
	// Naming the destination's done field settles it.
	if err := model.CheckMoveState(map[string]any{"status": "done"}, map[string]any{"status": "new"}, tasks, ideas, map[string]any{"status": "new"}); err != nil {
		t.Fatal(err)
	}
	// A destination without a done select is exempt.
	if err := model.CheckMoveState(map[string]any{"status": "done"}, map[string]any{}, tasks, notes, nil); err != nil {
		t.Fatal(err)
	}
}

// FuzzMigrateFields: whatever an item holds, a move keeps reserved keys
// as they are and carries only values that fit the destination field;
// every other key is named in dropped, once, in order.
func FuzzMigrateFields(f *testing.F) {
	f.Add([]byte(`{"a":"5","b":"x","c":9007199254740993,"d":true,"e":["a"],"github_pr":{"n":1}}`))
	f.Add([]byte(`{"a":"Inf","b":"https://x.test","c":"open","d":"2024-01-01","f":1,"g":null}`))
	types := []string{"text", "number", "select", "checkbox", "date", "url", "multi_select", "json", "relation"}
	src, dst := model.Schema{}, model.Schema{}
	for i, k := range []string{"a", "b", "c", "d", "e", "f"} {
		src.Fields = append(src.Fields, model.FieldDef{Key: k, Type: types[i%len(types)]})
		dst.Fields = append(dst.Fields, model.FieldDef{Key: k, Type: types[(i*5+1)%len(types)], Options: []string{"open", "a"}})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := model.DecodeJSON(data)
		if err != nil {
			return
		}
		cur, ok := v.(map[string]any)
		if !ok {
			return
		}
		out, dropped := model.MigrateFields(cur, src, dst)
		if !sortedUnique(dropped) {
			t.Fatalf("dropped %q not sorted and unique", dropped)
		}
		if len(out)+len(dropped) != len(cur) {
			t.Fatalf("%d in, %d carried + %d dropped", len(cur), len(out), len(dropped))
		}
		for k, ov := range out {
			if model.IsReservedField(k) {
				if !model.EqualJSON(ov, cur[k]) {
					t.Fatalf("reserved %q changed", k)
				}
				continue
			}
			def, ok := dst.Field(k)
			if !ok {
				t.Fatalf("undeclared %q carried", k)
			}
			if is := model.ValidateValue(def, ov); is != nil {
				t.Fatalf("carried %s=%#v does not fit: %s", k, ov, is.Message)
			}
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
	})
}

func sortedUnique(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}
