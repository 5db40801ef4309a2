package daemon

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// fillExportable gives workspace w one of each thing an export carries:
// items with bodies, fields, tags, a parent, a role; an edited body (two
// versions); comments and a reply; links; an archived item (left out);
// a collection of its own, archived.
func fillExportable(h *harness) {
	h.t.Helper()
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Planner", "description": "plans"}, 201, nil)
	a := h.task("Alpha <&>", "content", "first body\nline two", "tags", []string{"x", "y"},
		"fields", map[string]any{"priority": "high", "status": "in-progress"}, "role", "planner")
	h.clock.advance(1e9)
	b := h.task("Beta", "parent", a.Ref, "pinned", true)
	h.task("Gamma", "content", "gamma")
	gone := h.task("Gone")
	h.mustJSON("DELETE", wsPath("/items/"+gone.Ref), nil, 204, nil)
	h.clock.advance(1e9)
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{"content": "second body", "comment": "why"}, 200, nil)
	var c api.Comment
	h.mustJSON("POST", wsPath("/items/"+a.Ref+"/comments"), map[string]any{"body": "a comment"}, 201, &c)
	h.mustJSON("POST", wsPath("/comments/"+c.ID+"/replies"), map[string]any{"body": "a reply"}, 201, nil)
	h.mustJSON("POST", wsPath("/items/"+b.Ref+"/comments"), map[string]any{"body": "on beta"}, 201, nil, "X-Pad-Agent", "robot")
	h.mustJSON("POST", wsPath("/items/"+a.Ref+"/links"), map[string]any{"target_id": b.Ref, "link_type": "blocks"}, 201, nil)
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Notes", "prefix": "NOTE",
		"schema": map[string]any{"fields": []any{map[string]any{"key": "kind", "label": "Kind", "type": "select", "options": []string{"a", "b"}}}}}, 201, nil)
	h.create("notes", map[string]any{"title": "A note", "fields": map[string]any{"kind": "b"}})
	h.mustJSON("DELETE", wsPath("/collections/notes"), nil, 204, nil)
}

