package daemon

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bundle/bundletest"
)

// unknownRef names an attachment no bundle holds: an import keeps it.
const unknownRef = "pad-attachment:00000000-0000-7000-8000-00000000dead"

// wantRefsRenamed checks that item ref of workspace ws names the new
// attachment, never the old id, in its content, its fields "cover" (a
// text) and "gallery" (a JSON value holding a list of objects), its
// versions and its comments, and that the new id downloads img.
func wantRefsRenamed(t *testing.T, h *harness, ws, ref, oldID string, img []byte) {
	t.Helper()
	base := "/api/v1/workspaces/" + ws
	var list api.AttachmentList
	h.mustJSON("GET", base+"/attachments?item_id="+ref, nil, 200, &list)
	if list.Total != 1 {
		t.Fatalf("%s/%s holds %d attachments, want 1", ws, ref, list.Total)
	}
	newID := list.Attachments[0].ID
	if strings.EqualFold(newID, oldID) {
		t.Fatalf("the imported attachment kept its id %s", oldID)
	}
	newRef := "pad-attachment:" + newID
	var it api.Item
	h.mustJSON("GET", base+"/items/"+ref, nil, 200, &it)
	var fields map[string]any
	if err := json.Unmarshal([]byte(it.Fields), &fields); err != nil {
		t.Fatal(err)
	}
	wantContent := "Before ![shot](" + newRef + ") after, and " + unknownRef + "."
	if it.Content != wantContent {
		t.Errorf("content %q, want %q", it.Content, wantContent)
	}
	if fields["cover"] != newRef {
		t.Errorf("field cover %v, want %s", fields["cover"], newRef)
	}
	gallery, _ := json.Marshal(fields["gallery"])
	if want := `[{"caption":"the shot","src":"` + newRef + `"}]`; string(gallery) != want {
		t.Errorf("field gallery %s, want %s", gallery, want)
	}
	var comments []api.Comment
	h.mustJSON("GET", base+"/items/"+ref+"/comments", nil, 200, &comments)
	if len(comments) != 1 || comments[0].Body != "See [the log]("+newRef+")" {
		t.Errorf("comments %+v", comments)
	}
	var versions []api.ItemVersion
	h.mustJSON("GET", base+"/items/"+ref+"/versions", nil, 200, &versions)
	for _, v := range versions {
		if strings.Contains(strings.ToLower(v.Content), strings.ToLower(oldID)) {
			t.Errorf("version %d still names the old attachment: %q", v.VersionSeq, v.Content)
		}
	}
	r := h.call("GET", base+"/attachments/"+newID, nil)
	if r.status != 200 || !bytes.Equal(r.body, img) {
		t.Errorf("the new reference's bytes: %d, %d bytes, want %d", r.status, len(r.body), len(img))
	}
}

// A padd bundle's attachment references (in content, a text field, a
// JSON field's nested strings, a comment and the versions) name the new
// attachment after an import, and download the same bytes.
func TestImportRewritesAttachmentRefs(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Notes", "prefix": "NOTE",
		"schema": map[string]any{"fields": []any{map[string]any{"key": "cover", "label": "Cover", "type": "text"},
			map[string]any{"key": "gallery", "label": "Gallery", "type": "json"}}}}, 201, nil)
	note := h.create("notes", map[string]any{"title": "Illustrated", "content": "no image yet"})
	img := pngBytes(t, 3, 5)
	up := h.upload(img, "shot.png", note.Ref, 201)
	ref := "pad-attachment:" + up.ID
	h.clock.advance(1e9)
	h.mustJSON("PATCH", wsPath("/items/"+note.Ref), map[string]any{"content": "First ![shot](" + ref + ")"}, 200, nil)
	h.clock.advance(1e9)
	h.mustJSON("PATCH", wsPath("/items/"+note.Ref), map[string]any{
		"content": "Before ![shot](" + ref + ") after, and " + unknownRef + ".",
		// Upper case: the reference is matched whatever its case.
		"fields": map[string]any{"cover": "pad-attachment:" + strings.ToUpper(up.ID),
			"gallery": []any{map[string]any{"src": ref, "caption": "the shot"}}}}, 200, nil)
	h.mustJSON("POST", wsPath("/items/"+note.Ref+"/comments"), map[string]any{"body": "See [the log](" + ref + ")"}, 201, nil)
	var before []api.ItemVersion
	h.mustJSON("GET", wsPath("/items/"+note.Ref+"/versions"), nil, 200, &before)

	bundle := h.mustJSON("GET", wsPath("/export?format=tar"), nil, 200, nil)
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy", string(bundle.body), 201, &res, "Content-Type", "application/gzip")
	wantRefsRenamed(t, h, "copy", note.Ref, up.ID, img)
	var after []api.ItemVersion
	h.mustJSON("GET", "/api/v1/workspaces/copy/items/"+note.Ref+"/versions", nil, 200, &after)
	if len(after) != len(before) {
		t.Errorf("%d versions after the import, %d before: the rewrite must not add one", len(after), len(before))
	}
	// The original is untouched.
	var it api.Item
	h.mustJSON("GET", wsPath("/items/"+note.Ref), nil, 200, &it)
	if !strings.Contains(it.Content, ref) {
		t.Errorf("the original's content changed: %q", it.Content)
	}
}

