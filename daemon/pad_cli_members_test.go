package daemon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// padCLIItem is what Pad's CLI reads from an item besides its fields to
// print `pad item show`: "Assigned:", the parent, and the sections
// "Implementation Notes", "Decision Log" and "Convention Metadata". Each
// must be there on a read, in these types, or the CLI prints nothing.
type padCLIItem struct {
	AssignedUserName    string `json:"assigned_user_name"`
	ParentLinkID        string `json:"parent_link_id"`
	ImplementationNotes []struct {
		Summary string `json:"summary"`
		Details string `json:"details"`
	} `json:"implementation_notes"`
	DecisionLog []struct {
		Decision  string `json:"decision"`
		Rationale string `json:"rationale"`
	} `json:"decision_log"`
	Convention *struct {
		Category    string   `json:"category"`
		Trigger     string   `json:"trigger"`
		Surfaces    []string `json:"surfaces"`
		Enforcement string   `json:"enforcement"`
		Commands    []string `json:"commands"`
	} `json:"convention"`
}

func TestItemReadCarriesWhatPadsCLIPrints(t *testing.T) {
	h := newHarness(t)
	plan := h.create("plans", map[string]any{"title": "Ship"})
	task := h.task("Fix login", "parent", plan.Ref, "assigned_user_id", "local")
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{
		"append_implementation_note": map[string]any{"summary": "Wired the cache", "details": "in auth.go"}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{
		"append_decision": map[string]any{"decision": "Use a cookie", "rationale": "speed"}}, 200, nil)

	var got padCLIItem
	h.mustJSON("GET", wsPath("/items/"+task.Ref), nil, 200, &got)
	if got.AssignedUserName != "Local User" {
		t.Errorf("assigned_user_name %q, want the local user's name", got.AssignedUserName)
	}
	if got.ParentLinkID != plan.ID {
		t.Errorf("parent_link_id %q, want the parent's id %q", got.ParentLinkID, plan.ID)
	}
	if len(got.ImplementationNotes) != 1 || got.ImplementationNotes[0].Summary != "Wired the cache" || got.ImplementationNotes[0].Details != "in auth.go" {
		t.Errorf("implementation_notes %+v", got.ImplementationNotes)
	}
	if len(got.DecisionLog) != 1 || got.DecisionLog[0].Decision != "Use a cookie" || got.DecisionLog[0].Rationale != "speed" {
		t.Errorf("decision_log %+v", got.DecisionLog)
	}
	if got.Convention != nil {
		t.Errorf("a task has convention %+v", got.Convention)
	}

	// A list answers them too, as Pad's does.
	var list []padCLIItem
	h.mustJSON("GET", wsPath("/collections/tasks/items"), nil, 200, &list)
	if len(list) != 1 || len(list[0].ImplementationNotes) != 1 || list[0].AssignedUserName == "" {
		t.Errorf("list %+v", list)
	}

	// A convention written by hand (no reserved copy): its metadata read
	// from the ordinary keys, enforcement from priority, surfaces from
	// scope.
	conv := h.create("conventions", map[string]any{"title": "Run tests",
		"fields": map[string]any{"trigger": "on-commit", "scope": "all", "priority": "must"}})
	var c padCLIItem
	h.mustJSON("GET", wsPath("/items/"+conv.Ref), nil, 200, &c)
	if c.Convention == nil || c.Convention.Trigger != "on-commit" || c.Convention.Enforcement != "must" ||
		!reflect.DeepEqual(c.Convention.Surfaces, []string{"all"}) {
		t.Errorf("hand-written convention: %+v", c.Convention)
	}
	// One with the reserved copy (Pad's typed create member): the copy wins.
	typed := h.create("conventions", map[string]any{"title": "No secrets",
		"convention": map[string]any{"category": "safety", "trigger": "always", "surfaces": []string{"all"},
			"enforcement": "must", "commands": []string{"git diff --cached"}}})
	h.mustJSON("GET", wsPath("/items/"+typed.Ref), nil, 200, &c)
	if c.Convention == nil || c.Convention.Category != "safety" || c.Convention.Trigger != "always" ||
		!reflect.DeepEqual(c.Convention.Commands, []string{"git diff --cached"}) {
		t.Errorf("typed convention: %+v", c.Convention)
	}

	// An idea's category alone is no convention; an item with nothing of
	// these answers none of the members.
	idea := h.create("ideas", map[string]any{"title": "Dark mode", "fields": map[string]any{"category": "ui"}})
	r := h.mustJSON("GET", wsPath("/items/"+idea.Ref), nil, 200, nil)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"convention", "implementation_notes", "decision_log", "assigned_user_name", "parent_link_id"} {
		if v, ok := raw[k]; ok {
			t.Errorf("an idea with none answers %s: %s", k, v)
		}
	}
}