// normalizeExport is an export with the ids an import renews replaced
// by what names each thing in both (a collection's slug, an item's
// number, a comment's body), and the export's time and workspace names
// left out: what must survive an export and import unchanged.
func normalizeExport(t *testing.T, raw []byte) string {
	t.Helper()
	var e api.WorkspaceExport
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, raw)
	}
	coll, item, comment := map[string]string{}, map[string]string{}, map[string]string{}
	for _, c := range e.Collections {
		coll[c.ID] = c.Slug
	}
	for _, it := range e.Items {
		item[it.ID] = fmt.Sprint("#", it.ItemNumber)
	}
	for _, c := range e.Comments {
		comment[c.ID] = c.Body
	}
	e.ExportedAt, e.Workspace.Name, e.Workspace.Slug = "", "", ""
	for i := range e.Collections {
		e.Collections[i].ID = ""
	}
	for i := range e.Items {
		it := &e.Items[i]
		it.ID, it.CollectionID, it.ParentID = item[it.ID], coll[it.CollectionID], item[it.ParentID]
	}
	for i := range e.Comments {
		c := &e.Comments[i]
		c.ID, c.ItemID, c.ParentID = "", item[c.ItemID], comment[c.ParentID]
	}
	for i := range e.ItemLinks {
		l := &e.ItemLinks[i]
		l.ID, l.SourceID, l.TargetID = "", item[l.SourceID], item[l.TargetID]
	}
	for i := range e.ItemVersions {
		v := &e.ItemVersions[i]
		v.ID, v.ItemID = "", item[v.ItemID]
	}
	key := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	sortBy := func(s any) {
		switch x := s.(type) {
		case []api.ItemExport:
			slices.SortFunc(x, func(a, b api.ItemExport) int { return strings.Compare(a.ID, b.ID) })
		case []api.CommentExport:
			slices.SortFunc(x, func(a, b api.CommentExport) int { return strings.Compare(key(a), key(b)) })
		case []api.ItemVersionExport:
			slices.SortFunc(x, func(a, b api.ItemVersionExport) int { return strings.Compare(key(a), key(b)) })
		}
	}
	sortBy(e.Items)
	sortBy(e.Comments)
	sortBy(e.ItemVersions)
	out, err := json.MarshalIndent(e, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestExportImportRoundTrip(t *testing.T) {
	h := newHarness(t)
	fillExportable(h)
	first := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	if ct := first.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var e api.WorkspaceExport
	if err := json.Unmarshal(first.body, &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Items) != 4 || len(e.Comments) != 4 || len(e.ItemLinks) != 1 || len(e.Collections) != 7 || len(e.Roles) != 1 {
		t.Fatalf("export holds %d items, %d comments, %d links, %d collections, %d roles:\n%s",
			len(e.Items), len(e.Comments), len(e.ItemLinks), len(e.Collections), len(e.Roles), first.body)
	}
	if !bytes.Contains(first.body, []byte(`Alpha <&>`)) {
		t.Error("the export escapes HTML characters")
	}

	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy", string(first.body), 201, &res)
	if res.Slug != "copy" || res.Name != "Copy" {
		t.Errorf("imported workspace %q (%s)", res.Name, res.Slug)
	}
	want := api.ImportCounts{Collections: 7, Items: 4, Comments: 4, Links: 1, Versions: len(e.ItemVersions), Roles: 1}
	if res.ImportSummary.Imported != want || res.ImportSummary.InBundle != want || len(res.ImportSummary.NotModelled) != 0 {
		t.Errorf("summary %+v, want in and imported %+v", res.ImportSummary, want)
	}
	second := h.mustJSON("GET", "/api/v1/workspaces/copy/export", nil, 200, nil)
	if a, b := normalizeExport(t, first.body), normalizeExport(t, second.body); a != b {
		t.Fatalf("the copy differs from the original:\n--- original\n%s\n--- copy\n%s", a, b)
	}

	// The copy is a working workspace: its refs, search and children answer.
	var it api.Item
	h.mustJSON("GET", "/api/v1/workspaces/copy/items/TASK-2", nil, 200, &it)
	if it.Title != "Beta" || it.ParentRef != "TASK-1" {
		t.Errorf("TASK-2 in the copy: %+v", it)
	}

	// The bundle: the same JSON first, then the manifest, byte-identical
	// between two exports apart from exported_at.
	b1 := h.mustJSON("GET", wsPath("/export?format=tar"), nil, 200, nil)
	b2 := h.mustJSON("GET", wsPath("/export?format=tar"), nil, 200, nil)
	if tr := bundleTrailer(h, wsPath("/export?format=tar")); tr != api.BundleStatusOK {
		t.Errorf("bundle trailer %q", tr)
	}
	names, tar1 := untar(t, b1.body)
	_, tar2 := untar(t, b2.body)
	if !slices.Equal(names, []string{api.BundleExportEntry, api.BundleManifestEntry}) {
		t.Errorf("bundle entries %v", names)
	}
	at := regexp.MustCompile(`"exported_at": "[^"]*"`)
	if !bytes.Equal(at.ReplaceAll(tar1, nil), at.ReplaceAll(tar2, nil)) {
		t.Error("two bundles of one workspace differ beyond exported_at")
	}
	h.mustJSON("POST", "/api/v1/workspaces/import", string(b1.body), 201, &res, "Content-Type", "application/gzip")
	if res.Slug != "w-2" || res.ImportSummary.Imported != want {
		t.Errorf("bundle import: %s, %+v", res.Slug, res.ImportSummary)
	}
	third := h.mustJSON("GET", "/api/v1/workspaces/w-2/export", nil, 200, nil)
	if a, b := normalizeExport(t, first.body), normalizeExport(t, third.body); a != b {
		t.Fatalf("the bundle's copy differs:\n--- original\n%s\n--- copy\n%s", a, b)
	}
}

// untar reads a bundle's entry names and its whole tar stream.
func untar(t *testing.T, gz []byte) ([]string, []byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(raw))
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names, raw
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
	}
}

