package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestStyleFor(t *testing.T) {
	cases := []struct {
		name  string
		tty   bool
		width int
		env   map[string]string
		want  Style
	}{
		{"piped gets the default width, no colour", false, 0, nil, Style{Width: DefaultWidth}},
		{"piped ignores the terminal's width", false, 200, nil, Style{Width: DefaultWidth}},
		{"terminal gets its width and colour", true, 143, nil, Style{Width: 143, Color: true}},
		{"terminal of unknown size", true, 0, nil, Style{Width: DefaultWidth, Color: true}},
		{"NO_COLOR set", true, 80, map[string]string{"NO_COLOR": "1"}, Style{Width: 80}},
		{"NO_COLOR set but empty still counts", true, 80, map[string]string{"NO_COLOR": ""}, Style{Width: 80}},
		{"dumb terminal", true, 80, map[string]string{"TERM": "dumb"}, Style{Width: 80}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := styleFor(c.tty, c.width, env(c.env)); got != c.want {
				t.Errorf("styleFor = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestDetectStyleOnPipe: a buffer (or pipe) is never a terminal.
func TestDetectStyleOnPipe(t *testing.T) {
	if st := detectStyle(&bytes.Buffer{}, env(nil)); st.Color || st.Width != DefaultWidth {
		t.Errorf("detectStyle(buffer) = %+v", st)
	}
}

func TestNoColorMeansNoEscapes(t *testing.T) {
	st := styleFor(true, 100, env(map[string]string{"NO_COLOR": "x"}))
	var buf bytes.Buffer
	if err := (itemsView{items: fixtureItems(), now: goldenNow, showCollection: true}).writeTable(&buf, st); err != nil {
		t.Fatal(err)
	}
	report(&buf, failf("x", "y", "z"), st)
	if strings.ContainsRune(buf.String(), 0x1b) {
		t.Errorf("NO_COLOR output holds escapes:\n%q", buf.String())
	}
}

// TestTableFitsWidth lays the same list out at many widths: every line
// fits (as long as the fixed columns do), refs are never cut, titles
// are cut with an ellipsis.
func TestTableFitsWidth(t *testing.T) {
	items := fixtureItems()
	v := itemsView{items: items, now: goldenNow, showCollection: true}
	// The fixed columns take 56 (with gaps); the title's floor is 16.
	const fixed = 56
	for width := fixed + 16; width <= 160; width += 3 {
		var buf bytes.Buffer
		if err := v.writeTable(&buf, Style{Width: width}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
		if len(lines) != len(items)+1 {
			t.Fatalf("width %d: %d lines, want %d", width, len(lines), len(items)+1)
		}
		for _, l := range lines {
			if w := textWidth(l); w > width {
				t.Errorf("width %d: line is %d wide: %q", width, w, l)
			}
			if strings.HasSuffix(l, " ") {
				t.Errorf("width %d: trailing space: %q", width, l)
			}
		}
		for i, it := range items {
			if !strings.HasPrefix(lines[i+1], itemRef(&it)+" ") {
				t.Errorf("width %d: ref of %q cut: %q", width, it.Title, lines[i+1])
			}
		}
		full := textWidth(items[0].Title)
		if cut := strings.Contains(lines[1], "…"); cut != (fixed+full > width) {
			t.Errorf("width %d: title cut=%v, want %v: %q", width, cut, fixed+full > width, lines[1])
		}
	}
}

// TestTableNeverCutsBelowFloor: at a width too small for the fixed
// columns, the title keeps its floor rather than vanishing.
func TestTableNeverCutsBelowFloor(t *testing.T) {
	var buf bytes.Buffer
	v := itemsView{items: fixtureItems()[:1], now: goldenNow, showCollection: true}
	if err := v.writeTable(&buf, Style{Width: 10}); err != nil {
		t.Fatal(err)
	}
	row := strings.Split(buf.String(), "\n")[1]
	if !strings.Contains(row, "Fix the login r…") {
		t.Errorf("title squeezed below its 16-column floor: %q", row)
	}
}

func TestTruncateAndWidth(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello world", 6, "hello…"},
		{"日本語のタイトル", 7, "日本語…"},     // wide runes count two
		{"🗺️ Plans", 8, "🗺️ Plans"}, // the variation selector is zero-width
		{"abc", 0, ""},
	}
	for _, c := range cases {
		if got := truncate(c.in, c.max); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if w := textWidth(truncate(c.in, c.max)); w > c.max && c.max > 0 {
			t.Errorf("truncate(%q, %d) is %d wide", c.in, c.max, w)
		}
	}
}

func TestSanitize(t *testing.T) {
	cases := []struct{ in, cell, block string }{
		{"a\tb\nc", "a b c", "a\tb\nc"},
		{"red \x1b[31mX\x1b[0m end", "red X end", "red X end"},
		{"link \x1b]8;;http://x\x07text\x1b]8;;\x07", "link text", "link text"},
		{"osc st \x1b]0;title\x1b\\done", "osc st done", "osc st done"},
		{"crlf\r\nline", "crlf  line", "crlf\nline"},
		{"bell\x07 c1\u0085", "bell c1", "bell c1"},
		{"dangling \x1b", "dangling ", "dangling "},
		{"c1 csi \u009b2J über", "c1 csi 2J über", "c1 csi 2J über"},
		{"bad \xff utf-8", "bad \ufffd utf-8", "bad \ufffd utf-8"},
		{"plain über 🚀", "plain über 🚀", "plain über 🚀"},
		{"bidi ‮evil‬ ⁦x⁩ ‪", "bidi evil x ", "bidi evil x "},
		{"marks ‏שלום‎ kept", "marks ‏שלום‎ kept", "marks ‏שלום‎ kept"},
	}
	for _, c := range cases {
		if got := clean(c.in); got != c.cell {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.cell)
		}
		if got := sanitizeBlock(c.in); got != c.block {
			t.Errorf("sanitizeBlock(%q) = %q, want %q", c.in, got, c.block)
		}
	}
}

func TestMarkdownCellEscapes(t *testing.T) {
	if got := mdCell("a|b*c\\d\ne"); got != `a\|b\*c\\d e` {
		t.Errorf("mdCell = %q", got)
	}
}

// TestItemJSONShape pins the JSON contract for items: every wire member
// in the wire's order, then fields and tags decoded to native JSON,
// numbers exact.
func TestItemJSONShape(t *testing.T) {
	it := fixtureItems()[0]
	raw := marshalOut(t, outItem(&it))
	var got map[string]json.RawMessage
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if string(got["fields"]) != `{"status":"in-progress","priority":"critical","estimate":1.50,"due_date":"2026-03-31"}` {
		t.Errorf("fields = %s", got["fields"])
	}
	if string(got["tags"]) != `["auth","safari"]` {
		t.Errorf("tags = %s", got["tags"])
	}
	// Every wire member is there, in the wire's order, then the decoded
	// ones: the contract holds as api.Item grows.
	wire := keysInOrder(t, marshalOut(t, &it))
	var want []string
	for _, k := range wire {
		if k != "fields" && k != "tags" {
			want = append(want, k)
		}
	}
	want = append(want, "fields", "tags")
	if out := keysInOrder(t, raw); !reflect.DeepEqual(out, want) {
		t.Errorf("key order:\n got %v\nwant %v", out, want)
	}
}

func marshalOut(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return compact.Bytes()
}

func keysInOrder(t *testing.T, obj []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestTextToJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `null`},
		{"  ", `null`},
		{"{oops", `"{oops"`},
		{`{"a":"<b>&"}`, `{"a":"<b>&"}`},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
		{`["x"]`, `["x"]`},
	}
	for _, c := range cases {
		out := marshalOut(t, outItem(&api.Item{Fields: c.in}))
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if string(got["fields"]) != c.want {
			t.Errorf("fields %q printed as %s, want %s", c.in, got["fields"], c.want)
		}
	}
	// A list of none is an empty array, not null.
	if got := marshalOut(t, outItems([]api.Item{})); string(got) != "[]" {
		t.Errorf("empty list = %s", got)
	}
}

func TestCollectionAndWorkspaceJSONDecodeText(t *testing.T) {
	raw := marshalOut(t, outCollections(fixtureCollections()))
	var cs []struct {
		Slug   string `json:"slug"`
		Schema struct {
			Fields []struct{ Key string } `json:"fields"`
		} `json:"schema"`
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatalf("collection JSON: %v\n%s", err, raw)
	}
	if len(cs) != 2 || cs[0].Slug != "tasks" || len(cs[0].Schema.Fields) != 4 || cs[0].Settings["layout"] != "fields-primary" {
		t.Errorf("collections decoded as %+v", cs)
	}
	ws := fixtureWorkspaces()[1]
	if raw := marshalOut(t, outWorkspace(&ws)); !strings.Contains(string(raw), `"settings":{"theme":"dark"}`) || !strings.Contains(string(raw), `"slug":"home"`) {
		t.Errorf("workspace JSON: %s", raw)
	}
}

func TestAgo(t *testing.T) {
	for d, want := range map[string]string{"10s": "just now", "5m": "5m ago", "3h": "3h ago", "72h": "3d ago", "1000h": "2026-01-27"} {
		dur, err := time.ParseDuration(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := ago(goldenNow.Add(-dur), goldenNow); got != want {
			t.Errorf("ago(-%s) = %q, want %q", d, got, want)
		}
	}
	if ago(time.Time{}, goldenNow) != "" {
		t.Error("zero time should render empty")
	}
}

// Counts of one are singular: "1 link", "1 problem" (issue 41: "1
// links", "1 problem(s)").
func TestCountsOfOneAreSingular(t *testing.T) {
	var b strings.Builder
	res := &api.ImportResult{Workspace: api.Workspace{Name: "Copy", Slug: "copy"}}
	s := &res.ImportSummary
	s.InBundle.Collections, s.Imported.Collections = 1, 1
	s.InBundle.Items, s.Imported.Items = 2, 1
	s.InBundle.Comments, s.Imported.Comments = 1, 1
	s.InBundle.Links, s.Imported.Links = 1, 1
	s.Imported.Versions = 1
	s.InBundle.Roles, s.Imported.Roles = 1, 1
	s.InBundle.Attachments, s.Imported.Attachments = 1, 0
	if err := writeImportSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	_ = writeDoctor(&b, []doctorReport{{Client: "cursor", Path: "/home/me/.cursor/mcp.json", Problems: []string{"its command is gone"}}})
	got := b.String()
	for _, want := range []string{"1 collection,", "1 of 2 items", "1 comment,", "1 link,", "1 version,", "1 role,", "0 of 1 attachment\n", "1 problem in"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	for _, bad := range []string{"1 links", "1 collections", "(s)"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q in\n%s", bad, got)
		}
	}
}