// Pad's CLI prints an activity entry's changes from metadata.changes, a
// line of text (`pad project activity`, `pad workspace audit-log`); it
// reads nothing from an object there.
func TestActivityChangesInPadsWords(t *testing.T) {
	h := newHarness(t)
	task := h.task("Old title")
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"title": "New title",
		"fields_patch": map[string]any{"status": "done", "priority": "high", "due_date": "2026-12-31"}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"fields_patch": map[string]any{"due_date": nil}}, 200, nil)
	want := []string{
		"due_date: 2026-12-31 → ",
		"due_date: → 2026-12-31; priority: medium → high; status: open → done; title: Old title → New title",
	}
	for _, path := range []string{wsPath("/activity?limit=2"), "/api/v1/audit-log?workspace=w&action=updated&limit=2"} {
		var acts []struct {
			Action   string `json:"action"`
			Metadata string `json:"metadata"`
		}
		h.mustJSON("GET", path, nil, 200, &acts)
		if len(acts) != 2 {
			t.Fatalf("%s: %d entries", path, len(acts))
		}
		for i, a := range acts {
			var meta struct {
				Changes string         `json:"changes"`
				Detail  map[string]any `json:"changes_detail"`
			}
			if err := json.Unmarshal([]byte(a.Metadata), &meta); err != nil {
				t.Fatalf("%s: metadata %s: %v (Pad's CLI reads changes as text)", path, a.Metadata, err)
			}
			if meta.Changes != want[i] {
				t.Errorf("%s: changes %q, want %q", path, meta.Changes, want[i])
			}
			if meta.Detail["fields.status"] == nil && i == 1 {
				t.Errorf("%s: the typed detail is gone: %s", path, a.Metadata)
			}
		}
	}
}

// A note or decision appended, a role and an assignee changed have
// their line too, worded as Pad's server words them: a list by its
// length, a role by its name, the assignee by name, "(none)" for none;
// the role and assignee after the field changes.
func TestActivityNotesAndAssignmentInPadsWords(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Builder"}, 201, nil)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Reviewer"}, 201, nil)
	task := h.task("Fix login")
	patch := func(body map[string]any) {
		t.Helper()
		h.mustJSON("PATCH", wsPath("/items/"+task.Ref), body, 200, nil)
	}
	patch(map[string]any{"append_implementation_note": map[string]any{"summary": "Wired it"}})
	patch(map[string]any{"append_implementation_note": map[string]any{"summary": "Again"}})
	patch(map[string]any{"append_decision": map[string]any{"decision": "Use a cookie", "rationale": "speed"}})
	patch(map[string]any{"agent_role_id": "builder", "assigned_user_id": "local", "fields_patch": map[string]any{"priority": "high"}})
	patch(map[string]any{"agent_role_id": "reviewer"})
	patch(map[string]any{"clear_agent_role": true, "clear_assigned_user": true})
	want := []string{ // newest first
		"role: Reviewer → (none); assigned: Local User → (none)",
		"role: Builder → Reviewer",
		"priority: medium → high; role: (none) → Builder; assigned: (none) → Local User",
		"decision_log: → (1 entry)",
		"implementation_notes: (1 note) → (2 notes)",
		"implementation_notes: → (1 note)",
	}
	var acts []struct {
		Metadata string `json:"metadata"`
	}
	h.mustJSON("GET", wsPath("/activity?action=updated&limit=10"), nil, 200, &acts)
	if len(acts) != len(want) {
		t.Fatalf("%d entries, want %d", len(acts), len(want))
	}
	for i, a := range acts {
		var meta struct {
			Changes string `json:"changes"`
		}
		if err := json.Unmarshal([]byte(a.Metadata), &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Changes != want[i] {
			t.Errorf("entry %d: changes %q, want %q", i, meta.Changes, want[i])
		}
	}
}

