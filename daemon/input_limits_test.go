package daemon

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/searchindex"
)

// over is a string one character longer than l allows, of a character
// that takes 3 bytes in UTF-8 (the limits count characters).
func over(l model.Limit) string { return strings.Repeat("é", l.Max+1) }

// wantLimitRefusal checks a refusal of an oversized string: 400
// validation_error naming the limit, no retry hint, and no echo of the
// value.
func wantLimitRefusal(t *testing.T, h *harness, method, path string, body any, l model.Limit) {
	t.Helper()
	r := h.call(method, path, body)
	if r.status >= 500 || r.status != 400 {
		t.Fatalf("%s %s with an oversized %s: %d %.300s", method, path, l.Name, r.status, r.body)
	}
	if ra := r.header.Get("Retry-After"); ra != "" {
		t.Errorf("%s %s: a refusal of the request itself says Retry-After %s", method, path, ra)
	}
	e := h.wantError(method, path, body, 400, api.CodeValidation)
	if e.Details["field"] != l.Name || e.Details["limit"] != float64(l.Max) {
		t.Errorf("%s %s: details %v, want field %q and limit %d", method, path, e.Details, l.Name, l.Max)
	}
	if len(r.body) > 1000 {
		t.Errorf("%s %s: the refusal is %d bytes: it echoes the value", method, path, len(r.body))
	}
	if info, _ := api.LookupCode(e.Code); info.Retry {
		t.Errorf("%s %s: code %s says retry", method, path, e.Code)
	}
}

