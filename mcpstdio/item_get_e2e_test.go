package mcpstdio_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// pad_item get's lines (the body as numbered lines with the item's seq)
// and agent (the compact projection): the line numbers are the ones a
// patch counts, so an ambiguous anchor's details.lines name lines whose
// text holds it and a line_hint taken from get picks that occurrence.
func TestItemGetLinesAndAgent(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Get Lines")
	cs := e.session(sessionOpts{noRoots: true})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})
	ok(t, cs, "pad_collection", map[string]any{"action": "create", "name": "Metrics", "fields": "n:number"})
	body := "alpha\nrepeat me\nbeta\r\nrepeat me\n"
	ref := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "metrics", "title": "Counted",
		"content": body, "fields": map[string]any{"n": json.Number("9007199254740993")}}).str("ref")
	other := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "Blocked one"}).str("ref")
	ok(t, cs, "pad_item", map[string]any{"action": "link", "ref": ref, "target": other, "link_type": "blocks"})

	g := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref, "lines": true})
	want := []string{"alpha", "repeat me", "beta\r", "repeat me"}
	got := g.list("item", "lines")
	if len(got) != len(want) || g.str("item", "line_count") != "4" || g.get("item", "content") != nil {
		t.Fatalf("get lines: %s", g.texts[0])
	}
	for i, w := range want {
		if g.str("item", "lines", fmt.Sprint(i), "n") != fmt.Sprint(i+1) || g.str("item", "lines", fmt.Sprint(i), "text") != w {
			t.Errorf("line %d: %v, want %q", i+1, got[i], w)
		}
	}
	seq := g.str("item", "seq")
	if seq == "" || seq == "0" || g.list("links") == nil {
		t.Errorf("get lines lost the seq or the links: %s", g.texts[0])
	}

	amb := refused(t, cs, "pad_item", map[string]any{"action": "patch", "ref": ref,
		"edits": []any{map[string]any{"old": "repeat me", "new": "x"}}}, "patch_anchor_ambiguous")
	lines := amb.list("details", "lines")
	if len(lines) != 2 {
		t.Fatalf("ambiguous: %s", amb.texts[0])
	}
	for _, l := range lines {
		n := l.(json.Number).String()
		var idx int
		fmt.Sscan(n, &idx)
		if !strings.Contains(g.str("item", "lines", fmt.Sprint(idx-1), "text"), "repeat me") {
			t.Errorf("patch names line %s, which get shows as %q", n, g.str("item", "lines", fmt.Sprint(idx-1), "text"))
		}
	}
	ok(t, cs, "pad_item", map[string]any{"action": "patch", "ref": ref, "expected_seq": json.Number(seq),
		"edits": []any{map[string]any{"old": "repeat me", "new": "the second", "line_hint": lines[1]}}})
	if g := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref, "lines": true}); g.str("item", "lines", "3", "text") != "the second" ||
		g.str("item", "lines", "1", "text") != "repeat me" {
		t.Errorf("the hinted line was not the one patched: %s", g.texts[0])
	}

	for i := range 22 {
		ok(t, cs, "pad_item", map[string]any{"action": "comment", "ref": ref, "message": fmt.Sprintf("note %d", i)})
	}
	a := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref, "agent": true})
	if a.str("ref") != ref || a.str("collection") != "metrics" || a.str("fields", "n") != "9007199254740993" ||
		!strings.Contains(a.str("content"), "the second") || a.str("seq") == "" {
		t.Errorf("agent projection: %s", a.texts[0])
	}
	for _, k := range []string{"id", "workspace_id", "collection_id", "created_by", "source", "item"} {
		if a.get(k) != nil {
			t.Errorf("agent projection carries %s: %s", k, a.texts[0])
		}
	}
	if cms := a.list("comments"); len(cms) != 20 || a.str("comments_total") != "22" ||
		a.str("comments", "19", "body") != "note 21" || a.str("comments", "0", "body") != "note 2" || a.str("comments", "0", "id") == "" {
		t.Errorf("agent comments: %s", a.texts[0])
	}
	if len(a.texts) < 2 || !strings.Contains(a.texts[1], "list-comments") {
		t.Errorf("agent projection does not say its comments are cut: %v", a.texts[1:])
	}
	if a.str("links", "0", "ref") != other || a.str("links", "0", "type") != "blocks" || a.str("links", "0", "direction") != "out" {
		t.Errorf("agent links: %s", a.texts[0])
	}
	if b := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": other, "agent": true}); b.str("links", "0", "ref") != ref ||
		b.str("links", "0", "direction") != "in" {
		t.Errorf("agent links of the target: %s", b.texts[0])
	}
	al := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref, "agent": true, "lines": true})
	if al.get("content") != nil || al.str("lines", "0", "text") != "alpha" || al.str("line_count") != "4" {
		t.Errorf("agent with lines: %s", al.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "list", "lines": true}, "validation_failed")
}

// A body of more lines than a get answers as lines is cut at the bound,
// says so, and counts them all.
func TestItemGetLinesBound(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Many Lines")
	cs := e.session(sessionOpts{noRoots: true})
	body := strings.Repeat("x\n", 10_005)
	ref := ok(t, cs, "pad_item", map[string]any{"action": "create", "workspace": ws, "collection": "docs", "title": "Long", "content": body}).str("ref")
	g := ok(t, cs, "pad_item", map[string]any{"action": "get", "workspace": ws, "ref": ref, "lines": true})
	if len(g.list("item", "lines")) != 10_000 || g.str("item", "line_count") != "10005" || g.get("item", "lines_truncated") != true {
		t.Errorf("lines of a long body: count %d, line_count %s, truncated %v", len(g.list("item", "lines")), g.str("item", "line_count"), g.get("item", "lines_truncated"))
	}
	if len(g.texts) < 2 || !strings.Contains(g.texts[1], "10005 lines") {
		t.Errorf("no note on the cut: %v", g.texts[1:])
	}
}