// `pad workspace deleted` prints each deleted workspace's DAYS LEFT
// from days_left; purge_at is when padd's maintenance purges it.
func TestDeletedWorkspacesSayWhenTheyArePurged(t *testing.T) {
	h := newHarness(t)
	h.srv.now = h.clock.now
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Old", "slug": "old"}, 201, nil)
	h.mustJSON("DELETE", "/api/v1/workspaces/old", nil, 204, nil)
	h.clock.advance(20 * 24 * time.Hour) // old was deleted 20 days ago
	h.mustJSON("DELETE", "/api/v1/workspaces/w", nil, 204, nil)

	var got []struct {
		Slug      string    `json:"slug"`
		DeletedAt time.Time `json:"deleted_at"`
		PurgeAt   time.Time `json:"purge_at"`
		DaysLeft  int       `json:"days_left"`
	}
	h.mustJSON("GET", "/api/v1/workspaces/deleted", nil, 200, &got)
	left := map[string]int{}
	for _, d := range got {
		left[d.Slug] = d.DaysLeft
		if !d.PurgeAt.Equal(d.DeletedAt.Add(storage.RestoreWindow)) {
			t.Errorf("%s: purge_at %v, deleted_at %v", d.Slug, d.PurgeAt, d.DeletedAt)
		}
	}
	if want := map[string]int{"old": 10, "w": 30}; !reflect.DeepEqual(left, want) {
		t.Errorf("days_left %v, want %v", left, want)
	}
}

// `pad github link` writes the item's fields back with github_pr added,
// as text; `pad github unlink` writes them back without it.
func TestPullRequestLinkThroughFullFields(t *testing.T) {
	h := newHarness(t)
	task := h.task("Fix login")
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{
		"append_implementation_note": map[string]any{"summary": "s"}}, 200, nil)
	var it api.Item
	h.mustJSON("GET", wsPath("/items/"+task.Ref), nil, 200, &it)
	fields, _ := it.FieldMap()
	fields["github_pr"] = map[string]any{"number": 42, "url": "https://github.com/o/r/pull/42", "title": "Fix",
		"state": "OPEN", "branch": "fix", "repo": "o/r", "updated_at": "2026-12-07T10:00:00Z"}
	text, _ := json.Marshal(fields)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"fields": string(text)}, 200, &it)
	if it.CodeContext == nil || it.CodeContext.PullRequest == nil || it.CodeContext.PullRequest.Number != 42 {
		t.Fatalf("linked: code_context %+v", it.CodeContext)
	}
	delete(fields, "github_pr")
	text, _ = json.Marshal(fields)
	it = api.Item{}
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"fields": string(text)}, 200, &it)
	if it.CodeContext != nil || strings.Contains(it.Fields, "github_pr") || !strings.Contains(it.Fields, "implementation_notes") {
		t.Errorf("unlinked: code_context %+v, fields %s", it.CodeContext, it.Fields)
	}
}

