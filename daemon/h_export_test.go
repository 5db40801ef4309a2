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

// normalizeExport is an export (and its bundle's manifest, if given)
// with the ids an import renews replaced by what names each thing in
// both (a collection's slug, an item's number, a comment's body, an
// attachment's file name), wherever they appear (relation values and
// defaults, pad-attachment references), and the export's time and
// workspace names left out: what must survive an export and import
// unchanged.
func normalizeExport(t *testing.T, raw []byte, manifest ...api.AttachmentManifestEntry) string {
	t.Helper()
	var e api.WorkspaceExport
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, raw)
	}
	coll, item, comment := map[string]string{}, map[string]string{}, map[string]string{}
	names := map[string]string{}
	for _, c := range e.Collections {
		coll[c.ID] = c.Slug
		names[c.ID] = "collection:" + c.Slug
	}
	for _, it := range e.Items {
		item[it.ID] = fmt.Sprint("#", it.ItemNumber)
		names[it.ID] = item[it.ID]
	}
	for _, c := range e.Comments {
		comment[c.ID] = c.Body
	}
	for _, m := range manifest {
		names[m.ID] = "attachment:" + m.Filename
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
		// The body names attachments by id: its hash is held to it, not
		// compared.
		v.BodySHA256 = fmt.Sprint("matches: ", v.BodySHA256 == sha(v.Content))
	}
	key := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	sortBy := func(s any) {
		switch x := s.(type) {
		case []api.ItemExport:
			slices.SortFunc(x, func(a, b api.ItemExport) int { return strings.Compare(a.ID, b.ID) })
		case []api.CommentExport:
			slices.SortFunc(x, func(a, b api.CommentExport) int { return strings.Compare(key(a), key(b)) })
		case []api.ItemLinkExport:
			slices.SortFunc(x, func(a, b api.ItemLinkExport) int { return strings.Compare(key(a), key(b)) })
		case []api.ItemVersionExport:
			slices.SortFunc(x, func(a, b api.ItemVersionExport) int { return strings.Compare(key(a), key(b)) })
		}
	}
	sortBy(e.Items)
	sortBy(e.Comments)
	sortBy(e.ItemLinks)
	sortBy(e.ItemVersions)
	ms := slices.Clone(manifest)
	for i := range ms {
		ms[i].ID, ms[i].ItemID = "", item[ms[i].ItemID]
	}
	out, err := json.MarshalIndent(struct {
		Export   api.WorkspaceExport
		Manifest []api.AttachmentManifestEntry `json:",omitempty"`
	}{e, ms}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for id, name := range names {
		text = strings.ReplaceAll(text, id, name)
	}
	return text
}

// The fixture holding every kind of thing (fillEverything) goes out and
// back in as the JSON export and as the bundle: each copy's export
// equals the original's once the renewed ids are named by what they
// name, and the import's summary counts what it holds.
func TestExportImportRoundTrip(t *testing.T) {
	h := newHarness(t)
	all := fillEverything(h)
	first := h.mustJSON("GET", "/api/v1/workspaces/"+all+"/export", nil, 200, nil)
	if ct := first.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var e api.WorkspaceExport
	if err := json.Unmarshal(first.body, &e); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(first.body, []byte(`Alpha <&>`)) {
		t.Error("the export escapes HTML characters")
	}

	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy", string(first.body), 201, &res)
	if res.Slug != "copy" || res.Name != "Copy" {
		t.Errorf("imported workspace %q (%s)", res.Name, res.Slug)
	}
	want := api.ImportCounts{Collections: len(e.Collections), Items: len(e.Items), Comments: len(e.Comments),
		Links: len(e.ItemLinks), Versions: len(e.ItemVersions), Roles: len(e.Roles)}
	if res.ImportSummary.Imported != want || res.ImportSummary.InBundle != want || len(res.ImportSummary.NotModelled) != 0 {
		t.Errorf("summary %+v, want in and imported %+v", res.ImportSummary, want)
	}
	second := h.mustJSON("GET", "/api/v1/workspaces/copy/export", nil, 200, nil)
	if a, b := normalizeExport(t, first.body), normalizeExport(t, second.body); a != b {
		t.Fatalf("the copy differs from the original:\n%s", lineDiff(a, b))
	}

	// The copy is a working workspace: its refs, old refs and children answer.
	var it api.Item
	h.mustJSON("GET", "/api/v1/workspaces/copy/items/TASK-2", nil, 200, &it)
	if it.Title != "Beta" || it.ParentRef != "TASK-1" {
		t.Errorf("TASK-2 in the copy: %+v", it)
	}
	var spec api.Item
	h.mustJSON("GET", "/api/v1/workspaces/"+all+"/items/SPEC-6", nil, 200, &spec)
	h.mustJSON("GET", "/api/v1/workspaces/copy/items/SPEC-6", nil, 200, &it)
	if it.Title != spec.Title || it.Ref != spec.Ref {
		t.Errorf("SPEC-6 (a ref under the collection's former prefix) in the copy: %s %q, in the original %s %q", it.Ref, it.Title, spec.Ref, spec.Title)
	}

	// The bundle: the same JSON first, then the manifest, byte-identical
	// between two exports apart from exported_at.
	b1 := h.mustJSON("GET", "/api/v1/workspaces/"+all+"/export?format=tar", nil, 200, nil)
	b2 := h.mustJSON("GET", "/api/v1/workspaces/"+all+"/export?format=tar", nil, 200, nil)
	if tr := bundleTrailer(h, "/api/v1/workspaces/"+all+"/export?format=tar"); tr != api.BundleStatusOK {
		t.Errorf("bundle trailer %q", tr)
	}
	names, tar1 := untar(t, b1.body)
	_, tar2 := untar(t, b2.body)
	if len(names) != 4 || names[0] != api.BundleExportEntry || names[1] != api.BundleManifestEntry {
		t.Errorf("bundle entries %v", names)
	}
	at := regexp.MustCompile(`"exported_at": "[^"]*"`)
	if !bytes.Equal(at.ReplaceAll(tar1, nil), at.ReplaceAll(tar2, nil)) {
		t.Error("two bundles of one workspace differ beyond exported_at")
	}
	h.mustJSON("POST", "/api/v1/workspaces/import", string(b1.body), 201, &res, "Content-Type", "application/gzip")
	want.Attachments = 2
	if res.ImportSummary.Imported != want || len(res.ImportSummary.NotModelled) != 0 {
		t.Errorf("bundle import: %s, %+v", res.Slug, res.ImportSummary)
	}
	b3 := h.mustJSON("GET", "/api/v1/workspaces/"+res.Slug+"/export?format=tar", nil, 200, nil)
	if a, b := normalizeBundle(t, b1.body), normalizeBundle(t, b3.body); a != b {
		t.Fatalf("the bundle's copy differs:\n%s", lineDiff(a, b))
	}
}

// normalizeBundle is normalizeExport of a bundle's JSON and manifest.
func normalizeBundle(t *testing.T, bundle []byte) string {
	t.Helper()
	es := bundleEntries(t, bundle)
	var m api.AttachmentManifest
	if err := json.Unmarshal([]byte(es[1].Body), &m); err != nil {
		t.Fatal(err)
	}
	return normalizeExport(t, []byte(es[0].Body), m.Entries...)
}

// lineDiff shows the lines where two texts first part, with context.
func lineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	from := max(0, i-8)
	return fmt.Sprintf("--- original (from line %d)\n%s\n--- copy\n%s", from+1,
		strings.Join(la[from:min(len(la), i+12)], "\n"), strings.Join(lb[from:min(len(lb), i+12)], "\n"))
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
