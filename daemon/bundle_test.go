package daemon

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bundle/bundletest"
)

// smallExport is a valid pad-export.json of one collection and one item.
const smallExport = `{"version":1,"exported_at":"2026-12-01T00:00:00Z","workspace":{"name":"Small","slug":"small","description":"","settings":"{}"},
"collections":[{"id":"c1","name":"Tasks","slug":"tasks","icon":"","description":"","schema":"{\"fields\":[{\"key\":\"status\",\"label\":\"Status\",\"type\":\"select\",\"options\":[\"open\",\"done\"],\"default\":\"open\"}]}","settings":"{}","prefix":"TASK","sort_order":0,"is_default":true,"is_system":false,"created_at":"2026-11-01T10:00:00Z","updated_at":"2026-11-01T10:00:00Z"}],
"items":[{"id":"i1","collection_id":"c1","title":"One","slug":"one","content":"body","fields":"{\"status\":\"open\"}","tags":"[]","pinned":false,"sort_order":0,"created_by":"user","last_modified_by":"user","source":"web","item_number":7,"created_at":"2026-11-02 10:00:00","updated_at":"2026-11-03T10:00:00Z"}]}`

func manifestOf(entries ...api.AttachmentManifestEntry) string {
	b, _ := json.Marshal(api.AttachmentManifest{Version: 1, Entries: entries})
	return string(b)
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestImportRefusesHostileBundles(t *testing.T) {
	h := newHarness(t)
	blob := "\x89PNG\r\n\x1a\nnot really"
	okManifest := manifestOf(api.AttachmentManifestEntry{ID: "a1", Filename: "Shot.PNG", MIME: "image/png",
		SizeBytes: int64(len(blob)), ContentHash: sha(blob)})
	badManifest := manifestOf(api.AttachmentManifestEntry{ID: "a1", Filename: "shot.png", MIME: "image/png",
		SizeBytes: int64(len(blob)), ContentHash: sha("something else")})
	cases := []struct {
		name   string
		body   []byte
		code   string
		reason string
	}{
		{"traversal", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "../evil", Body: "x"}), api.CodeBadBundle, "unsafe_entry"},
		{"traversal inside", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "attachments/../../x", Body: "x"}), api.CodeBadBundle, "unsafe_entry"},
		{"absolute", bundletest.Make(t, bundletest.Entry{Name: "/etc/passwd", Body: "x"}), api.CodeBadBundle, "unsafe_entry"},
		{"backslash", bundletest.Make(t, bundletest.Entry{Name: `..\x`, Body: "x"}), api.CodeBadBundle, "unsafe_entry"},
		{"symlink", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "attachments/l", Type: tar.TypeSymlink, Link: "/etc/passwd"}), api.CodeBadBundle, "unsafe_entry"},
		{"hard link", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "attachments/l", Type: tar.TypeLink, Link: api.BundleExportEntry}), api.CodeBadBundle, "unsafe_entry"},
		{"duplicate export", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "./" + api.BundleExportEntry, Body: smallExport}), api.CodeBadBundle, "duplicate_entry"},
		{"export not first", bundletest.Make(t, bundletest.Entry{Name: "readme", Body: "x"}, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}), api.CodeBadBundle, "order"},
		{"blob before manifest", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "attachments/a1.png", Body: blob}), api.CodeBadBundle, "order"},
		{"blob hash", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: api.BundleManifestEntry, Body: badManifest},
			bundletest.Entry{Name: "attachments/a1.png", Body: blob}), api.CodeBadBundle, "blob_hash_mismatch"},
		{"bad json", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: `{"version":1,"items":[`}), api.CodeBadBundle, "json"},
		{"no export", bundletest.Make(t, bundletest.Entry{Name: "other.txt", Body: "x"}), api.CodeBadBundle, "missing_export"},
		{"not gzip", []byte("PK\x03\x04 a zip file"), api.CodeBadBundle, "gzip"},
		{"cut short", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport})[:100], api.CodeBadBundle, "damaged"},
		{"cut in a blob", cutInBlob(t, smallExport), api.CodeBadBundle, "damaged"},
		{"version", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: strings.Replace(smallExport, `"version":1`, `"version":2`, 1)}), api.CodeBadBundle, "version"},
		{"model: unknown collection", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: strings.Replace(smallExport, `"collection_id":"c1"`, `"collection_id":"c9"`, 1)}), "validation_error", ""},
		{"model: bad status", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: strings.Replace(smallExport, `{\"status\":\"open\"}`, `{\"status\":\"nope\"}`, 1)}), "validation_error", ""},
		{"model: fields not an object", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: strings.Replace(smallExport, `{\"status\":\"open\"}`, `[1]`, 1)}), "validation_error", ""},
		{"model: bad timestamp", bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: strings.Replace(smallExport, `2026-11-03T10:00:00Z`, `yesterday`, 1)}), "validation_error", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := h.wantError("POST", "/api/v1/workspaces/import", string(c.body), 400, c.code, "Content-Type", "application/gzip")
			if c.reason != "" && e.Details["reason"] != c.reason {
				t.Errorf("reason %v, want %s: %s", e.Details["reason"], c.reason, e.Message)
			}
			var wss []api.Workspace
			h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &wss)
			if len(wss) != 1 {
				t.Errorf("a refused import left %d workspaces", len(wss))
			}
			if n := blobFiles(t, h); n != 0 {
				t.Errorf("a refused import left %d files in the blob directory", n)
			}
		})
	}

	// The same bundle with a good manifest imports, the blob as an
	// unattached attachment, and the item keeps its number, times and door.
	good := bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: api.BundleManifestEntry, Body: okManifest},
		bundletest.Entry{Name: "attachments/a1.png", Body: blob}, bundletest.Entry{Name: "extra/notes.txt", Body: "?"})
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import", string(good), 201, &res, "Content-Type", "application/x-gzip; charset=binary")
	if res.ImportSummary.InBundle.Attachments != 1 || res.ImportSummary.Imported.Attachments != 1 ||
		res.ImportSummary.NotModelled["unknown_entry"] != 1 || res.ImportSummary.Imported.Items != 1 {
		t.Errorf("summary %+v", res.ImportSummary)
	}
	var it api.Item
	h.mustJSON("GET", "/api/v1/workspaces/small/items/TASK-7", nil, 200, &it)
	if it.Title != "One" || it.CreatedAt.Format("2006-01-02T15") != "2026-11-02T10" || it.UpdatedAt.Format("2006-01-02") != "2026-11-03" || it.Source != "web" {
		t.Errorf("imported item %+v", it)
	}
}

