package mirror

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/padd/padd/model"
)

var schema = model.Schema{Fields: []model.FieldDef{
	{Key: "status", Type: model.TypeSelect, Options: []string{"open", "done"}},
	{Key: "notes", Type: model.TypeText},
	{Key: "estimate", Type: model.TypeNumber},
	{Key: "due", Type: model.TypeDate},
	{Key: "labels", Type: model.TypeMultiSelect, Options: []string{"a", "b"}},
	{Key: "epic", Type: model.TypeRelation},
	{Key: "deps", Type: model.TypeMultiRelation},
	{Key: "done", Type: model.TypeCheckbox},
	{Key: "site", Type: model.TypeURL},
	{Key: "meta", Type: model.TypeJSON},
}}

// TestRoundTripIsLosslessPerFieldType: item -> file -> item gives back
// every value of every field type, including the awkward ones.
func TestRoundTripIsLosslessPerFieldType(t *testing.T) {
	cases := map[string][]any{
		"status":   {"open", "done"},
		"notes":    {"plain", "", " leading space", "two\nlines", "yes", "null", "123", "- dash", "a: b", "#hash", "'q'", "\"dq\"", "tab\there", "ünïcode ✓"},
		"estimate": {json.Number("3"), json.Number("-0.5"), json.Number("1e3"), json.Number("12345678901234567890123")},
		"due":      {"2026-12-02", "2026-12-02T10:00:00Z"},
		"labels":   {[]any{}, []any{"a"}, []any{"a", "b"}},
		"epic":     {"TASK-1"},
		"deps":     {[]any{"TASK-1", "TASK-2"}},
		"done":     {true, false},
		"site":     {"https://example.com/?a=1&b=2#x"},
		"meta":     {map[string]any{"a": json.Number("1"), "b": []any{"x", nil, true}}, []any{json.Number("1.50")}, "a string", json.Number("7")},
	}
	for key, vals := range cases {
		for _, val := range vals {
			fields := map[string]any{key: val}
			for _, content := range []string{"", "body", "---\nnot front matter\n---\n", "\n\nleading blank lines", "no newline at end"} {
				title := "Title: with: colons"
				b, err := Render("TASK-9", title, fields, []string{"t1", "two words"}, content, schema)
				if err != nil {
					t.Fatalf("%s=%#v: render: %v", key, val, err)
				}
				d, err := Parse(b, schema)
				if err != nil {
					t.Fatalf("%s=%#v: parse: %v\n%s", key, val, err, b)
				}
				if d.Ref != "TASK-9" || d.Title != title || d.Content != content || !reflect.DeepEqual(d.Tags, []string{"t1", "two words"}) {
					t.Fatalf("%s=%#v: got %+v\n%s", key, val, d, b)
				}
				if !reflect.DeepEqual(d.Fields[key], val) {
					t.Fatalf("%s: %#v came back as %#v\n%s", key, val, d.Fields[key], b)
				}
			}
		}
	}
}

func TestParseRefusesWhatNoDoorTakes(t *testing.T) {
	for body, want := range map[string]string{
		"---\ntitle: [a\n---\n":                 "not valid YAML",
		"---\nfields:\n  nope: 1\n---\n":        "not declared",
		"---\nfields:\n  estimate: lots\n---\n": "number field",
		"---\nfields:\n  estimate: 0x10\n---\n": "number field",
		"---\nfields:\n  done: maybe\n---\n":    "checkbox",
		"---\nfields:\n  meta: '{'\n---\n":      "not JSON",
		"---\ntitle: a\ntitle: b\n---\n":        "twice",
		"---\nowner: me\n---\n":                 "not a front matter key",
		"---\nx: &a [1]\nfields: *a\n---\n":     "not a front matter key",
		"---\ntitle: a\n":                       "no closing",
		"---\n- a\n---\n":                       "not a map",
		"---\ntags: &a x\n---\n":                "must be a list",
		"---\nfields:\n  labels: *a\n---\n":     "YAML",
		"---\ntitle: x\n---\n" + "\xff":         "UTF-8",
	} {
		_, err := Parse([]byte(body), schema)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want one saying %q", body, err, want)
		}
	}
}

// FuzzParse holds front matter parsing to any input: no panic, bounded
// time and memory, and what parses renders and parses back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"---\nref: TASK-1\ntitle: x\nfields:\n  estimate: 3\n  labels: [a]\n---\nbody",
		"---\na: &x [*x]\n---\n", "---\n" + strings.Repeat("[", 5000) + "\n---\n", "no front matter", "---\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		d, err := Parse(b, schema)
		took := time.Since(start)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+uint64(len(b))*64 {
			t.Fatalf("parsing %d bytes allocated %d bytes", len(b), alloc)
		}
		// Generous, for a busy machine: a hostile input that took this
		// long would be a parse without a bound.
		if took > 10*time.Second {
			t.Fatalf("parsing %d bytes took %v", len(b), took)
		}
		if err != nil {
			return
		}
		out, err := Render(d.Ref, d.Title, d.Fields, d.Tags, d.Content, schema)
		if err != nil {
			t.Fatalf("render of a parsed doc: %v", err)
		}
		d2, err := Parse(out, schema)
		if err != nil {
			t.Fatalf("parse of a rendered doc: %v\n%q", err, out)
		}
		if d.Title != d2.Title || d.Content != d2.Content || d.Ref != d2.Ref || !reflect.DeepEqual(nonNil(d.Fields), nonNil(d2.Fields)) {
			t.Fatalf("round trip differs:\n%#v\n%#v", d, d2)
		}
	})
}

