package daemon

import (
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

const (
	copyPath      = "/api/v1/workspaces/w/items/"
	dstTasksItems = "/api/v1/workspaces/dst/collections/tasks/items"
)

// copySourceItem makes, in workspace w, a task with everything a copy
// has to decide about: fields, tags, a note, a pull request link, a
// parent, a link, an attachment its content names and a reference to
// no attachment. A second workspace dst is the destination.
func copySourceItem(t *testing.T, h *harness) (api.Item, api.AttachmentUpload) {
	t.Helper()
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Dest", "slug": "dst"}, 201, nil)
	plan := h.create("plans", map[string]any{"title": "The plan"})
	other := h.task("Blocked one")
	att := h.upload(pngBytes(t, 3, 2), "shot.png", "", 201)
	src := h.task("Copy me", "content", "See ![s](pad-attachment:"+att.ID+") and [gone](pad-attachment:00000000-0000-7000-8000-000000000000)",
		"fields", map[string]any{"status": "in-progress", "priority": "high"}, "tags", []string{"alpha", "beta"}, "parent", plan.Ref)
	h.mustJSON("PATCH", wsPath("/items/"+src.Ref), map[string]any{"append_implementation_note": map[string]any{"summary": "Wired it"}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/"+src.Ref), map[string]any{"github_pr": map[string]any{"number": 7, "url": "https://github.com/o/r/pull/7"}}, 200, nil)
	h.mustJSON("POST", wsPath("/items/"+src.Ref+"/links"), map[string]any{"target_id": other.Ref, "link_type": "blocks"}, 201, nil)
	return src, att
}

func carriedOf(p api.ItemCopyPreflight) map[string]api.CopyCarried {
	out := map[string]api.CopyCarried{}
	for _, c := range p.Fields.Carried {
		out[c.Key] = c
	}
	return out
}

func droppedOf(rows []api.CopyDropped) map[string]string {
	out := map[string]string{}
	for _, d := range rows {
		out[d.Key] = d.Reason
	}
	return out
}

// ITM-11: the preflight says what a copy into another workspace
// carries, drops and needs, and writes nothing.
func TestItemCopyPreflight(t *testing.T) {
	h := newHarness(t)
	src, att := copySourceItem(t, h)
	before := h.mustJSON("GET", "/api/v1/workspaces/w/items/"+src.Ref, nil, 200, nil)

	var p api.ItemCopyPreflight
	h.mustJSON("POST", copyPath+src.Ref+"/copy/preflight", api.ItemCopyRequest{TargetWorkspace: "dst", TargetCollection: "tasks"}, 200, &p)
	if !p.Valid || len(p.Fields.NeedsValue) != 0 {
		t.Fatalf("preflight not valid: %+v", p.Fields.NeedsValue)
	}
	if p.Source.WorkspaceSlug != "w" || p.Source.Ref != src.Ref || p.Destination.WorkspaceSlug != "dst" ||
		p.Destination.CollectionSlug != "tasks" || p.Destination.WorkspaceName != "Dest" || p.Source.Archived != nil {
		t.Errorf("source/destination: %+v %+v", p.Source, p.Destination)
	}
	c := carriedOf(p)
	if c["priority"].Value != "high" || c["priority"].From != "migrated" || c["status"].Value != "in-progress" ||
		c[model.FieldImplementationNotes].Type != "system" {
		t.Errorf("carried: %+v", p.Fields.Carried)
	}
	if _, ok := c[model.FieldGitHubPR]; ok {
		t.Errorf("a pull request link carried out of its workspace: %+v", p.Fields.Carried)
	}
	if d := droppedOf(p.Fields.Dropped); d[model.FieldGitHubPR] != "referent_not_portable" {
		t.Errorf("dropped: %+v", p.Fields.Dropped)
	}
	w := p.Warnings
	if !w.DroppedParent || w.OutgoingLinks["blocks"] != 1 || w.AttachmentCount != 1 || w.AttachmentBytes != att.Size ||
		w.UnresolvableRefCount != 1 || w.ChildCount != 0 {
		t.Errorf("warnings: %+v", w)
	}

	// An override, a null override, and the state a copy changes.
	h.mustJSON("POST", copyPath+src.Ref+"/copy/preflight", map[string]any{"target_workspace": "dst", "target_collection": "tasks",
		"field_overrides": map[string]any{"priority": nil, "status": "open"}}, 200, &p)
	c = carriedOf(p)
	if c["priority"].Value != "medium" || c["priority"].From != "default" || c["status"].Value != "open" || c["status"].From != "override" {
		t.Errorf("overridden: %+v", p.Fields.Carried)
	}
	done := h.task("Finished", "fields", map[string]any{"status": "done"})
	h.mustJSON("POST", copyPath+done.Ref+"/copy/preflight", api.ItemCopyRequest{TargetWorkspace: "dst", TargetCollection: "ideas"}, 200, &p)
	if p.Valid || len(p.Fields.NeedsValue) != 1 || p.Fields.NeedsValue[0].Key != "status" || p.Fields.NeedsValue[0].Reason != "state_change" {
		t.Errorf("a done task into ideas: valid %v needs %+v", p.Valid, p.Fields.NeedsValue)
	}

	// Nothing was written, anywhere.
	var list []api.Item
	h.mustJSON("GET", dstTasksItems, nil, 200, &list)
	after := h.mustJSON("GET", "/api/v1/workspaces/w/items/"+src.Ref, nil, 200, nil)
	if len(list) != 0 || string(after.body) != string(before.body) {
		t.Errorf("the preflight wrote: %d items in dst; source %s -> %s", len(list), before.body, after.body)
	}
}

// ITM-11, IDM-01: the copy makes the item in the destination with what
// the preflight promised, archives the source on a move, replays a
// keyed retry (also after a crash between its two writes), and refuses
// bad requests with coded 4xx answers that write nothing.
func TestItemCopy(t *testing.T) {
	h := newHarness(t)
	src, att := copySourceItem(t, h)
	body := map[string]any{"target_workspace": "dst", "target_collection": "tasks", "archive_source": true, "op_key": "copy-1"}

	var res api.ItemCopyResult
	r := h.mustJSON("POST", copyPath+src.Ref+"/copy", body, 201, &res)
	if r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a first copy answered as a replay")
	}
	if res.Source.Archived == nil || !*res.Source.Archived || res.Source.Seq == 0 || !res.ArchiveSource ||
		res.Destination.WorkspaceSlug != "dst" || res.Destination.Ref == "" || res.Item == nil || res.Item.Ref != res.Destination.Ref {
		t.Fatalf("result: %+v", res)
	}
	it := res.Item
	fields, _ := it.FieldMap()
	if it.Title != "Copy me" || it.Tags != `["alpha","beta"]` || fields["priority"] != "high" || fields["status"] != "in-progress" ||
		fields[model.FieldImplementationNotes] == nil || fields[model.FieldGitHubPR] != nil || it.ParentID != nil {
		t.Errorf("the copy: %+v fields %v", it, fields)
	}
	if strings.Contains(it.Content, att.ID) || !strings.Contains(it.Content, "pad-attachment:00000000-0000-7000-8000-000000000000") {
		t.Errorf("content references not rewritten as they should be: %q", it.Content)
	}
	w := res.Warnings
	if w.AttachmentCount != 1 || w.AttachmentBytes != att.Size || w.UnresolvableRefCount != 1 || strings.Join(w.DroppedFields, ",") != model.FieldGitHubPR {
		t.Errorf("warnings: %+v", w)
	}
	newID := it.Content[strings.Index(it.Content, "pad-attachment:")+len("pad-attachment:"):][:36]
	var atts api.AttachmentList
	h.mustJSON("GET", "/api/v1/workspaces/dst/attachments?item_id="+it.Ref, nil, 200, &atts)
	if len(atts.Attachments) != 1 || atts.Attachments[0].ID != newID || atts.Attachments[0].SizeBytes != att.Size {
		t.Errorf("attachments of the copy: %+v (content names %s)", atts.Attachments, newID)
	}
	if got := h.call("GET", "/api/v1/workspaces/dst/attachments/"+newID, nil); got.status != 200 || len(got.body) != int(att.Size) {
		t.Errorf("the copied attachment reads %d, %d bytes", got.status, len(got.body))
	}
	var gone api.Item
	h.mustJSON("GET", wsPath("/items/"+src.Ref), nil, 200, &gone)
	if gone.DeletedAt == nil {
		t.Errorf("the source is not archived after a move")
	}

	// A keyed retry replays; a keyless one finds the source archived.
	var again api.ItemCopyResult
	r = h.mustJSON("POST", copyPath+src.Ref+"/copy", body, 201, &again)
	if r.header.Get("Idempotent-Replayed") != "true" || again.Destination.Ref != res.Destination.Ref ||
		again.Item.ID != it.ID || again.Warnings.AttachmentCount != 1 || !*again.Source.Archived {
		t.Errorf("replay: %s %+v", r.header.Get("Idempotent-Replayed"), again)
	}
	h.wantError("POST", copyPath+src.Ref+"/copy", map[string]any{"target_workspace": "dst", "target_collection": "tasks", "archive_source": true}, 409, model.CodeArchived)
	body2 := map[string]any{"target_workspace": "dst", "target_collection": "ideas", "archive_source": true, "op_key": "copy-1"}
	h.wantError("POST", copyPath+src.Ref+"/copy", body2, 422, model.CodeIdempotencyKeyReused)

	// A crash between the two writes leaves the copy made and the source
	// live (restored here to stand for it): the keyed retry finishes the
	// move without a second copy.
	h.mustJSON("POST", wsPath("/items/"+src.Ref+"/restore"), nil, 200, nil)
	r = h.mustJSON("POST", copyPath+src.Ref+"/copy", body, 201, &again)
	h.mustJSON("GET", wsPath("/items/"+src.Ref), nil, 200, &gone)
	var list []api.Item
	h.mustJSON("GET", dstTasksItems, nil, 200, &list)
	if r.header.Get("Idempotent-Replayed") != "true" || gone.DeletedAt == nil || len(list) != 1 {
		t.Errorf("retry after a half-done move: replayed %q, source archived %v, %d copies", r.header.Get("Idempotent-Replayed"), gone.DeletedAt != nil, len(list))
	}

	// A plain copy leaves the source as it was.
	keep := h.task("Keep me", "fields", map[string]any{"priority": "low"})
	var plain api.ItemCopyResult
	h.mustJSON("POST", copyPath+keep.Ref+"/copy", api.ItemCopyRequest{TargetWorkspace: "dst", TargetCollection: "tasks"}, 201, &plain)
	var still api.Item
	h.mustJSON("GET", wsPath("/items/"+keep.Ref), nil, 200, &still)
	if plain.Source.Archived == nil || *plain.Source.Archived || plain.Source.Seq != 0 || still.DeletedAt != nil || still.Seq != keep.Seq {
		t.Errorf("a plain copy touched its source: %+v, seq %d -> %d", plain.Source, keep.Seq, still.Seq)
	}

	// A state change needs the done field named; with it the copy goes.
	done := h.task("Finished", "fields", map[string]any{"status": "done"})
	e := h.wantError("POST", copyPath+done.Ref+"/copy", api.ItemCopyRequest{TargetWorkspace: "dst", TargetCollection: "ideas"}, 400, model.CodeValidation)
	if e.Details["reason"] != "state_change" || e.Details["field"] != "status" {
		t.Errorf("state change refusal: %+v", e)
	}
	h.mustJSON("POST", copyPath+done.Ref+"/copy", map[string]any{"target_workspace": "dst", "target_collection": "ideas",
		"field": []string{"status=implemented"}}, 201, &res)
	if f, _ := res.Item.FieldMap(); f["status"] != "implemented" {
		t.Errorf("overridden status: %v", f)
	}

	// Refusals, each writing nothing.
	h.mustJSON("GET", dstTasksItems, nil, 200, &list)
	n := len(list)
	for name, c := range map[string]struct {
		body   any
		status int
		code   string
	}{
		"no workspace":       {map[string]any{"target_collection": "tasks"}, 400, model.CodeBadRequest},
		"no collection":      {map[string]any{"target_workspace": "dst"}, 400, model.CodeBadRequest},
		"unknown workspace":  {map[string]any{"target_workspace": "nope", "target_collection": "tasks"}, 404, model.CodeNotFound},
		"unknown collection": {map[string]any{"target_workspace": "dst", "target_collection": "nope"}, 404, model.CodeNotFound},
		"undeclared":         {map[string]any{"target_workspace": "dst", "target_collection": "tasks", "field_overrides": map[string]any{"colour": "red"}}, 400, model.CodeMalformedOverride},
		"reserved":           {map[string]any{"target_workspace": "dst", "target_collection": "tasks", "field_overrides": map[string]any{"decision_log": []any{}}}, 400, model.CodeValidation},
		"over a limit":       {map[string]any{"target_workspace": "dst", "target_collection": "tasks", "field_overrides": map[string]any{"priority": strings.Repeat("x", model.LimitFieldValue.Max+1)}}, 400, model.CodeValidation},
		"key twice":          {map[string]any{"target_workspace": "dst", "target_collection": "tasks", "field_overrides": map[string]any{"priority": nil}, "field": []string{"priority=low"}}, 400, model.CodeBadRequest},
	} {
		for _, route := range []string{"/copy", "/copy/preflight"} {
			if r := h.call("POST", copyPath+keep.Ref+route, c.body); r.status != c.status || !strings.Contains(string(r.body), `"code":"`+c.code+`"`) {
				t.Errorf("%s %s: %d %s, want %d %s", name, route, r.status, r.body, c.status, c.code)
			}
		}
	}
	// A value the destination refuses: the preflight lists it, the copy
	// refuses it.
	bad := map[string]any{"target_workspace": "dst", "target_collection": "tasks", "field_overrides": map[string]any{"priority": "urgent"}}
	var p api.ItemCopyPreflight
	h.mustJSON("POST", copyPath+keep.Ref+"/copy/preflight", bad, 200, &p)
	if p.Valid || len(p.Fields.NeedsValue) != 1 || p.Fields.NeedsValue[0].Reason != "invalid_value" {
		t.Errorf("a refused override's preflight: %+v", p.Fields)
	}
	h.wantError("POST", copyPath+keep.Ref+"/copy", bad, 400, model.CodeValidation)
	h.mustJSON("GET", dstTasksItems, nil, 200, &list)
	if len(list) != n {
		t.Errorf("refused copies wrote: %d items, was %d", len(list), n)
	}
}

// FLD-07 for a copy: a carried value a unique field already holds in the
// destination is dropped and reported; the same value given as an
// override is refused with 409 conflict.
func TestItemCopyUnique(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Dest", "slug": "dst"}, 201, nil)
	pb := h.create("playbooks", map[string]any{"title": "Ship it", "fields": map[string]any{"invocation_slug": "ship"}})
	h.mustJSON("POST", "/api/v1/workspaces/dst/collections/playbooks/items", map[string]any{"title": "Ship there",
		"fields": map[string]any{"invocation_slug": "ship"}}, 201, nil)
	req := api.ItemCopyRequest{TargetWorkspace: "dst", TargetCollection: "playbooks"}

	var p api.ItemCopyPreflight
	h.mustJSON("POST", copyPath+pb.Ref+"/copy/preflight", req, 200, &p)
	var row api.CopyDropped
	for _, d := range p.Fields.Dropped {
		if d.Key == "invocation_slug" {
			row = d
		}
	}
	if row.Reason != "not_unique" || row.Detail == "" || len(p.Warnings.NotUnique) != 1 || p.Warnings.NotUnique[0]["holder"] == nil || !p.Valid {
		t.Errorf("preflight: dropped %+v, not_unique %+v", p.Fields.Dropped, p.Warnings.NotUnique)
	}
	var res api.ItemCopyResult
	h.mustJSON("POST", copyPath+pb.Ref+"/copy", req, 201, &res)
	if f, _ := res.Item.FieldMap(); f["invocation_slug"] != nil || len(res.Warnings.NotUnique) != 1 ||
		strings.Join(res.Warnings.DroppedFields, ",") != "invocation_slug" {
		t.Errorf("copy: fields %v, warnings %+v", f, res.Warnings)
	}
	req.FieldOverrides = map[string]any{"invocation_slug": "ship"}
	h.wantError("POST", copyPath+pb.Ref+"/copy", req, 409, model.CodeConflict)
}