// A body that is not Pad's export is refused in words, not in the JSON
// decoder's ("invalid character 'o' in literal null", issue 41): what it
// is (empty, gzip, not JSON, cut short, broken at byte N, a field of the
// wrong kind), as JSON and as a bundle's pad-export.json.
func TestImportSaysWhatIsWrong(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		name, body, contentType, code string
		says                          []string
	}{
		{"empty", "", "", "bad_request", []string{"is empty"}},
		{"text", "not a bundle\n", "", "bad_request", []string{"not JSON", `starts with "not a bundle`}},
		{"gzip sent as JSON", "\x1f\x8b\x08\x00 rest", "", "bad_request", []string{"gzip", "bundle"}},
		{"cut short", `{"version":1,"items":[`, "", "bad_request", []string{"stops before its end"}},
		{"broken", `{"version":1,,}`, "", "bad_request", []string{"broken at byte 14"}},
		{"wrong kind", `{"version":"one"}`, "", "bad_request", []string{`"version" is a string`, "a number"}},
		{"text as a bundle", "not a bundle\n", "application/gzip", api.CodeBadBundle, []string{"not a tar.gz bundle", "not gzip", `starts with "not a bundle`}},
		{"zip as a bundle", "PK\x03\x04 a zip", "application/gzip", api.CodeBadBundle, []string{"not a tar.gz bundle", "zip"}},
		{"bundle with broken JSON", string(bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: `{"version":1,"items":[`})), "application/gzip",
			api.CodeBadBundle, []string{"pad-export.json", "stops before its end"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hdr []string
			if c.contentType != "" {
				hdr = []string{"Content-Type", c.contentType}
			}
			e := h.wantError("POST", "/api/v1/workspaces/import", c.body, 400, c.code, hdr...)
			for _, s := range c.says {
				if !strings.Contains(e.Message, s) {
					t.Errorf("%q does not say %q", e.Message, s)
				}
			}
			for _, jargon := range []string{"invalid character", "literal", "unexpected EOF", "gzip: ", "Go value"} {
				if strings.Contains(e.Message, jargon) {
					t.Errorf("%q speaks the decoder's words (%q)", e.Message, jargon)
				}
			}
		})
	}
}