// A bundle made as Pad makes one (docs/BUNDLES.md: pad-export.json with
// fields as JSON text, the manifest, the blob at attachments/<id><ext>)
// imports with its references renamed too.
func TestImportRewritesPadBundleAttachmentRefs(t *testing.T) {
	h := newHarness(t)
	img := pngBytes(t, 2, 2)
	const padID = "7f3c2b9e-4a1d-4c8e-9b0f-2d6e8a1c5f37" // Pad's ids are v4 UUIDs
	ref := "pad-attachment:" + padID
	fields, _ := json.Marshal(map[string]any{"cover": ref, "gallery": []any{map[string]any{"src": ref, "caption": "the shot"}}})
	exp := api.WorkspaceExport{Version: 1, ExportedAt: "2026-12-01T00:00:00Z",
		Workspace: api.WorkspaceExportMeta{Name: "From Pad", Slug: "from-pad", Settings: "{}"},
		Collections: []api.CollectionExport{{ID: "c1", Name: "Notes", Slug: "notes", Prefix: "NOTE", Settings: "{}",
			Schema:    `{"fields":[{"key":"cover","label":"Cover","type":"text"},{"key":"gallery","label":"Gallery","type":"json"}]}`,
			CreatedAt: "2026-11-01T10:00:00Z", UpdatedAt: "2026-11-01T10:00:00Z"}},
		Items: []api.ItemExport{{ID: "i1", CollectionID: "c1", Title: "Illustrated", Slug: "illustrated",
			Content: "Before ![shot](" + ref + ") after, and " + unknownRef + ".",
			Fields:  string(fields), Tags: "[]", CreatedBy: "user", LastModifiedBy: "user", Source: "web", ItemNumber: 4,
			CreatedAt: "2026-11-02 10:00:00", UpdatedAt: "2026-11-02 10:00:00"}},
		Comments: []api.CommentExport{{ID: "k1", ItemID: "i1", Author: "Dev", Body: "See [the log](" + ref + ")", CreatedBy: "user",
			Source: "web", CreatedAt: "2026-11-02 11:00:00", UpdatedAt: "2026-11-02 11:00:00"}},
		ItemVersions: []api.ItemVersionExport{{ID: "v1", ItemID: "i1", Content: "Old ![shot](" + ref + ")", CreatedBy: "user",
			Source: "web", CreatedAt: "2026-11-02 10:00:00"}},
	}
	raw, _ := json.Marshal(exp)
	manifest := manifestOf(api.AttachmentManifestEntry{ID: padID, Filename: "Shot.PNG", MIME: "image/png", SizeBytes: int64(len(img)),
		ContentHash: sha(string(img)), ItemID: "i1", UploadedBy: "user", CreatedAt: "2026-11-02T10:30:00Z"})
	bundle := bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: string(raw)}, bundletest.Entry{Name: api.BundleManifestEntry, Body: manifest},
		bundletest.Entry{Name: "attachments/" + padID + ".png", Body: string(img)})
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import", string(bundle), 201, &res, "Content-Type", "application/gzip")
	if res.ImportSummary.Imported.Attachments != 1 || res.ImportSummary.Imported.Items != 1 || res.ImportSummary.Imported.Comments != 1 {
		t.Fatalf("summary %+v", res.ImportSummary)
	}
	wantRefsRenamed(t, h, res.Workspace.Slug, "NOTE-4", padID, img)
}
