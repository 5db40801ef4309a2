package daemon

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Saved views as Pad's routes answer them: a config sent as an object or
// as its text comes back as text, slugs are the workspace's, the list is
// in sort order, and a view is addressed through its own collection.
func TestSavedViewRoutes(t *testing.T) {
	h := newHarness(t)
	views := wsPath("/collections/tasks/views")

	var empty []api.SavedView
	h.mustJSON("GET", views, nil, 200, &empty)
	if empty == nil || len(empty) != 0 {
		t.Fatalf("no views: %v, want []", empty)
	}
	var a, b, c api.SavedView
	h.mustJSON("POST", views, map[string]any{"name": "Open bugs", "view_type": "board",
		"config": map[string]any{"filters": []any{map[string]any{"field": "status", "op": "eq", "value": "open"}},
			"sort": "priority:desc", "columns": []string{"title", "status"}}}, 201, &a)
	if a.Slug != "open-bugs" || a.ViewType != "board" || a.CollectionID == "" || a.Seq == 0 ||
		a.Config != `{"columns":["title","status"],"filters":[{"field":"status","op":"eq","value":"open"}],"sort":"priority:desc"}` {
		t.Fatalf("created %+v", a)
	}
	h.mustJSON("POST", views, map[string]any{"name": "Open bugs", "config": `{"a": 1}`}, 201, &b)
	if b.Slug != "open-bugs-2" || b.ViewType != "list" || b.Config != `{"a":1}` {
		t.Fatalf("second %+v", b)
	}
	// The slug is the workspace's: a view of another collection takes -3.
	h.mustJSON("POST", wsPath("/collections/ideas/views"), map[string]any{"name": "Open bugs"}, 201, &c)
	if c.Slug != "open-bugs-3" || c.Config != "{}" {
		t.Fatalf("in ideas %+v", c)
	}

	var got api.SavedView
	h.mustJSON("PATCH", views+"/"+a.ID, map[string]any{"name": "Renamed", "sort_order": 3, "config": ""}, 200, &got)
	if got.Name != "Renamed" || got.SortOrder != 3 || got.Config != "{}" || got.Slug != "open-bugs" || got.Seq <= c.Seq {
		t.Fatalf("updated %+v", got)
	}
	var list []api.SavedView
	h.mustJSON("GET", views, nil, 200, &list)
	if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
		t.Fatalf("list %+v, want b then a (sort order)", list)
	}
	// A view is found through its own collection only; trailing slash
	// as Pad's routes have it.
	h.wantError("PATCH", wsPath("/collections/ideas/views/")+a.ID, map[string]any{"name": "x"}, 404, "not_found")
	h.mustJSON("DELETE", views+"/"+a.ID+"/", nil, 204, nil)
	h.wantError("DELETE", views+"/"+a.ID, nil, 404, "not_found")
	h.mustJSON("GET", views, nil, 200, &list)
	if len(list) != 1 || list[0].ID != b.ID {
		t.Fatalf("after delete %+v", list)
	}
}

// Bad input is refused with padd's coded envelope, nothing written.
func TestSavedViewRefusals(t *testing.T) {
	h := newHarness(t)
	views := wsPath("/collections/tasks/views")
	var v api.SavedView
	h.mustJSON("POST", views, map[string]any{"name": "Mine"}, 201, &v)
	deep := strings.Repeat(`{"a":`, model.MaxViewConfigDepth+1) + "1" + strings.Repeat("}", model.MaxViewConfigDepth+1)
	for _, tc := range []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{"POST", views, map[string]any{"name": ""}, 400, "bad_request"},
		{"POST", views, map[string]any{"name": "x", "config": []int{1}}, 400, "bad_request"},
		{"POST", views, map[string]any{"name": "x", "config": 5}, 400, "bad_request"},
		{"POST", views, map[string]any{"name": "x", "config": "[1]"}, 400, "bad_request"},
		{"POST", views, map[string]any{"name": "x", "view_type": "weird"}, 400, "validation_error"},
		{"POST", views, map[string]any{"name": strings.Repeat("n", model.LimitName.Max+1)}, 400, "validation_error"},
		{"POST", views, map[string]any{"name": "x", "config": map[string]any{"k": strings.Repeat("v", model.LimitViewConfig.Max)}}, 400, "validation_error"},
		{"POST", views, `{"name":"x","config":` + deep + `}`, 400, "validation_error"},
		{"POST", views, `{"name":`, 400, "bad_request"},
		{"POST", wsPath("/collections/nope/views"), map[string]any{"name": "x"}, 404, "not_found"},
		{"GET", wsPath("/collections/nope/views"), nil, 404, "not_found"},
		{"PATCH", views + "/" + v.ID, map[string]any{"name": "  "}, 400, "bad_request"},
		{"PATCH", views + "/" + v.ID, map[string]any{"view_type": "gallery"}, 400, "validation_error"},
		{"PATCH", views + "/" + v.ID, map[string]any{"config": true}, 400, "bad_request"},
		{"PATCH", views + "/not-an-id", map[string]any{"name": "a"}, 404, "not_found"},
		{"DELETE", views + "/00000000-0000-4000-8000-000000000000", nil, 404, "not_found"},
	} {
		h.wantError(tc.method, tc.path, tc.body, tc.status, tc.code)
	}
	var list []api.SavedView
	h.mustJSON("GET", views, nil, 200, &list)
	if len(list) != 1 || list[0].Name != "Mine" || list[0].Config != "{}" || list[0].ViewType != "list" {
		t.Fatalf("after refusals %+v", list)
	}
	// At most model.MaxSavedViews a collection.
	for i := len(list); i < model.MaxSavedViews; i++ {
		h.mustJSON("POST", views, map[string]any{"name": "v"}, 201, nil)
	}
	e := h.wantError("POST", views, map[string]any{"name": "one more"}, 400, "validation_error")
	if n, _ := e.Details["limit"].(float64); int(n) != model.MaxSavedViews {
		t.Errorf("details %v, want limit %d", e.Details, model.MaxSavedViews)
	}
}