// `pad workspace context set` sends the context in a workspace update
// and `pad workspace context` reads it from the workspace: padd keeps
// it, answers it on the workspace (and its list, and in Pad's settings
// text), leaves it alone on a null, and refuses a member it does not
// know rather than drop it.
func TestWorkspaceContextIsKept(t *testing.T) {
	h := newHarness(t)
	ctx := map[string]any{
		"repositories": []any{map[string]any{"name": "padd", "role": "primary", "path": ".", "repo": "padd/padd"}},
		"paths":        map[string]any{"root": ".", "docs_repo": "../docs"},
		"commands":     map[string]any{"test": "go test ./...", "build": "make"},
		"stack":        map[string]any{"languages": []string{"go"}, "package_managers": []string{"go"}},
		"deployment":   map[string]any{"mode": "local", "base_url": "http://127.0.0.1:7777"},
		"assumptions":  []string{"one user"},
	}
	want, _ := json.Marshal(ctx)
	var ws api.Workspace
	h.mustJSON("PATCH", "/api/v1/workspaces/w", map[string]any{"context": ctx}, 200, &ws)
	if got, _ := json.Marshal(ws.Context); !jsonSame(t, got, want) {
		t.Fatalf("answered context %s, want %s", got, want)
	}
	if !jsonSame(t, []byte(ws.Settings), []byte(`{"context":`+string(want)+`}`)) {
		t.Errorf("settings %s", ws.Settings)
	}
	ws = api.Workspace{}
	h.mustJSON("PATCH", "/api/v1/workspaces/w", map[string]any{"name": "Renamed", "context": nil}, 200, &ws)
	if got, _ := json.Marshal(ws.Context); ws.Name != "Renamed" || !jsonSame(t, got, want) {
		t.Fatalf("a rename with a null context: %s, context %s", ws.Name, got)
	}
	var list []api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &list)
	if got, _ := json.Marshal(list[0].Context); len(list) != 1 || !jsonSame(t, got, want) {
		t.Errorf("list's context %s", got)
	}

	for _, body := range []map[string]any{
		{"context": map[string]any{"commands": map[string]any{"test": "x"}, "owner": "me"}},
		{"context": map[string]any{"commands": map[string]any{"tests": "x"}}},
		{"context": map[string]any{"repositories": "x"}},
		{"context": []int{1}},
		{"name": "Again", "settings": `{"context":{},"theme":"dark"}`},
		{"settings": 5},
	} {
		h.wantError("PATCH", "/api/v1/workspaces/w", body, 400, "bad_request")
	}
	long := make([]string, model.MaxContextList+1)
	for _, body := range []map[string]any{
		{"context": map[string]any{"assumptions": long}},
		{"context": map[string]any{"commands": map[string]any{"test": strings.Repeat("x", model.LimitContextText.Max+1)}}},
	} {
		h.wantError("PATCH", "/api/v1/workspaces/w", body, 400, "validation_error")
	}
	ws = api.Workspace{}
	h.mustJSON("GET", "/api/v1/workspaces/w", nil, 200, &ws)
	if got, _ := json.Marshal(ws.Context); ws.Name != "Renamed" || !jsonSame(t, got, want) {
		t.Fatalf("refused updates changed the workspace: %s, context %s", ws.Name, got)
	}

	// Pad's settings text sets it too; settings without one clear it.
	ws = api.Workspace{}
	h.mustJSON("PATCH", "/api/v1/workspaces/w", map[string]any{"settings": `{"context":{"assumptions":["a"]}}`}, 200, &ws)
	if ws.Context == nil || len(ws.Context.Assumptions) != 1 || ws.Context.Repositories != nil {
		t.Fatalf("set by settings: %+v", ws.Context)
	}
	ws = api.Workspace{}
	h.mustJSON("PATCH", "/api/v1/workspaces/w", map[string]any{"context": map[string]any{}}, 200, &ws)
	if ws.Context == nil || ws.Settings != `{"context":{}}` {
		t.Fatalf("an empty context, as Pad keeps it: %+v %s", ws.Context, ws.Settings)
	}
	ws = api.Workspace{}
	h.mustJSON("PATCH", "/api/v1/workspaces/w", map[string]any{"settings": "{}"}, 200, &ws)
	if ws.Context != nil || ws.Settings != "{}" {
		t.Fatalf("cleared by settings: %+v %s", ws.Context, ws.Settings)
	}
}

// jsonSame says a and b are the same JSON value.
func jsonSame(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}
