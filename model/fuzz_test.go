package model_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/padd/padd/model"
)

// Fuzz properties shared by every target: no panic; a refusal is a
// *model.Error with a code and a 4xx status; a success satisfies the
// function's invariants.

func FuzzParseFieldDSL(f *testing.F) {
	for _, s := range []string{
		"status:select:open,done", "owners:multi_relation:people", "owner:relation", "owner:relation:people",
		"a:text;b:number;c:date", "status:select:open,open", "status:select:,", ":text", "x", "x:", ";;",
		"github_pr:json", "é:text", "a:select:x:y:z", "status:select:a;status:select:b", " k : select : a , b ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsl string) {
		s, err := model.ParseFieldDSL(dsl)
		if err != nil {
			checkCoded(t, err)
			return
		}
		if err := model.ValidateSchema(s); err != nil {
			t.Fatalf("ParseFieldDSL(%q) returned a schema ValidateSchema refuses: %v", dsl, err)
		}
		statusSeen := false
		for _, fd := range s.Fields {
			if fd.Label != model.TitleCase(fd.Key) || !utf8.ValidString(fd.Label) {
				t.Fatalf("field %q label %q", fd.Key, fd.Label)
			}
			switch fd.Type {
			case model.TypeRelation, model.TypeMultiRelation:
				if fd.Collection == "" || fd.Collection != strings.TrimSpace(fd.Collection) || len(fd.Options) != 0 {
					t.Fatalf("relation %q: collection %q options %q", fd.Key, fd.Collection, fd.Options)
				}
			default:
				if fd.Collection != "" {
					t.Fatalf("non-relation %q has a collection", fd.Key)
				}
			}
			for _, o := range fd.Options {
				if o == "" || o != strings.TrimSpace(o) {
					t.Fatalf("field %q option %q", fd.Key, o)
				}
			}
			if fd.Key == "status" && fd.Type == model.TypeSelect && !statusSeen {
				statusSeen = true
				if !fd.Required {
					t.Fatalf("status select not required")
				}
				if len(fd.Options) > 0 && fd.Default != fd.Options[0] {
					t.Fatalf("status default %v, options %q", fd.Default, fd.Options)
				}
			}
		}
	})
}

func FuzzSplitFieldEntry(f *testing.F) {
	for _, s := range []string{"status=open", "k= v =w", "=x", " k=v", "k =v", "novalue", "", "k=", "é=ü", "\u00a0k=v", "a==b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		key, value, err := model.SplitFieldEntry(entry)
		if err != nil {
			checkCoded(t, err)
			if key != "" || value != "" {
				t.Fatalf("refusal returned %q, %q", key, value)
			}
			return
		}
		if key+"="+value != entry {
			t.Fatalf("SplitFieldEntry(%q) = %q, %q: does not round-trip", entry, key, value)
		}
		if key == "" || strings.TrimSpace(key) != key || strings.Contains(key, "=") {
			t.Fatalf("SplitFieldEntry(%q) key %q", entry, key)
		}
	})
}

// fuzzSchema declares one field of each type, with options, patterns,
// defaults and flags enough to reach every branch of Apply.
var fuzzSchema = fields(
	model.FieldDef{Key: "status", Type: "select", Options: []string{"open", "done", "cancelled"}, Default: "open", Required: true},
	model.FieldDef{Key: "priority", Type: "select", Options: []string{"low", "high"}, Default: "medium"},
	model.FieldDef{Key: "tags", Type: "multi_select", Options: []string{"a", "b", "c"}},
	model.FieldDef{Key: "labels", Type: "multi_select"},
	model.FieldDef{Key: "n", Type: "number", Default: json.Number("1")},
	model.FieldDef{Key: "due", Type: "date"},
	model.FieldDef{Key: "ok", Type: "checkbox"},
	model.FieldDef{Key: "site", Type: "url"},
	model.FieldDef{Key: "blob", Type: "json"},
	model.FieldDef{Key: "slug", Type: "text", Pattern: model.InvocationSlugPattern},
	model.FieldDef{Key: "title", Type: "text", Required: true, Default: "untitled"},
	model.FieldDef{Key: "owner", Type: "relation", Collection: "people"},
	model.FieldDef{Key: "lead", Type: "relation"},
	model.FieldDef{Key: "reviewers", Type: "multi_relation", Collection: "people", Required: true, Default: []any{"ann"}},
	model.FieldDef{Key: "progress", Type: "number", Computed: true},
)