func TestImportJSONRefusals(t *testing.T) {
	h := newHarness(t)
	h.wantError("POST", "/api/v1/workspaces/import", `{"version":1,`, 400, "bad_request")
	h.wantError("POST", "/api/v1/workspaces/import", `{"version":1} {}`, 400, "bad_request")
	e := h.wantError("POST", "/api/v1/workspaces/import", strings.Replace(smallExport, `"title":"One"`, `"title":"`+strings.Repeat("t", 1001)+`"`, 1), 400, "validation_error")
	if e.Details["entity"] != "item" {
		t.Errorf("details %v", e.Details)
	}
	// A body that stops arriving is an interrupted import, and nothing is left.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(smallExport[:50]))
		pw.CloseWithError(errors.New("the client gave up"))
	}()
	req, _ := http.NewRequest("POST", h.ts.URL+"/api/v1/workspaces/import", pr)
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", "application/gzip")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	var wss []api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &wss)
	if len(wss) != 1 {
		t.Errorf("an interrupted import left %d workspaces", len(wss))
	}
}

// A link padd refuses (here the second half of a blocking cycle, which
// Pad may hold) is counted and left out; the rest imports, in Pad's
// spellings (split_from), and a type padd does not know is kept as it
// came (model.ForeignLinkType). A type that is no name at all is counted.
func TestImportCountsRefusedLinks(t *testing.T) {
	h := newHarness(t)
	two := strings.Replace(smallExport, `"items":[`, `"items":[{"id":"i0","collection_id":"c1","title":"Zero","slug":"zero","content":"","fields":"{}","tags":"[]","pinned":false,"sort_order":0,"created_by":"user","last_modified_by":"user","source":"web","item_number":6,"created_at":"2026-11-02T10:00:00Z","updated_at":"2026-11-02T10:00:00Z"},`, 1)
	body := strings.TrimSuffix(two, "}") + `,"item_links":[
{"id":"l1","source_id":"i0","target_id":"i1","link_type":"blocks","created_by":"user","created_at":"2026-11-04T10:00:00Z"},
{"id":"l2","source_id":"i1","target_id":"i0","link_type":"blocks","created_by":"user","created_at":"2026-11-04T10:00:00Z"},
{"id":"l3","source_id":"i1","target_id":"i0","link_type":"relates-to","created_by":"user","created_at":"2026-11-04T10:00:00Z"},
{"id":"l4","source_id":"i1","target_id":"i0","link_type":"split_from","created_by":"user","created_at":"2026-11-04T10:00:00Z"},
{"id":"l5","source_id":"i1","target_id":"i0","link_type":"not a type!","created_by":"user","created_at":"2026-11-04T10:00:00Z"}]}`
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import", body, 201, &res)
	s := res.ImportSummary
	if s.Imported.Links != 3 || s.InBundle.Links != 5 || s.NotModelled["link_refused"] != 1 || s.NotModelled["link_type_not a type!"] != 1 {
		t.Errorf("summary %+v", s)
	}
}