// A saved view's write is in the change log: the events stream and the
// changes feed's head move with it.
func TestSavedViewWritesAreStamped(t *testing.T) {
	h := newHarness(t)
	var before, after api.Workspace
	h.mustJSON("GET", wsPath(""), nil, 200, &before)
	var v api.SavedView
	h.mustJSON("POST", wsPath("/collections/tasks/views"), map[string]any{"name": "Mine"}, 201, &v)
	h.mustJSON("GET", wsPath(""), nil, 200, &after)
	if v.Seq <= before.Seq || after.Seq != v.Seq {
		t.Fatalf("workspace seq %d -> %d, view seq %d", before.Seq, after.Seq, v.Seq)
	}
	var acts []map[string]any
	h.mustJSON("GET", wsPath("/activity"), nil, 200, &acts)
	raw, _ := json.Marshal(acts)
	if !strings.Contains(string(raw), "saved_view_created") {
		t.Errorf("activity has no saved_view_created: %s", raw)
	}
}

// A Pad export's workspace settings carry its context: the import keeps
// it, counting a member padd does not know (a newer Pad's) and any other
// setting as not modelled; saved views in padd's member land in their
// collection, and one naming a collection the export lacks refuses the
// import, naming it.
func TestImportKeepsContextAndSavedViews(t *testing.T) {
	h := newHarness(t)
	settings := `"settings":"{\"context\":{\"commands\":{\"test\":\"make test\"},\"assumptions\":[\"a\"],\"future\":1},\"theme\":\"dark\"}"`
	body := strings.Replace(smallExport, `"settings":"{}"},`, settings+`},`, 1)
	body = strings.TrimSuffix(body, "}") + `,"saved_views":[{"collection_id":"c1","name":"Board","slug":"board","view_type":"board","config":"{\"sort\":\"title\"}","sort_order":1}]}`
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import", body, 201, &res)
	if nm := res.ImportSummary.NotModelled; nm["workspace_settings"] != 1 || nm["workspace_context_members"] != 1 {
		t.Errorf("not modelled %v", nm)
	}
	var ws api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces/"+res.Slug, nil, 200, &ws)
	if ws.Context == nil || ws.Context.Commands == nil || ws.Context.Commands.Test != "make test" || len(ws.Context.Assumptions) != 1 {
		t.Fatalf("context %+v", ws.Context)
	}
	var list []api.SavedView
	h.mustJSON("GET", "/api/v1/workspaces/"+res.Slug+"/collections/tasks/views", nil, 200, &list)
	if len(list) != 1 || list[0].Slug != "board" || list[0].ViewType != "board" || list[0].Config != `{"sort":"title"}` || list[0].SortOrder != 1 {
		t.Fatalf("views %+v", list)
	}

	bad := strings.Replace(body, `"collection_id":"c1","name":"Board"`, `"collection_id":"c9","name":"Board"`, 1)
	e := h.wantError("POST", "/api/v1/workspaces/import?name=again", bad, 400, "validation_error")
	if e.Details["entity"] != "saved_view" {
		t.Errorf("details %v", e.Details)
	}
}
