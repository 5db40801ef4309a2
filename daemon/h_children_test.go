package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

func TestChildrenAndProgress(t *testing.T) {
	h := newHarness(t)
	plan := h.create("plans", map[string]any{"title": "Launch"})
	for _, title := range []string{"one", "two", "three", "four"} {
		h.task(title, "parent", plan.Ref)
	}
	h.create("docs", map[string]any{"title": "Notes", "parent": plan.Ref}) // reference: not progress
	var kids []api.Item
	r := h.mustJSON("GET", wsPath("/items/"+plan.Ref+"/children"), nil, 200, &kids)
	if len(kids) != 5 || kids[0].Title != "one" || kids[0].ParentID == nil || *kids[0].ParentID != plan.ID ||
		r.header.Get("X-Pad-Has-More") != "false" {
		t.Fatalf("children = %d (%+v)", len(kids), r.header)
	}
	r = h.mustJSON("GET", wsPath("/items/"+plan.Slug+"/children?limit=2&offset=1"), nil, 200, &kids)
	if len(kids) != 2 || kids[0].Title != "two" || r.header.Get("X-Pad-Has-More") != "true" || r.header.Get("X-Pad-Next-Offset") != "3" {
		t.Errorf("page = %d %v", len(kids), r.header)
	}
	h.mustJSON("PATCH", wsPath("/items/TASK-2"), map[string]any{"fields_patch": map[string]any{"status": "done"}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/TASK-3"), map[string]any{"fields_patch": map[string]any{"status": "cancelled"}}, 200, nil)
	var p api.Progress
	h.mustJSON("GET", wsPath("/items/"+plan.Ref+"/progress"), nil, 200, &p)
	if p != (api.Progress{Total: 4, Done: 2, Percentage: 50, Open: 2, Abandoned: 1}) {
		t.Errorf("progress = %+v", p)
	}
	// Pad's older name for the route answers the same.
	var tasks []api.Item
	h.mustJSON("GET", wsPath("/items/"+plan.Ref+"/tasks"), nil, 200, &tasks)
	if len(tasks) != 5 || tasks[0].Title != "one" {
		t.Errorf("tasks alias = %d", len(tasks))
	}
	var leaf []api.Item
	r = h.mustJSON("GET", wsPath("/items/TASK-2/children"), nil, 200, &leaf)
	if string(r.body) != "[]\n" {
		t.Errorf("leaf children body = %q", r.body)
	}
	h.wantError("GET", wsPath("/items/TASK-99/children"), nil, 404, "not_found")
	h.wantError("GET", wsPath("/items/TASK-99/progress"), nil, 404, "not_found")
}

// An update naming the parent in its fields and in parent_id is refused
// whatever the values, as Pad's server refuses it (ITM-13); either alone
// sets the link.
func TestParentNamedTwiceOnUpdateIsRefused(t *testing.T) {
	h := newHarness(t)
	plan := h.create("plans", map[string]any{"title": "Launch"})
	task := h.task("one")
	for _, body := range []map[string]any{
		{"fields_patch": map[string]any{"parent": plan.Ref}, "parent_id": plan.ID},
		{"fields_patch": map[string]any{"plan": plan.Ref}, "parent_id": plan.ID},
		{"field": []string{"parent=" + plan.Ref}, "parent_id": plan.ID},
		{"fields": map[string]any{"status": "open", "parent": plan.Ref}, "parent_id": plan.ID},
		{"fields_patch": map[string]any{"parent": ""}, "parent_id": plan.ID},
	} {
		e := h.wantError("PATCH", wsPath("/items/"+task.Ref), body, 400, "validation_error")
		if e.Details["field"] != "parent_id" {
			t.Errorf("%v: details = %v", body, e.Details)
		}
	}
	var got api.Item
	h.mustJSON("GET", wsPath("/items/"+task.Ref), nil, 200, &got)
	if got.ParentID != nil {
		t.Fatalf("a refused update set the parent: %v", *got.ParentID)
	}
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"parent_id": plan.ID}, 200, &got)
	if got.ParentID == nil || *got.ParentID != plan.ID {
		t.Fatalf("parent_id alone: %v", got.ParentID)
	}
	var cleared api.Item
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"fields_patch": map[string]any{"plan": ""}}, 200, &cleared)
	if cleared.ParentID != nil {
		t.Fatalf("plan cleared in fields_patch: %v", *cleared.ParentID)
	}
}

// An item that implements another is its child over HTTP as on Pad's
// server: listed by /children and /tasks, counted by /progress, named
// as the implementer's parent (parent_ref, parent_link_id; parent_id
// stays its own, empty), and closing the implemented item while the
// implementer is open is refused with open_children.
func TestImplementsIsAChild(t *testing.T) {
	h := newHarness(t)
	plan := h.create("plans", map[string]any{"title": "Launch"})
	kid := h.task("kid", "parent", plan.Ref)
	impl := h.task("impl")
	h.mustJSON("POST", wsPath("/items/"+impl.Ref+"/links"), map[string]any{"target_id": plan.ID, "link_type": "implements"}, 201, nil)
	h.mustJSON("PATCH", wsPath("/items/"+kid.Ref), map[string]any{"fields_patch": map[string]any{"status": "done"}}, 200, nil)

	for _, route := range []string{"/children", "/tasks"} {
		var kids []api.Item
		h.mustJSON("GET", wsPath("/items/"+plan.Ref+route), nil, 200, &kids)
		if len(kids) != 2 || kids[0].Ref != kid.Ref || kids[1].Ref != impl.Ref {
			t.Fatalf("%s = %d items", route, len(kids))
		}
	}
	var p api.Progress
	h.mustJSON("GET", wsPath("/items/"+plan.Ref+"/progress"), nil, 200, &p)
	if p != (api.Progress{Total: 2, Done: 1, Percentage: 50, Open: 1}) {
		t.Errorf("progress = %+v", p)
	}
	var got api.Item
	h.mustJSON("GET", wsPath("/items/"+impl.Ref), nil, 200, &got)
	if got.ParentRef != plan.Ref || got.ParentTitle != "Launch" || got.ParentLinkID != plan.ID || got.ParentID != nil {
		t.Errorf("implementer: parent_ref %q parent_title %q parent_link_id %q parent_id %v", got.ParentRef, got.ParentTitle, got.ParentLinkID, got.ParentID)
	}
	e := h.wantError("PATCH", wsPath("/items/"+plan.Ref), map[string]any{"fields_patch": map[string]any{"status": "completed"}}, 409, "open_children")
	if kids, _ := e.Details["open_children"].([]any); len(kids) != 1 || kids[0].(map[string]any)["ref"] != impl.Ref {
		t.Errorf("open_children %v", e.Details["open_children"])
	}
}
