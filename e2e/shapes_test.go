//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestPadShapes: answers have Pad's shapes, the ones Pad's own CLI
// decodes: an item's fields and tags are JSON text (an object and an
// array of strings), a collection's schema and settings are JSON text,
// lists are bare arrays with X-Pad-Has-More, timestamps are RFC3339
// (items in whole seconds, as Pad stores them).
func TestPadShapes(t *testing.T) {
	t.Parallel()
	d := startPadd(t, t.TempDir())
	ws := d.mkWorkspace(t, "Shapes")
	wsPath := "/api/v1/workspaces/" + ws

	// Workspaces: bare array; settings is text.
	r := d.do(t, "GET", "/api/v1/workspaces", nil)
	wantStatus(t, r, 200)
	for _, w := range bareArray(t, r) {
		wantText(t, w, "settings", '{')
		wantTime(t, w, "created_at", false)
		wantTime(t, w, "updated_at", false)
	}

	// Collections: bare array; schema and settings are text.
	r = d.do(t, "GET", wsPath+"/collections", nil)
	wantStatus(t, r, 200)
	colls := bareArray(t, r)
	if len(colls) == 0 {
		t.Fatalf("a startup workspace has no collections: %s", r)
	}
	for _, c := range colls {
		schema := wantText(t, c, "schema", '{')
		var s struct {
			Fields []map[string]any `json:"fields"`
		}
		if err := json.Unmarshal([]byte(schema), &s); err != nil || s.Fields == nil {
			t.Errorf("collection schema text %q is not {\"fields\":[...]}: %v", schema, err)
		}
		wantText(t, c, "settings", '{')
		wantTime(t, c, "created_at", false)
		wantTime(t, c, "updated_at", false)
	}
	r = d.do(t, "GET", wsPath+"/collections/tasks", nil)
	wantStatus(t, r, 200)
	c := object(t, r.Body)
	wantText(t, c, "schema", '{')
	wantText(t, c, "settings", '{')
	// A created collection answers the same way.
	r = d.do(t, "POST", wsPath+"/collections", mustJSON(t, map[string]any{"name": "Bugs",
		"schema": map[string]any{"fields": []map[string]any{{"key": "severity", "label": "Severity", "type": "select", "options": []string{"low", "high"}}}}}))
	wantStatus(t, r, 201)
	c = object(t, r.Body)
	if !strings.Contains(wantText(t, c, "schema", '{'), "severity") {
		t.Errorf("created collection's schema text lacks its field: %s", c["schema"])
	}
	wantText(t, c, "settings", '{')

	// Items: fields and tags as text, whether sent as values or as text.
	items := wsPath + "/collections/tasks/items"
	for _, body := range []string{
		`{"title":"values","fields":{"status":"open","priority":"high"},"tags":["a","b"]}`,
		`{"title":"text","fields":"{\"status\":\"open\",\"priority\":\"high\"}","tags":"[\"a\",\"b\"]"}`,
	} {
		r = d.do(t, "POST", items, []byte(body))
		wantStatus(t, r, 201)
		created := object(t, r.Body)
		checkItemShape(t, created)
		id := textOf(t, created, "id")
		r = d.do(t, "GET", wsPath+"/items/"+id, nil)
		wantStatus(t, r, 200)
		checkItemShape(t, object(t, r.Body))
	}
	r = d.do(t, "POST", items, []byte(`{"title":"bare"}`))
	wantStatus(t, r, 201)
	bare := object(t, r.Body)
	if wantText(t, bare, "tags", '[') != "[]" {
		t.Errorf("an item without tags answers tags %s, want \"[]\"", bare["tags"])
	}
	wantText(t, bare, "fields", '{')

	// Lists: bare arrays with X-Pad-Has-More (and X-Pad-Next-Offset when true).
	for _, path := range []string{wsPath + "/items", items} {
		r = d.do(t, "GET", path, nil)
		wantStatus(t, r, 200)
		list := bareArray(t, r)
		if len(list) != 3 {
			t.Errorf("%s lists %d items, want 3", path, len(list))
		}
		for _, it := range list {
			checkItemShape(t, it)
		}
		if h := r.Header.Get("X-Pad-Has-More"); h != "false" {
			t.Errorf("%s: X-Pad-Has-More %q, want false", path, h)
		}
		r = d.do(t, "GET", path+"?limit=2", nil)
		if len(bareArray(t, r)) != 2 || r.Header.Get("X-Pad-Has-More") != "true" || r.Header.Get("X-Pad-Next-Offset") != "2" {
			t.Errorf("%s?limit=2: %d items, X-Pad-Has-More %q, X-Pad-Next-Offset %q; want 2, true, 2", path,
				len(bareArray(t, r)), r.Header.Get("X-Pad-Has-More"), r.Header.Get("X-Pad-Next-Offset"))
		}
		r = d.do(t, "GET", path+"?limit=2&offset=2", nil)
		if len(bareArray(t, r)) != 1 || r.Header.Get("X-Pad-Has-More") != "false" {
			t.Errorf("%s?limit=2&offset=2: %d items, X-Pad-Has-More %q; want 1, false", path,
				len(bareArray(t, r)), r.Header.Get("X-Pad-Has-More"))
		}
	}
	// An empty list is [] (not null).
	r = d.do(t, "GET", wsPath+"/collections/ideas/items", nil)
	if got := string(bytes.TrimSpace(r.Body)); got != "[]" {
		t.Errorf("empty item list answers %s, want []", got)
	}
}