func nonNil(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// TestTraversalTable: whatever the title, slug or ref, the file's path is
// one plain element inside its collection folder.
func TestTraversalTable(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, c := range []struct{ coll, ref, title string }{
		{"tasks", "TASK-1", "../../etc/passwd"},
		{"tasks", "TASK-1", "..\\..\\windows\\system32"},
		{"tasks", "TASK-1", "/absolute/path"},
		{"tasks", "TASK-1", "C:\\evil"},
		{"tasks", "TASK-1", "."},
		{"tasks", "TASK-1", ".."},
		{"tasks", "TASK-1", "CON"},
		{"tasks", "TASK-1", "nul.txt"},
		{"tasks", "TASK-1", long},
		{"tasks", "TASK-1", "a\x00b\nc"},
		{"tasks", "TASK-1", "Ünïcödé ＦＵＬＬＷＩＤＴＨ"},
		{"..", "../..", "x"},
		{"../../x", "TASK-1", "x"},
		{"con", "AUX", "lpt1"},
		{"", "", ""},
		{"Tasks", "task-1", "MiXeD Case"},
	} {
		folder, name := FolderName(c.coll), FileName(c.ref, c.title)
		rel := folder + "/" + name
		root := t.TempDir()
		p, err := resolve(root, rel)
		if err != nil {
			t.Errorf("%+v: %q refused: %v", c, rel, err)
			continue
		}
		if filepath.Dir(filepath.Dir(p)) != root || len(name) > 255 || strings.ContainsAny(rel, "\\:\x00\n") {
			t.Errorf("%+v: %q leaves its folder or is not a plain name", c, rel)
		}
		base := strings.ToLower(strings.TrimSuffix(name, ".md"))
		if windowsReserved[strings.SplitN(base, "-", 2)[0]] || windowsReserved[strings.ToLower(folder)] || strings.HasPrefix(name, ".") || strings.HasPrefix(folder, ".") {
			t.Errorf("%+v: %q is a reserved or hidden name", c, rel)
		}
		if folder != strings.ToLower(folder) {
			t.Errorf("%+v: folder %q is not lower case (case-insensitive filesystems)", c, folder)
		}
	}
	for _, rel := range []string{"../x.md", "a/../../x.md", "/etc/passwd", "a\\..\\x.md", "C:x.md", "", "a//b.md"} {
		if _, err := resolve(t.TempDir(), rel); err == nil {
			t.Errorf("resolve(%q) accepted", rel)
		}
	}
}

// Names keep the letters of every script; the front matter keeps the
// text as written (no \U escapes), and reads back the same.
func TestNonASCIINamesAndFrontMatter(t *testing.T) {
	for _, c := range []struct{ title, name string }{
		{"Überprüfung der Zahlungsströme 🚀", "TASK-2-überprüfung-der-zahlungsströme.md"},
		{"支払いの確認", "TASK-2-支払いの確認.md"},
		{"Проверка платежей", "TASK-2-проверка-платежей.md"},
		{"हिन्दी परीक्षण", "TASK-2-हिन्दी-परीक्षण.md"},
		{"Fix the login", "TASK-2-fix-the-login.md"},
		{"🚀🎉", "TASK-2-untitled.md"},
		{"a\u202eb\u200dc/d\\e:f", "TASK-2-a-b-c-d-e-f.md"},
	} {
		if got := FileName("TASK-2", c.title); got != c.name {
			t.Errorf("FileName(%q) = %q, want %q", c.title, got, c.name)
		}
	}
	long := FileName("TASK-2", strings.Repeat("語", 100))
	if slug := strings.TrimSuffix(strings.TrimPrefix(long, "TASK-2-"), ".md"); len(slug) > maxSlug+4 || !utf8.ValidString(slug) {
		t.Errorf("a long title's slug is %d bytes (valid UTF-8: %v)", len(slug), utf8.ValidString(slug))
	}
	for _, title := range []string{
		"Überprüfung der Zahlungsströme 🚀",
		"emoji 🚀 with a literal \\U0001F680 and a private \ue000 one",
		"🚀: starts with one",
		" 🎉 padded\n",
		"𠀋𠂉 rare ideographs",
	} {
		body, err := Render("TASK-2", title, map[string]any{"notes": "notes 🎉"}, []string{"🏷️", "x"}, "c", schema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), `\U`) && !strings.Contains(title, `\U`) {
			t.Errorf("%q is escaped:\n%s", title, body)
		}
		if strings.TrimSpace(title) == title && !strings.Contains(string(body), title) {
			t.Errorf("%q is not written as it is:\n%s", title, body)
		}
		d, err := Parse(body, schema)
		if err != nil {
			t.Fatalf("%q: %v\n%s", title, err, body)
		}
		if d.Title != title || d.Fields["notes"] != "notes 🎉" || !reflect.DeepEqual(d.Tags, []string{"🏷️", "x"}) {
			t.Errorf("%q read back as %q %v %v:\n%s", title, d.Title, d.Fields, d.Tags, body)
		}
	}
}
