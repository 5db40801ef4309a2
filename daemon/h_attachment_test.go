package daemon

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upload sends a raw-body upload.
func (h *harness) upload(data []byte, filename, item string, status int) api.AttachmentUpload {
	h.t.Helper()
	q := url.Values{"filename": {filename}}
	if item != "" {
		q.Set("item_id", item)
	}
	var out api.AttachmentUpload
	h.mustJSON("POST", wsPath("/attachments?"+q.Encode()), string(data), status, &out, "Content-Type", "application/octet-stream")
	return out
}

func multipartBody(t *testing.T, filename string, data []byte, item string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if item != "" {
		mw.WriteField("item_id", item)
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	mw.Close()
	return buf.String(), mw.FormDataContentType()
}

func blobFiles(t *testing.T, h *harness) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(filepath.Dir(h.store.Path()), BlobDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func TestAttachmentsOverREST(t *testing.T) {
	h := newHarness(t)
	h.task("Login page broken")
	h.task("Other")

	// Raw body, attached: sniffed type, image size, item ref.
	img := pngBytes(t, 7, 5)
	up := h.upload(img, "screenshot.jpg", "TASK-1", 201) // the name's extension is not trusted
	if up.MIME != "image/png" || up.Width == nil || *up.Width != 7 || *up.Height != 5 || up.ItemRef != "TASK-1" ||
		up.Filename != "screenshot.jpg" || up.Category != "image" || up.RenderMode != "inline" || up.URL != "/api/v1/workspaces/w/attachments/"+up.ID {
		t.Fatalf("upload answered %+v", up)
	}

	// Multipart as Pad takes it, unattached; a path is never a path.
	html := []byte("<!DOCTYPE html><html><script>alert(1)</script></html>")
	body, ct := multipartBody(t, "../../evil\".html", html, "")
	var loose api.AttachmentUpload
	h.mustJSON("POST", wsPath("/attachments"), body, 201, &loose, "Content-Type", ct)
	if loose.Filename != "evil.html" || !strings.HasPrefix(loose.MIME, "text/html") || loose.ItemRef != "" || loose.RenderMode != "download" {
		t.Fatalf("multipart upload answered %+v", loose)
	}

	// Identical content is one blob.
	again := h.upload(img, "copy.png", "TASK-2", 201)
	if again.ContentHash != up.ContentHash || blobFiles(t, h) != 2 {
		t.Fatalf("identical content: hash %s vs %s, %d blob files, want 2", again.ContentHash, up.ContentHash, blobFiles(t, h))
	}

	// Download: bytes, type, ETag, Last-Modified; a download never runs.
	r := h.call("GET", wsPath("/attachments/"+up.ID), nil)
	if r.status != 200 || !bytes.Equal(r.body, img) || r.header.Get("Content-Type") != "image/png" ||
		r.header.Get("ETag") != `"`+up.ContentHash+`"` || r.header.Get("Last-Modified") == "" ||
		r.header.Get("Content-Disposition") != `inline; filename="screenshot.jpg"` {
		t.Fatalf("download: %d %v (%d bytes)", r.status, r.header, len(r.body))
	}
	r = h.call("GET", wsPath("/attachments/"+loose.ID), nil)
	if cd := r.header.Get("Content-Disposition"); cd != `attachment; filename="evil.html"` || r.header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.Contains(r.header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("html download headers %v", r.header)
	}
	if r := h.call("GET", wsPath("/attachments/"+up.ID), nil, "If-None-Match", `"`+up.ContentHash+`"`); r.status != 304 {
		t.Fatalf("If-None-Match: %d", r.status)
	}
	if r := h.call("GET", wsPath("/attachments/"+up.ID), nil, "Range", "bytes=0-3"); r.status != 206 || !bytes.Equal(r.body, img[:4]) {
		t.Fatalf("Range: %d %q", r.status, r.body)
	}
	r = h.call("HEAD", wsPath("/attachments/"+up.ID), nil)
	if r.status != 200 || len(r.body) != 0 || r.header.Get("Content-Length") != itoa(len(img)) {
		t.Fatalf("HEAD: %d %v %d bytes", r.status, r.header, len(r.body))
	}

	// List with ATT-01's filters.
	var list api.AttachmentList
	get := func(q string) {
		t.Helper()
		list = api.AttachmentList{} // decoding into a used slice would merge rows
		h.mustJSON("GET", wsPath("/attachments"+q), nil, 200, &list)
	}
	get("")
	if list.Total != 3 || len(list.Attachments) != 3 || list.Limit != 50 {
		t.Fatalf("list: %+v", list)
	}
	get("?item=unattached")
	if list.Total != 1 || list.Attachments[0].ID != loose.ID || list.Attachments[0].ItemID != nil || list.Attachments[0].FilenameSource != "normalised" {
		t.Fatalf("unattached: %+v", list)
	}
	get("?item_id=TASK-1")
	if list.Total != 1 || list.Attachments[0].ItemRef != "TASK-1" || *list.Attachments[0].ItemTitle != "Login page broken" ||
		*list.Attachments[0].Width != 7 || list.Attachments[0].MimeType != "image/png" {
		t.Fatalf("TASK-1's: %+v", list)
	}
	get("?category=image&sort=filename")
	if list.Total != 2 || list.Attachments[0].Filename != "copy.png" {
		t.Fatalf("images by name: %+v", list)
	}
	h.wantError("GET", wsPath("/attachments?item=attached&item_id=TASK-1&sort=bogus"), nil, 400, api.CodeValidation)

	// Attach (ATT-03): binds once, then 409; never a move.
	var att api.Attachment
	h.mustJSON("POST", wsPath("/attachments/"+loose.ID+"/attach"), map[string]any{"item": "TASK-2"}, 200, &att)
	if att.ItemRef != "TASK-2" || att.ItemID == nil {
		t.Fatalf("attach: %+v", att)
	}
	e := h.wantError("POST", wsPath("/attachments/"+loose.ID+"/attach"), map[string]any{"item": "TASK-1"}, 409, api.CodeConflict)
	if e.Details["item_ref"] != "TASK-2" {
		t.Fatalf("409 details %v", e.Details)
	}
	h.wantError("POST", wsPath("/attachments/"+loose.ID+"/attach"), map[string]any{}, 400, api.CodeValidation)

	// Delete: 204, then 404 everywhere.
	if r := h.call("DELETE", wsPath("/attachments/"+loose.ID), nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	h.wantError("GET", wsPath("/attachments/"+loose.ID), nil, 404, api.CodeNotFound)
	h.wantError("DELETE", wsPath("/attachments/"+loose.ID), nil, 404, api.CodeNotFound)
	h.wantError("GET", wsPath("/attachments/..%2F..%2Fetc"), nil, 400, api.CodeBadRequest)
	h.wantError("GET", wsPath("/attachments/"+up.ContentHash), nil, 404, api.CodeNotFound) // a hash is not an id

	// Refused before a byte is stored: a missing or archived item, a
	// missing workspace.
	h.mustJSON("DELETE", wsPath("/items/TASK-2"), nil, 204, nil)
	files := blobFiles(t, h)
	h.wantError("POST", wsPath("/attachments?item_id=TASK-2&filename=x"), "new bytes", 409, api.CodeArchived, "Content-Type", "text/plain")
	if blobFiles(t, h) != files {
		t.Error("a refused upload left a file")
	}
	h.wantError("POST", wsPath("/attachments?item_id=TASK-99&filename=x"), "data", 404, api.CodeNotFound, "Content-Type", "text/plain")
	h.wantError("POST", "/api/v1/workspaces/nope/attachments?filename=x", "data", 404, api.CodeNotFound, "Content-Type", "text/plain")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Over the cap: 413 too_large, coded, and nothing left on disk.
func TestAttachmentUploadCap(t *testing.T) {
	h := newHarness(t)
	h.srv.att.max = 1000
	before := blobFiles(t, h)
	e := h.wantError("POST", wsPath("/attachments?filename=big.bin"), strings.Repeat("x", 1001), 413, api.CodeTooLarge, "Content-Type", "application/octet-stream")
	if e.Details["reason"] != "attachment" || e.Details["limit_bytes"] != float64(1000) {
		t.Fatalf("details %v", e.Details)
	}
	// Chunked (no Content-Length): refused as it streams.
	req, _ := http.NewRequest("POST", h.ts.URL+wsPath("/attachments?filename=big.bin"), struct{ *strings.Reader }{strings.NewReader(strings.Repeat("x", 5000))})
	req.Header.Set("Authorization", "Bearer "+h.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("chunked over the cap: %d", resp.StatusCode)
	}
	if n := blobFiles(t, h); n != before {
		t.Fatalf("%d files in the blob directory after refusals, want %d", n, before)
	}
	h.upload([]byte(strings.Repeat("x", 1000)), "exact.bin", "", 201)
}

func TestSearchFindsItemByAttachmentFilename(t *testing.T) {
	h := newHarness(t)
	h.task("Quarterly review")
	q := url.Values{"filename": {"zanzibar-figures.xlsx"}, "item_id": {"TASK-1"}}
	r := h.mustJSON("POST", wsPath("/attachments?"+q.Encode()), "PK\x03\x04 not really", 201, nil, "Content-Type", "application/octet-stream")
	var found api.SearchResponse
	h.mustJSON("GET", "/api/v1/search?workspace=w&q=zanzibar&min_seq="+r.header.Get(api.SeqHeader), nil, 200, &found)
	if found.Total != 1 || found.Results[0].Item.Ref != "TASK-1" {
		t.Fatalf("search by an attachment's filename found %+v", found)
	}
	// Every word of a name finds it, the parts a dot or a dash joins too.
	h.task("Expenses")
	seq := ""
	for _, name := range []string{"receipt-scan.png", "Bildschirmfoto 2026-12-07 Überweisung.png", "月次_支払い明細.pdf"} {
		q := url.Values{"filename": {name}, "item_id": {"TASK-2"}}
		seq = h.mustJSON("POST", wsPath("/attachments?"+q.Encode()), "\x89PNG not really", 201, nil, "Content-Type", "application/octet-stream").header.Get(api.SeqHeader)
	}
	for _, word := range []string{"receipt", "scan", "Überweisung", "überweisung", "Bildschirmfoto", "支払い", "明細", `"receipt-scan.png"`} {
		q := url.Values{"workspace": {"w"}, "q": {word}, "min_seq": {seq}}
		h.mustJSON("GET", "/api/v1/search?"+q.Encode(), nil, 200, &found)
		if found.Total != 1 || found.Results[0].Item.Ref != "TASK-2" {
			t.Errorf("search %s for an attachment's name found %+v", word, found.Results)
		}
	}
}

// The start-up sweep takes a deleted row's blob once it is older than the
// grace period, and keeps every blob a row names.
func TestStartupSweepRemovesDeletedRowsBlobs(t *testing.T) {
	h := newHarness(t)
	kept := h.upload([]byte("kept"), "kept.txt", "", 201)
	gone := h.upload([]byte("gone"), "gone.txt", "", 201)
	if r := h.call("DELETE", wsPath("/attachments/"+gone.ID), nil); r.status != 204 {
		t.Fatal(r.status)
	}
	dir := filepath.Dir(h.store.Path())
	past := time.Now().Add(-2 * OrphanGrace)
	for _, hash := range []string{kept.ContentHash, gone.ContentHash} {
		if err := os.Chtimes(filepath.Join(dir, BlobDir, hash[:2], hash), past, past); err != nil {
			t.Fatal(err)
		}
	}
	SweepOrphanBlobs(dir, h.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if blobFiles(t, h) != 1 {
		t.Fatalf("%d blob files after the sweep, want kept's alone", blobFiles(t, h))
	}
	if r := h.call("GET", wsPath("/attachments/"+kept.ID), nil); r.status != 200 || string(r.body) != "kept" {
		t.Fatalf("kept after the sweep: %d %q", r.status, r.body)
	}
}

// WS-07: storage/usage sums the workspace's attachment rows (the same
// bytes twice count twice, as Pad counts rows), with no plan and no
// limit; a deleted row stops counting; another workspace's do not count.
func TestStorageUsage(t *testing.T) {
	h := newHarness(t)
	var u api.StorageUsage
	h.mustJSON("GET", wsPath("/storage/usage"), nil, 200, &u)
	if u != (api.StorageUsage{LimitBytes: -1}) {
		t.Fatalf("empty workspace: %+v", u)
	}
	a := h.task("Holder")
	shot := pngBytes(t, 4, 3)
	first := h.upload(shot, "a.png", a.Ref, 201)
	h.upload(shot, "again.png", "", 201)
	h.upload([]byte("a log line\n"), "run.log", "", 201)
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Other"}, 201, nil)
	h.mustJSON("POST", "/api/v1/workspaces/other/attachments?filename=x.txt", "elsewhere", 201, nil, "Content-Type", "application/octet-stream")
	h.mustJSON("GET", wsPath("/storage/usage"), nil, 200, &u)
	want := int64(2*len(shot) + len("a log line\n"))
	if u.UsedBytes != want || u.Attachments != 3 || u.LimitBytes != -1 || u.Plan != "" || u.OverrideActive {
		t.Fatalf("after three uploads: %+v, want %d bytes", u, want)
	}
	h.mustJSON("DELETE", wsPath("/attachments/"+first.ID), nil, 204, nil)
	h.mustJSON("GET", wsPath("/storage/usage"), nil, 200, &u)
	if u.UsedBytes != want-int64(len(shot)) || u.Attachments != 2 {
		t.Errorf("after a delete: %+v", u)
	}
	h.wantError("GET", "/api/v1/workspaces/nope/storage/usage", nil, 404, "not_found")
}