// bundleTrailer reads a bundle export to its end and answers its
// status trailer.
func bundleTrailer(h *harness, path string) string {
	h.t.Helper()
	req, err := http.NewRequest("GET", h.ts.URL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		h.t.Fatal(err)
	}
	return resp.Trailer.Get(api.BundleStatusTrailer)
}

func TestExportFilesAreSwept(t *testing.T) {
	dir := t.TempDir()
	old, fresh := filepath.Join(dir, ".export-1.json"), filepath.Join(dir, ".export-2.json")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	day := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(old, day, day); err != nil {
		t.Fatal(err)
	}
	sweepExportFiles(dir, time.Now().Add(-24*time.Hour))
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("a day-old export file was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh export file was removed")
	}
}

// Relation values name items by id: an import gives them the new ids,
// also when the item named comes later in the export (a second pass).
func TestImportRemapsRelations(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Specs", "prefix": "SPEC",
		"schema": map[string]any{"fields": []any{
			map[string]any{"key": "see", "label": "See", "type": "relation", "collection": "specs"},
			map[string]any{"key": "also", "label": "Also", "type": "multi_relation", "collection": "specs"}}}}, 201, nil)
	a := h.create("specs", map[string]any{"title": "A"})
	b := h.create("specs", map[string]any{"title": "B", "fields": map[string]any{"see": a.ID, "also": []string{a.ID}}})
	// A names B, which the export holds after A.
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{"fields_patch": map[string]any{"see": b.ID}}, 200, nil)
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Rel", string(exp.body), 201, &res)
	var na, nb api.Item
	h.mustJSON("GET", "/api/v1/workspaces/rel/items/"+a.Ref, nil, 200, &na)
	h.mustJSON("GET", "/api/v1/workspaces/rel/items/"+b.Ref, nil, 200, &nb)
	fa, _ := api.DecodeObject(na.Fields)
	fb, _ := api.DecodeObject(nb.Fields)
	if fa["see"] != nb.ID || fb["see"] != na.ID || fmt.Sprint(fb["also"]) != fmt.Sprint([]any{na.ID}) {
		t.Errorf("relations not remapped: A %v (B is %s), B %v (A is %s)", fa, nb.ID, fb, na.ID)
	}
}

// A Pad workspace may hold two collections of one prefix (Pad makes
// "tasks-2" with prefix TASK for a second "Tasks"). Its numbers are
// workspace-wide, so refs stay unique: padd imports it with the prefix
// shared, and each ref names its own item.
func TestImportSharedPrefix(t *testing.T) {
	h := newHarness(t)
	h.create("tasks", map[string]any{"title": "in tasks"})
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	var e api.WorkspaceExport
	if err := json.Unmarshal(exp.body, &e); err != nil {
		t.Fatal(err)
	}
	var tasks api.CollectionExport
	for _, c := range e.Collections {
		if c.Slug == "tasks" {
			tasks = c
		}
	}
	second := tasks
	second.ID, second.Slug = "00000000-0000-4000-8000-000000000002", "tasks-2"
	e.Collections = append(e.Collections, second)
	it := e.Items[len(e.Items)-1]
	it.ID, it.CollectionID, it.Title, it.Slug, it.ItemNumber = "00000000-0000-4000-8000-000000000003", second.ID, "in tasks-2", "in-tasks-2", it.ItemNumber+1
	e.Items = append(e.Items, it)
	body, _ := json.Marshal(e)
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Shared", string(body), 201, &res)
	for ref, title := range map[string]string{fmt.Sprintf("TASK-%d", it.ItemNumber-1): "in tasks", fmt.Sprintf("TASK-%d", it.ItemNumber): "in tasks-2"} {
		var got api.Item
		h.mustJSON("GET", "/api/v1/workspaces/shared/items/"+ref, nil, 200, &got)
		if got.Title != title {
			t.Errorf("%s = %q, want %q", ref, got.Title, title)
		}
	}
}
