package daemon

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
)

// Every import answers the two counts of IMP-01's headers, 0 included:
// the relation default values dropped for naming an item the export
// does not hold (a list keeps its other members; a ref is kept), and the
// schema fields left out for repeating a key (the first is kept).
func TestImportAnswersItsHeaders(t *testing.T) {
	h := newHarness(t)
	h.task("One")
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	r := h.mustJSON("POST", "/api/v1/workspaces/import?name=Plain", string(exp.body), 201, nil)
	if d, c := r.header.Get(api.ImportDroppedRelationDefaultsHeader), r.header.Get(api.ImportCollapsedDuplicateKeysHeader); d != "0" || c != "0" {
		t.Errorf("a plain import's headers: dropped %q, collapsed %q; want 0 and 0", d, c)
	}

	// A Pad export: relation defaults naming an item it holds, one it
	// does not, and a ref; a schema that repeats a key.
	var e api.WorkspaceExport
	if err := json.Unmarshal(exp.body, &e); err != nil {
		t.Fatal(err)
	}
	held := e.Items[0].ID
	const gone = "00000000-0000-4000-8000-00000000dead"
	e.Collections = append(e.Collections, api.CollectionExport{ID: "00000000-0000-4000-8000-0000000000c1", Name: "Refs", Slug: "refs", Prefix: "REF",
		Schema: `{"fields":[
			{"key":"one","label":"One","type":"relation","collection":"tasks","default":"` + held + `"},
			{"key":"lost","label":"Lost","type":"relation","collection":"tasks","default":"` + gone + `"},
			{"key":"many","label":"Many","type":"multi_relation","collection":"tasks","default":["` + gone + `","` + held + `","TASK-1"]},
			{"key":"note","label":"Note","type":"text"},
			{"key":"note","label":"Note again","type":"number"}]}`,
		Settings: "{}", CreatedAt: "2026-11-01T10:00:00Z", UpdatedAt: "2026-11-01T10:00:00Z"})
	body, _ := json.Marshal(e)
	var res api.ImportResult
	r = h.mustJSON("POST", "/api/v1/workspaces/import?name=Refs", string(body), 201, &res)
	if d, c := r.header.Get(api.ImportDroppedRelationDefaultsHeader), r.header.Get(api.ImportCollapsedDuplicateKeysHeader); d != "2" || c != "1" {
		t.Errorf("headers: dropped %q, collapsed %q; want 2 and 1", d, c)
	}
	if nm := res.ImportSummary.NotModelled; nm["relation_default_not_in_export"] != 2 || nm[model.SkippedDuplicateFieldKeys] != 1 {
		t.Errorf("not_modelled %v", nm)
	}
	var coll api.Collection
	h.mustJSON("GET", "/api/v1/workspaces/refs/collections/refs", nil, 200, &coll)
	var copied api.Item
	h.mustJSON("GET", "/api/v1/workspaces/refs/items/TASK-1", nil, 200, &copied)
	var schema model.Schema
	if err := json.Unmarshal([]byte(coll.Schema), &schema); err != nil {
		t.Fatal(err)
	}
	defaults := map[string]string{}
	for _, f := range schema.Fields {
		b, _ := json.Marshal(f.Default)
		defaults[f.Key+":"+f.Type] = string(b)
	}
	want := map[string]string{"one:relation": `"` + copied.ID + `"`, "lost:relation": "null",
		"many:multi_relation": `["` + copied.ID + `","TASK-1"]`, "note:text": "null"}
	if len(defaults) != len(want) {
		t.Errorf("schema after the import: %v, want %v", defaults, want)
	}
	for k, v := range want {
		if defaults[k] != v {
			t.Errorf("default of %s = %s, want %s", k, defaults[k], v)
		}
	}
}

