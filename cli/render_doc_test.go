package cli

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

func TestSplitMarks(t *testing.T) {
	cases := []struct {
		in   string
		want []span
	}{
		{"", nil},
		{"plain", []span{{text: "plain"}}},
		{"a <mark>b</mark> c", []span{{text: "a "}, {text: "b", mark: true}, {text: " c"}}},
		{"<mark>x</mark><mark>y</mark>", []span{{text: "x", mark: true}, {text: "y", mark: true}}},
		{"open <mark>to the end", []span{{text: "open "}, {text: "to the end", mark: true}}},
		{"stray</mark> close", []span{{text: "stray close"}}},
	}
	for _, c := range cases {
		if got := splitMarks(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitMarks(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

// TestSnippetHighlight: a match is bold yellow with colour; without it
// (NO_COLOR on a terminal, or a pipe) it is bracketed and no escape code
// is written, not even one smuggled into the snippet.
func TestSnippetHighlight(t *testing.T) {
	spans := splitMarks("the \x1b[31mred\x1b[0m <mark>cookie</mark> jar")
	if got := writeSpans(spans, Style{Width: 100, Color: true}, 100); got != "the red "+ansiBold+ansiYellow+"cookie"+ansiReset+" jar" {
		t.Errorf("colour: %q", got)
	}
	noColor := styleFor(true, 100, env(map[string]string{"NO_COLOR": "1"}))
	for _, st := range []Style{noColor, piped} {
		if got := writeSpans(spans, st, 100); got != "the red [cookie] jar" {
			t.Errorf("%+v: %q", st, got)
		}
	}
	res := &api.SearchResponse{Total: 1, Results: []api.SearchResult{{Item: api.Item{Ref: "TASK-1", Title: "Jar"},
		Snippet: "the <mark>cookie</mark> jar"}}}
	var buf bytes.Buffer
	if err := (searchView{res: res}).doc(false).write(&buf, noColor); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(buf.String(), 0x1b) || !strings.Contains(buf.String(), "the [cookie] jar") {
		t.Errorf("NO_COLOR search output:\n%q", buf.String())
	}
}

// TestWriteSpansCuts: a line of spans never exceeds its width, and a cut
// ends in an ellipsis, also inside a highlight.
func TestWriteSpansCuts(t *testing.T) {
	spans := splitMarks("abc <mark>defgh</mark> ijk")
	for max := 1; max <= 16; max++ {
		got := writeSpans(spans, piped, max)
		full := "abc [defgh] ijk"
		if w := textWidth(got); w > max {
			t.Errorf("max %d: %q is %d wide", max, got, w)
		}
		if cut := textWidth(full) > max; cut != strings.HasSuffix(got, "…") {
			t.Errorf("max %d: %q (cut %v)", max, got, cut)
		}
	}
	if got := writeSpans(spans, piped, 0); got != "" {
		t.Errorf("no room: %q", got)
	}
}

// TestTableSharesSqueeze: several flexible columns give up room in
// turn, the widest first, and none below its floor.
func TestTableSharesSqueeze(t *testing.T) {
	tb := &table{cols: []column{{header: "A"}, {header: "B", flex: true, min: 4}, {header: "C", flex: true, min: 4}}}
	tb.add(plain("x"), plain(strings.Repeat("b", 30)), plain(strings.Repeat("c", 10)))
	var buf bytes.Buffer
	if err := tb.write(&buf, Style{Width: 25}); err != nil {
		t.Fatal(err)
	}
	row := strings.Split(buf.String(), "\n")[1]
	// 25 = 1 + 2 + B + 2 + C, and B and C end equal: 10 each.
	if want := "x  " + strings.Repeat("b", 9) + "…  " + strings.Repeat("c", 10); row != want {
		t.Errorf("row %q, want %q", row, want)
	}
	buf.Reset()
	_ = tb.write(&buf, Style{Width: 5})
	if row := strings.Split(buf.String(), "\n")[1]; row != "x  bbb…  ccc…" {
		t.Errorf("at the floors: %q", row)
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "30m": 1800, "900": 900, "1h30m": 5400, "24h": 86400, "1s": 1} {
		if got, err := parseTTL(in); err != nil || got != want {
			t.Errorf("parseTTL(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-5m", "1.5s", "25h", "soon", "86401", "9223372036854775807"} {
		if _, err := parseTTL(in); err == nil || explain(err).Exit != ExitUsage {
			t.Errorf("parseTTL(%q) = %v, want a usage error", in, err)
		}
	}
}

func TestLibraryRef(t *testing.T) {
	for in, want := range map[string]api.LibraryRef{
		"convention/commit-messages-say-why": {Key: "convention/commit-messages-say-why"},
		" playbook/plan ":                    {Key: "playbook/plan"},
		"Plan an initiative":                 {Title: "Plan an initiative"},
		"Read/write access rules":            {Title: "Read/write access rules"},
	} {
		if got := libraryRef(in); got != want {
			t.Errorf("libraryRef(%q) = %+v, want %+v", in, got, want)
		}
	}
	// A name that looks like a key but names no entry is tried as a
	// title too.
	var tried []api.LibraryRef
	_, err := byKeyOrTitle("Reads/Writes", func(r api.LibraryRef) (int, error) {
		tried = append(tried, r)
		if r.Key != "" {
			return 0, &api.Error{Code: "not_found", Message: "not found"}
		}
		return 1, nil
	})
	if err != nil || len(tried) != 2 || tried[1].Title != "Reads/Writes" {
		t.Errorf("byKeyOrTitle tried %+v: %v", tried, err)
	}
}