// fuzzRelationResolver is a deterministic test double: "amb…" is
// ambiguous, "no…" is not found, anything else resolves to its
// lower-cased self (so "Ann" and "ann" name the same item).
type fuzzRelationResolver struct{}

func (fuzzRelationResolver) ResolveRelation(coll, value string) (string, string) {
	switch {
	case strings.HasPrefix(value, "amb"):
		return "", model.ReasonAmbiguous
	case strings.HasPrefix(value, "no"):
		return "", model.ReasonNotFound
	}
	return "id:" + strings.ToLower(value), ""
}

func FuzzValidateValue(f *testing.F) {
	for _, s := range []string{
		`"open"`, `""`, `" "`, `9007199254740993`, `1e400`, `-0.0`, `true`, `null`, `[]`, `["a","b"]`, `["a",""]`,
		`["a",1]`, `{"x":[1,{"y":null}]}`, `"2024-02-29"`, `"https://x.test"`, `"run-tests"`, `"Run Tests"`,
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`1 ]`))
	f.Add([]byte(`{} }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := model.DecodeJSON(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("DecodeJSON(%q) error %v, but json.Valid = %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		if !model.EqualJSON(v, v) {
			t.Fatalf("EqualJSON(%s, itself) = false", data)
		}
		for _, def := range fuzzSchema.Fields {
			is := model.ValidateValue(def, v)
			if is == nil {
				continue
			}
			if is.Key != def.Key || is.Reason == "" || is.Message == "" {
				t.Fatalf("ValidateValue(%s, %s) = %+v", def.Key, data, is)
			}
			if is.Index != nil {
				l, ok := v.([]any)
				if !ok || *is.Index < 0 || *is.Index >= len(l) {
					t.Fatalf("ValidateValue(%s, %s) index %d out of range", def.Key, data, *is.Index)
				}
			}
		}
	})
}

func FuzzFieldWriteApply(f *testing.F) {
	f.Add([]byte(`{"status":"open","title":"x"}`), []byte(`{"status":"done","n":9007199254740993}`), uint8(0))
	f.Add([]byte(``), []byte(`{"owner":"Ann","reviewers":["ann","Bob","ANN"]}`), uint8(1))
	f.Add([]byte(`{"status":"cancelled","github_pr":{"n":1}}`), []byte(`{"status":"cancelled","github_pr":{"n":1.0}}`), uint8(2))
	f.Add([]byte(`{"status":"open"}`), []byte(`{"implementation_notes":[]}`), uint8(0))
	f.Add([]byte(`{"status":"open","legacy":1}`), []byte(`{"zeta":1,"alpha":null,"progress":5}`), uint8(4))
	f.Add([]byte(`{}`), []byte(`{"owner":"amb","lead":"x","tags":["a","a"],"labels":[""]}`), uint8(3))
	f.Add([]byte(`null`), []byte(`{"status":"","reviewers":[],"title":" "}`), uint8(5))
	f.Fuzz(func(t *testing.T, storedJSON, writeJSON []byte, mode uint8) {
		var stored map[string]any
		if len(storedJSON) > 0 {
			v, err := model.DecodeJSON(storedJSON)
			if err != nil {
				return
			}
			stored, _ = v.(map[string]any)
		}
		v, err := model.DecodeJSON(writeJSON)
		if err != nil {
			return
		}
		write, ok := v.(map[string]any)
		if !ok {
			return
		}
		w := model.FieldWrite{Schema: fuzzSchema, Stored: stored, RefuseUndeclared: mode&4 != 0}
		if mode&8 == 0 {
			w.Resolver = fuzzRelationResolver{}
		}
		switch mode % 4 {
		case 0:
			w.Patch = write
		case 1:
			w.Stored, w.Create, w.Patch = nil, true, write
		case 2:
			w.Full = write
		case 3:
			w.Patch, w.Full = write, write // refused: exclusive
		}
		out, warn, err := w.Apply()
		if err != nil {
			checkCoded(t, err)
			if out != nil {
				t.Fatalf("refusal %v returned fields %v", err, out)
			}
			return
		}
		if mode%4 == 3 {
			t.Fatal("Patch and Full together were accepted")
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		if back, err := model.DecodeJSON(b); err != nil || !model.EqualJSON(back, out) {
			t.Fatalf("result does not round-trip through JSON: %s", b)
		}
		// Warnings: undeclared keys sorted, undeclared, never reserved.
		if !sort.StringsAreSorted(warn.UndeclaredFields) {
			t.Fatalf("undeclared_fields not sorted: %q", warn.UndeclaredFields)
		}
		for _, k := range warn.UndeclaredFields {
			if model.IsReservedField(k) || fuzzSchema.Declares(k) {
				t.Fatalf("undeclared_fields lists %q", k)
			}
		}
		if w.RefuseUndeclared && len(warn.UndeclaredFields) > 0 {
			t.Fatalf("refuse_undeclared accepted %q", warn.UndeclaredFields)
		}
		for k, ov := range out {
			// Reserved keys only ride along from the stored blob, unchanged.
			if model.IsReservedField(k) {
				if sv, ok := stored[k]; !ok || !model.EqualJSON(sv, ov) {
					t.Fatalf("reserved %q = %v written (stored %v)", k, ov, stored[k])
				}
			}
			if !model.ValidFieldKey(k) && w.Create {
				t.Fatalf("created with key %q", k)
			}
		}
		written := write
		for _, def := range fuzzSchema.Fields {
			wv, sent := written[def.Key]
			ov, has := out[def.Key]
			if def.Computed {
				if has && !model.EqualJSON(ov, stored[def.Key]) {
					t.Fatalf("computed %q written: %v", def.Key, ov)
				}
				continue
			}
			if sent && has && !model.EqualJSON(wv, stored[def.Key]) {
				// A sent value that was kept is a valid one.
				if is := model.ValidateValue(def, ov); is != nil {
					t.Fatalf("stored invalid %s=%v: %s", def.Key, ov, is.Message)
				}
			}
			if has && (ov == nil || ov == "" || isEmptyList(ov)) && (sent || w.Create) {
				t.Fatalf("%q kept a blank value %#v", def.Key, ov)
			}
			if def.Required && !has && (sent || w.Create || w.Full != nil) {
				t.Fatalf("required %q missing after write", def.Key)
			}
			if def.Type == model.TypeMultiRelation && has && w.Resolver != nil && !model.EqualJSON(ov, stored[def.Key]) {
				seen := map[any]bool{}
				for _, e := range ov.([]any) {
					if seen[e] {
						t.Fatalf("%q kept a duplicate referent %v", def.Key, e)
					}
					seen[e] = true
				}
			}
		}
		// A patch leaves keys it does not name as they were.
		if w.Patch != nil && !w.Create {
			for k, sv := range stored {
				if _, named := written[k]; named {
					continue
				}
				if ov, ok := out[k]; !ok || !model.EqualJSON(ov, sv) {
					t.Fatalf("patch changed unnamed key %q: %v -> %v", k, sv, ov)
				}
			}
		}
	})
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}

func FuzzCoerceEntryValue(f *testing.F) {
	for _, s := range []string{"9007199254740993", "3.0", "1e400", "-0", "+5", ".5", "0x1p4", "Inf", "true", "0", "a, b,,c", "", " ", `{"a":1}`, "[1,2", "null"} {
		for typ := range uint8(8) {
			f.Add(typ, s)
		}
	}
	types := []string{"number", "checkbox", "multi_select", "multi_relation", "json", "text", "select", ""}
	f.Fuzz(func(t *testing.T, typ uint8, raw string) {
		var def *model.FieldDef
		if tn := types[int(typ)%len(types)]; tn != "" {
			def = &model.FieldDef{Key: "k", Type: tn}
		}
		v, err := model.CoerceEntryValue(def, raw)
		if err != nil {
			checkCoded(t, err)
			return
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatalf("CoerceEntryValue(%v, %q) = %#v does not marshal: %v", def, raw, v, err)
		}
		if def == nil {
			if v != raw {
				t.Fatalf("undeclared value changed: %#v", v)
			}
			return
		}
		switch def.Type {
		case "number":
			if raw == "" {
				if v != nil {
					t.Fatalf("empty number = %#v", v)
				}
				return
			}
			n, ok := v.(json.Number)
			if !ok || string(n) != strings.TrimSpace(raw) || !model.IsNumber(n) {
				t.Fatalf("number %q = %#v: not exact", raw, v)
			}
			// Exactly what a JSON decoder reads back.
			if back, err := model.DecodeJSON([]byte(n)); err != nil || back != n {
				t.Fatalf("number %q does not round-trip through JSON: %v %v", raw, back, err)
			}
		case "checkbox":
			if _, ok := v.(bool); !ok {
				t.Fatalf("checkbox %q = %#v", raw, v)
			}
		case "multi_select", "multi_relation":
			l, ok := v.([]any)
			if !ok {
				t.Fatalf("multi %q = %#v", raw, v)
			}
			if raw != "" && len(l) != strings.Count(raw, ",")+1 {
				t.Fatalf("multi %q split into %d", raw, len(l))
			}
		case "text", "select":
			if v != raw {
				t.Fatalf("%s %q changed to %#v", def.Type, raw, v)
			}
		}
	})
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"TASK-12", "task-1", "CONVE-3", "A-1", "TASK-0", "TASK-01", "TASK-+5", "X-Y-1", "-1", "TASK-", "taſk-5", "ABCDEFGHIJ-999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := model.ParseRef(s)
		if !ok {
			if r != (model.Ref{}) {
				t.Fatalf("ParseRef(%q) refused but returned %v", s, r)
			}
			return
		}
		if !model.ValidPrefix(r.Prefix) || r.Number <= 0 {
			t.Fatalf("ParseRef(%q) = %#v", s, r)
		}
		if r.String() != strings.ToUpper(s) || !isASCII(s) {
			t.Fatalf("ParseRef(%q) = %v: accepted a different spelling", s, r)
		}
		back, ok := model.ParseRef(r.String())
		if !ok || back != r {
			t.Fatalf("ParseRef(%q) = %v, %v: does not round-trip %v", r.String(), back, ok, r)
		}
		if back, ok := model.ParseRef(strings.ToLower(r.String())); !ok || back != r {
			t.Fatalf("lower-case %q does not parse", strings.ToLower(r.String()))
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func FuzzCanonicalSlug(f *testing.F) {
	for _, s := range []string{"My_WS", "café", "it's", "Don’t", "", "---", "a--b", strings.Repeat("ab ", 40), "日本語", "\u212a", "İ", "2024 Roadmap", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slug := model.CanonicalSlug(s)
		if slug != "" && !slugRE.MatchString(slug) {
			t.Fatalf("CanonicalSlug(%q) = %q", s, slug)
		}
		if len(slug) > 64 {
			t.Fatalf("CanonicalSlug(%q) = %q: longer than 64", s, slug)
		}
		if again := model.CanonicalSlug(slug); again != slug {
			t.Fatalf("CanonicalSlug not idempotent on %q: %q", slug, again)
		}
		if ws := model.WorkspaceSlug(s, s); !slugRE.MatchString(ws) {
			t.Fatalf("WorkspaceSlug(%q) = %q", s, ws)
		}
		if is := model.ItemSlug(s); !slugRE.MatchString(is) || len(is) > 60 {
			t.Fatalf("ItemSlug(%q) = %q", s, is)
		}
		if p := model.DerivePrefix(s); !model.ValidPrefix(p) {
			t.Fatalf("DerivePrefix(%q) = %q, not a valid prefix", s, p)
		}
		for _, a := range model.CollectionAliases(s) {
			if a == "" {
				t.Fatalf("CollectionAliases(%q) has an empty alias", s)
			}
		}
		if tc := model.TitleCase(s); utf8.ValidString(s) && !utf8.ValidString(tc) {
			t.Fatalf("TitleCase(%q) = %q: invalid UTF-8", s, tc)
		}
	})
}