// Attachments travel in the bundle: the manifest and each blob, in a
// fixed order; the import puts the blobs in place and binds each row to
// the copy of its item. One on an archived item stays behind (as the
// item does).
func TestBundleCarriesAttachments(t *testing.T) {
	h := newHarness(t)
	h.task("Has files")
	h.task("Archived")
	img := pngBytes(t, 4, 2)
	shot := h.upload(img, "shot.png", "TASK-1", 201)
	h.upload([]byte("loose notes"), "notes", "", 201)
	h.upload([]byte("gone with its item"), "old.txt", "TASK-2", 201)
	h.mustJSON("DELETE", wsPath("/items/TASK-2"), nil, 204, nil)

	b1 := h.mustJSON("GET", wsPath("/export?format=tar"), nil, 200, nil)
	b2 := h.mustJSON("GET", wsPath("/export?format=tar"), nil, 200, nil)
	names, tar1 := untar(t, b1.body)
	_, tar2 := untar(t, b2.body)
	var list api.AttachmentList
	h.mustJSON("GET", wsPath("/attachments?sort=created_at"), nil, 200, &list)
	wantNames := []string{api.BundleExportEntry, api.BundleManifestEntry, "attachments/" + shot.ID + ".png", "attachments/" + list.Attachments[1].ID + ".bin"}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("bundle entries %v, want %v", names, wantNames)
	}
	at := regexp.MustCompile(`"exported_at": "[^"]*"`)
	if !bytes.Equal(at.ReplaceAll(tar1, nil), at.ReplaceAll(tar2, nil)) {
		t.Error("two bundles of one workspace differ beyond exported_at")
	}

	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy", string(b1.body), 201, &res, "Content-Type", "application/gzip")
	if res.ImportSummary.InBundle.Attachments != 2 || res.ImportSummary.Imported.Attachments != 2 || len(res.ImportSummary.NotModelled) != 0 {
		t.Fatalf("summary %+v", res.ImportSummary)
	}
	var copied api.AttachmentList
	h.mustJSON("GET", "/api/v1/workspaces/copy/attachments?sort=created_at", nil, 200, &copied)
	if copied.Total != 2 {
		t.Fatalf("copy holds %+v", copied)
	}
	c := copied.Attachments[0]
	if c.ItemRef != "TASK-1" || c.Filename != "shot.png" || c.ContentHash != shot.ContentHash || !c.Imported || c.Width == nil || *c.Width != 4 ||
		c.CreatedAt != list.Attachments[0].CreatedAt || c.ID == shot.ID {
		t.Errorf("copied attachment %+v", c)
	}
	if c := copied.Attachments[1]; c.ItemID != nil || c.Filename != "notes" {
		t.Errorf("copied unattached attachment %+v", c)
	}
	r := h.call("GET", "/api/v1/workspaces/copy/attachments/"+c.ID, nil)
	if r.status != 200 || !bytes.Equal(r.body, img) {
		t.Fatalf("copy's bytes: %d, %d bytes", r.status, len(r.body))
	}
	// Identical content is still one blob: three uploads, two contents
	// exported, one more content left behind with its archived item.
	if n := blobFiles(t, h); n != 3 {
		t.Errorf("%d blob files, want 3", n)
	}

	// A blob that does not match its manifest: refused, nothing left.
	before := blobFiles(t, h)
	bad := bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport},
		bundletest.Entry{Name: api.BundleManifestEntry, Body: manifestOf(api.AttachmentManifestEntry{ID: "a1", Filename: "x.txt", SizeBytes: 5, ContentHash: sha("abcde")},
			api.AttachmentManifestEntry{ID: "a2", Filename: "y.txt", SizeBytes: 5, ContentHash: sha("fghij")})},
		bundletest.Entry{Name: "attachments/a1.txt", Body: "abcde"}, bundletest.Entry{Name: "attachments/a2.txt", Body: "FGHIJ"})
	e := h.wantError("POST", "/api/v1/workspaces/import", string(bad), 400, api.CodeBadBundle, "Content-Type", "application/gzip")
	if e.Details["reason"] != "blob_hash_mismatch" {
		t.Errorf("reason %v", e.Details["reason"])
	}
	if n := blobFiles(t, h); n != before {
		t.Errorf("%d blob files after a refused import, want %d", n, before)
	}
}

// cutInBlob is a bundle whose 64 KiB blob (random, so gzip cannot shrink
// it) is cut off half way: the staged part must not stay.
func cutInBlob(t *testing.T, export string) []byte {
	t.Helper()
	blob := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(29, 29))
	for i := range blob {
		blob[i] = byte(r.Uint32())
	}
	sum := sha256.Sum256(blob)
	full := bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: export},
		bundletest.Entry{Name: api.BundleManifestEntry, Body: manifestOf(api.AttachmentManifestEntry{ID: "big", Filename: "big.bin",
			SizeBytes: int64(len(blob)), ContentHash: hex.EncodeToString(sum[:])})},
		bundletest.Entry{Name: "attachments/big.bin", Body: string(blob)})
	return full[:len(full)/2]
}

// An import named (?name=, padctl's --name) after a workspace that
// exists is refused, coded: two workspaces with one name read alike
// everywhere (issue 41). Without a name, a copy keeps the bundle's name
// beside the original's, as Pad does (its slug gets -2).
func TestImportRefusesATakenName(t *testing.T) {
	h := newHarness(t)
	var first api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy", smallExport, 201, &first)
	for _, name := range []string{"Copy", "copy", " COPY "} {
		e := h.wantError("POST", "/api/v1/workspaces/import?name="+strings.ReplaceAll(name, " ", "%20"), smallExport, 409, api.CodeConflict)
		if e.Details["reason"] != "name_taken" || e.Details["field"] != "name" || e.Details["workspace"] != first.Slug ||
			!strings.Contains(e.Message, `"Copy"`) {
			t.Errorf("import named %q: %+v", name, e)
		}
	}
	var again api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import", smallExport, 201, &again)
	h.mustJSON("POST", "/api/v1/workspaces/import", smallExport, 201, &again)
	var wss []api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &wss)
	if len(wss) != 4 { // the harness's, Copy, Small, Small
		t.Errorf("%d workspaces, want 4", len(wss))
	}
}