// ?import_key= names the attempt: a malformed key is refused before the
// body is read; the same request again after it completed answers the
// first answer and imports nothing; import-status says what became of
// it; a refused attempt leaves the key free.
func TestImportKey(t *testing.T) {
	h := newHarness(t)
	h.task("One")
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	for _, bad := range []string{"short", strings.Repeat("k", 65), "has_underscore", "has space!", ""} {
		e := h.wantError("POST", "/api/v1/workspaces/import?import_key="+url.QueryEscape(bad), string(exp.body), 400, model.CodeBadRequest)
		if e.Details["param"] != api.ImportKeyParam {
			t.Errorf("key %q: details %v", bad, e.Details)
		}
	}
	h.wantError("GET", "/api/v1/workspaces/import-status?key=never-seen-1", nil, 404, model.CodeNotFound)

	const key = "copy-2026-12-07"
	var first, again api.ImportResult
	r1 := h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy&import_key="+key, string(exp.body), 201, &first)
	r2 := h.mustJSON("POST", "/api/v1/workspaces/import?name=Copy&import_key="+key, string(exp.body), 201, &again)
	if r1.header.Get("Idempotent-Replayed") != "" || r2.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed: first %q, again %q", r1.header.Get("Idempotent-Replayed"), r2.header.Get("Idempotent-Replayed"))
	}
	if again.ID != first.ID || again.Slug != "copy" || again.ImportSummary.Imported != first.ImportSummary.Imported ||
		r2.header.Get(api.ImportDroppedRelationDefaultsHeader) != "0" {
		t.Errorf("the replay answered %s %s %+v (first %s)", again.ID, again.Slug, again.ImportSummary, first.ID)
	}
	var list []api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &list)
	if len(list) != 2 {
		t.Errorf("%d workspaces after a keyed import sent twice, want 2 (w and copy)", len(list))
	}
	var st api.ImportStatus
	h.mustJSON("GET", "/api/v1/workspaces/import-status?key="+key, nil, 200, &st)
	if st != (api.ImportStatus{Key: key, Status: api.ImportComplete, WorkspaceSlug: "copy", WorkspaceName: "Copy", OwnerUsername: model.LocalUserName}) {
		t.Errorf("status %+v", st)
	}

	const refused = "refused-attempt"
	h.wantError("POST", "/api/v1/workspaces/import?import_key="+refused, "{not json", 400, model.CodeBadRequest)
	st = api.ImportStatus{}
	h.mustJSON("GET", "/api/v1/workspaces/import-status?key="+refused, nil, 200, &st)
	if st.Status != api.ImportNotCreated || st.WorkspaceSlug != "" {
		t.Errorf("a refused import's status %+v", st)
	}
	h.mustJSON("POST", "/api/v1/workspaces/import?name=Later&import_key="+refused, string(exp.body), 201, &first)
	h.mustJSON("GET", "/api/v1/workspaces/import-status?key="+refused, nil, 200, &st)
	if st.Status != api.ImportComplete || st.WorkspaceSlug != "later" {
		t.Errorf("the retried import's status %+v", st)
	}

	// An hour after it ended, padd no longer holds the key.
	h.srv.now = func() time.Time { return time.Now().Add(importKeyTTL + time.Minute) }
	h.wantError("GET", "/api/v1/workspaces/import-status?key="+key, nil, 404, model.CodeNotFound)
}

// While a keyed import runs (its body still arriving), another with its
// key is refused 409 import_key_in_use and its status is running; the
// first then completes.
func TestImportKeyInUse(t *testing.T) {
	h := newHarness(t)
	h.task("One")
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	const key = "slow-upload-1"
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", h.ts.URL+"/api/v1/workspaces/import?name=Slow&import_key="+key, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", "application/json")
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			close(answered)
			return
		}
		answered <- resp
	}()
	half := len(exp.body) / 2
	if _, err := pw.Write(exp.body[:half]); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the slow import to hold its key", func() bool {
		r := h.call("GET", "/api/v1/workspaces/import-status?key="+key, nil)
		return r.status == 200 && strings.Contains(string(r.body), `"running"`)
	})
	e := h.wantError("POST", "/api/v1/workspaces/import?import_key="+key, string(exp.body), 409, api.CodeImportKeyInUse)
	if e.Details["import_key"] != key {
		t.Errorf("details %v", e.Details)
	}
	if _, err := pw.Write(exp.body[half:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	resp := testwait.Recv(t, "the slow import's answer", answered)
	if resp == nil {
		return
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("the slow import answered %d", resp.StatusCode)
	}
	var st api.ImportStatus
	h.mustJSON("GET", "/api/v1/workspaces/import-status?key="+key, nil, 200, &st)
	if st.Status != api.ImportComplete || st.WorkspaceSlug != "slow" {
		t.Errorf("status after %+v", st)
	}
}