// Every user-supplied string over its limit is refused with a 400 that
// names the limit, on every route that writes it, never a 5xx; a string
// at its limit is taken.
func TestOversizedInputsAreRefused(t *testing.T) {
	h := newHarness(t)
	it := h.task("A task")
	item := wsPath("/items/" + it.Ref)
	cases := []struct {
		name, method, path string
		body               any
		limit              model.Limit
	}{
		{"title on create", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": over(model.LimitTitle)}, model.LimitTitle},
		{"the issue's 33,000-character title", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": strings.Repeat("t", 33000)}, model.LimitTitle},
		{"title on update", "PATCH", item, map[string]any{"title": over(model.LimitTitle)}, model.LimitTitle},
		{"tag on create", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": "t", "tags": []string{"ok", over(model.LimitTag)}}, model.LimitTag},
		{"the issue's 33,000-character tag", "PATCH", item, map[string]any{"tags": []string{strings.Repeat("g", 33000)}}, model.LimitTag},
		{"field key", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": "t", "fields": map[string]any{strings.Repeat("k", model.LimitFieldKey.Max+1): "v"}}, model.LimitFieldKey},
		{"field value", "PATCH", item, map[string]any{"fields_patch": map[string]any{"notes": over(model.LimitFieldValue)}}, model.LimitFieldValue},
		{"field value in an entry", "PATCH", item, map[string]any{"field": []string{"notes=" + over(model.LimitFieldValue)}}, model.LimitFieldValue},
		{"field value in a list", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": "t", "fields": map[string]any{"labels": []any{"a", over(model.LimitFieldValue)}}}, model.LimitFieldValue},
		// Pad keeps a key its schema does not declare as it is, an object too:
		// its size and depth are held by its JSON text (issue 44).
		{"field value that is an object", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": "t", "fields": map[string]any{"extra": map[string]any{"y": over(model.LimitFieldValue)}}}, model.LimitFieldValue},
		{"field value nested 5,000 deep", "PATCH", item, map[string]any{"fields_patch": map[string]any{"extra": json.RawMessage(strings.Repeat("[", 5000) + strings.Repeat("]", 5000))}}, model.LimitFieldValue},
		{"an object in a list", "POST", wsPath("/collections/tasks/items"), map[string]any{"title": "t", "fields": map[string]any{"extra": []any{"a", map[string]any{"y": over(model.LimitFieldValue)}}}}, model.LimitFieldValue},
		{"comment body", "POST", item + "/comments", map[string]any{"body": over(model.LimitComment)}, model.LimitComment},
		{"update's comment", "PATCH", item, map[string]any{"title": "t2", "comment": over(model.LimitComment)}, model.LimitComment},
		{"workspace name", "POST", "/api/v1/workspaces", map[string]any{"name": over(model.LimitName)}, model.LimitName},
		{"workspace slug", "POST", "/api/v1/workspaces", map[string]any{"name": "n", "slug": over(model.LimitSlug)}, model.LimitSlug},
		{"workspace description", "PATCH", "/api/v1/workspaces/w", map[string]any{"description": over(model.LimitDescription)}, model.LimitDescription},
		{"collection name", "POST", wsPath("/collections"), map[string]any{"name": over(model.LimitName)}, model.LimitName},
		{"collection prefix", "POST", wsPath("/collections"), map[string]any{"name": "Bugs", "prefix": over(model.LimitPrefix)}, model.LimitPrefix},
		{"collection rename", "PATCH", wsPath("/collections/tasks"), map[string]any{"name": over(model.LimitName)}, model.LimitName},
		{"role name", "POST", wsPath("/agent-roles"), map[string]any{"name": over(model.LimitName)}, model.LimitName},
		{"search query", "GET", "/api/v1/search?q=" + strings.Repeat("q", model.LimitQuery.Max+1), nil, model.LimitQuery},
		{"list search", "GET", wsPath("/collections/tasks/items?search=" + strings.Repeat("q", model.LimitQuery.Max+1)), nil, model.LimitQuery},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantLimitRefusal(t, h, tc.method, tc.path, tc.body, tc.limit) })
	}
	t.Run("at the limits", func(t *testing.T) {
		at := h.task(strings.Repeat("é", model.LimitTitle.Max), "tags", []string{strings.Repeat("g", model.LimitTag.Max)},
			"fields", map[string]any{strings.Repeat("k", model.LimitFieldKey.Max): strings.Repeat("v", model.LimitFieldValue.Max)})
		h.mustJSON("PATCH", wsPath("/items/"+at.Ref), map[string]any{"tags": []string{strings.Repeat("h", model.LimitTag.Max)}}, 200, nil)
	})
}

// A list's filter value that no item can hold is refused with the code a
// write of that value gets, not answered with nothing.
func TestListFilterValuesAreChecked(t *testing.T) {
	h := newHarness(t)
	it := h.task("A task")
	write := h.wantError("PATCH", wsPath("/items/"+it.Ref), map[string]any{"fields_patch": map[string]any{"status": "in_progress"}}, 400, api.CodeValidation)
	for _, path := range []string{"/collections/tasks/items?status=in_progress", "/collections/tasks/items?status=open,in_progress",
		"/items?status=in_progress"} {
		list := h.wantError("GET", wsPath(path), nil, 400, write.Code)
		if list.Details["field"] != write.Details["field"] || list.Details["reason"] != write.Details["reason"] {
			t.Errorf("%s: details %v, the write's %v", path, list.Details, write.Details)
		}
	}
	var items []api.Item
	h.mustJSON("GET", wsPath("/collections/tasks/items?status=in-progress,open"), nil, 200, &items)
	if len(items) != 1 {
		t.Errorf("a list of valid statuses found %d items, want 1", len(items))
	}
}

// limit and offset follow one rule on every paged route: absent is the
// default, not a whole number in range is a 400 naming the param, and a
// limit above the ceiling is the ceiling.
func TestPagingParamsFollowOneRule(t *testing.T) {
	h := newHarness(t)
	it := h.task("A task")
	routes := []string{wsPath("/items"), wsPath("/collections/tasks/items"), "/api/v1/search?q=task", wsPath("/items/" + it.Ref + "/children"),
		wsPath("/items/" + it.Ref + "/backlinks"), wsPath("/starred"), wsPath("/activity"), wsPath("/items/" + it.Ref + "/versions"),
		wsPath("/items-changes"), wsPath("/changes?since=0"), wsPath("/next"), wsPath("/ready"), wsPath("/stale"), wsPath("/standup"), wsPath("/changelog")}
	for _, route := range routes {
		sep := "?"
		if strings.Contains(route, "?") {
			sep = "&"
		}
		for _, v := range []string{"abc", "-1", "0", "1e3", "1.5"} {
			e := h.wantError("GET", route+sep+"limit="+v, nil, 400, api.CodeInvalidLimit)
			if e.Details["param"] != "limit" {
				t.Errorf("%s limit=%s: details %v", route, v, e.Details)
			}
		}
		for _, v := range []string{"1", "99999999999999999999"} {
			h.mustJSON("GET", route+sep+"limit="+v, nil, 200, nil)
		}
	}
	for _, route := range []string{wsPath("/items"), "/api/v1/search?q=task", wsPath("/starred")} {
		sep := "?"
		if strings.Contains(route, "?") {
			sep = "&"
		}
		for _, v := range []string{"abc", "-1"} {
			h.wantError("GET", route+sep+"offset="+v, nil, 400, api.CodeBadRequest)
		}
	}
	var res api.SearchResponse
	h.mustJSON("GET", "/api/v1/search?q=task", nil, 200, &res)
	if res.Limit != searchDefaultLimit {
		t.Errorf("a search without limit answered limit %d, want %d", res.Limit, searchDefaultLimit)
	}
}

// A search while the index is being rebuilt is answered at once: 503
// index_rebuilding with Retry-After and the rebuild's progress.
func TestSearchDuringRebuildAnswersAtOnce(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/api/v1/search?q=x", nil)
	writeError(w, r, searchError(&searchindex.ErrRebuilding{Done: 5, Total: 10}))
	if w.Code != 503 || w.Header().Get("Retry-After") != fmt.Sprint(rebuildRetryAfter) {
		t.Fatalf("answered %d, Retry-After %q: %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if !strings.Contains(w.Body.String(), `"code":"index_rebuilding"`) || !strings.Contains(w.Body.String(), `"done":5`) {
		t.Errorf("body %s", w.Body)
	}
}