// checkItemShape checks one item answer.
func checkItemShape(t *testing.T, it map[string]json.RawMessage) {
	t.Helper()
	fields := wantText(t, it, "fields", '{')
	var f map[string]any
	if err := json.Unmarshal([]byte(fields), &f); err != nil {
		t.Errorf("item fields text %q is not a JSON object: %v", fields, err)
	}
	if textOf(t, it, "title") != "bare" && (f["status"] != "open" || f["priority"] != "high") {
		t.Errorf("item fields %v, want status open and priority high", f)
	}
	tags := wantText(t, it, "tags", '[')
	var tl []string
	if err := json.Unmarshal([]byte(tags), &tl); err != nil {
		t.Errorf("item tags text %q is not a JSON array of strings: %v", tags, err)
	}
	for _, k := range []string{"id", "workspace_id", "collection_id", "title", "slug", "ref", "content", "source", "created_by"} {
		textOf(t, it, k)
	}
	for _, k := range []string{"seq", "item_number", "sort_order"} {
		var n json.Number
		if err := json.Unmarshal(it[k], &n); err != nil {
			t.Errorf("item %s is %s, want a number", k, it[k])
		}
	}
	wantTime(t, it, "created_at", true)
	wantTime(t, it, "updated_at", true)
}

func object(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v: %s", err, b)
	}
	return m
}

// bareArray requires a bare JSON array of objects.
func bareArray(t *testing.T, r reply) []map[string]json.RawMessage {
	t.Helper()
	if b := bytes.TrimSpace(r.Body); len(b) == 0 || b[0] != '[' {
		t.Fatalf("list answer is not a bare array: %s", r)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatalf("list answer is not an array of objects: %v: %s", err, r)
	}
	return list
}

// textOf requires m[k] to be a JSON string and returns it.
func textOf(t *testing.T, m map[string]json.RawMessage, k string) string {
	t.Helper()
	raw, ok := m[k]
	if !ok {
		t.Errorf("answer has no %q", k)
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Errorf("%q is %s, want a JSON string", k, raw)
	}
	return s
}

// wantText requires m[k] to be a JSON string whose text is JSON starting
// with first ('{' or '['), and returns the text.
func wantText(t *testing.T, m map[string]json.RawMessage, k string, first byte) string {
	t.Helper()
	s := textOf(t, m, k)
	if s == "" || s[0] != first || !json.Valid([]byte(s)) {
		t.Errorf("%q is %s, want JSON text of a %c...", k, m[k], first)
	}
	return s
}

// wantTime requires m[k] to be an RFC3339 timestamp (in whole seconds
// when whole is set).
func wantTime(t *testing.T, m map[string]json.RawMessage, k string, whole bool) {
	t.Helper()
	s := textOf(t, m, k)
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Errorf("%q is %q, not RFC3339: %v", k, s, err)
		return
	}
	if ts.IsZero() || ts.Year() < 2020 {
		t.Errorf("%q is %q: not a real time", k, s)
	}
	if whole && ts.Nanosecond() != 0 {
		t.Errorf("%q is %q: Pad's item timestamps are whole seconds (expected_updated_at compares them)", k, s)
	}
}

// TestAccessAndToolSurfaceShapes: Pad's GET /workspaces/{ws}/me answers
// the one user's access (owner, every collection), and GET
// /api/v1/mcp/tool-surface the MCP catalog pad_meta dumps, from the
// padd binary that wires it.
func TestAccessAndToolSurfaceShapes(t *testing.T) {
	t.Parallel()
	d := startPadd(t, t.TempDir())
	ws := d.mkWorkspace(t, "Access")
	r := d.do(t, "GET", "/api/v1/workspaces/"+ws+"/me", nil)
	wantStatus(t, r, 200)
	if got := strings.TrimSpace(string(r.Body)); got != `{"role":"owner","collection_access":"all","visible_collection_ids":null,"full_access_collection_ids":null,"collection_grants":[],"item_grants":[]}` {
		t.Errorf("me = %s", got)
	}
	wantStatus(t, d.do(t, "GET", "/api/v1/workspaces/nope/me", nil), 404)

	r = d.do(t, "GET", "/api/v1/mcp/tool-surface", nil)
	wantStatus(t, r, 200)
	var surface struct {
		Version string `json:"tool_surface_version"`
		Tools   []struct {
			Name    string `json:"name"`
			Actions []struct {
				Name     string `json:"name"`
				ReadOnly bool   `json:"read_only"`
			} `json:"actions"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &surface); err != nil || surface.Version == "" || len(surface.Tools) == 0 {
		t.Fatalf("tool surface %.300s: %v", r.Body, err)
	}
	for _, tool := range surface.Tools {
		if tool.Name == "pad_item" && len(tool.Actions) > 0 && tool.InputSchema != nil {
			return
		}
	}
	t.Errorf("no pad_item with actions and a schema in %.300s", r.Body)
}
