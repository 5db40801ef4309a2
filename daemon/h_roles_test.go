package daemon

import (
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// padAgentRole is Pad's AgentRole as its CLI decodes it.
type padAgentRole struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Icon        string    `json:"icon"`
	Tools       string    `json:"tools"`
	SortOrder   int       `json:"sort_order"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	ItemCount   int       `json:"item_count"`
}

func TestAgentRolesCRUD(t *testing.T) {
	h := newHarness(t)
	var impl, rev padAgentRole
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Implementer", "icon": "🔨", "description": "builds"}, 201, &impl)
	if impl.Slug != "implementer" || impl.Name != "Implementer" || impl.Icon != "🔨" || impl.ID == "" || impl.CreatedAt.IsZero() {
		t.Errorf("created = %+v", impl)
	}
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Reviewer", "slug": "rev", "sort_order": -1}, 201, &rev)
	h.wantError("POST", wsPath("/agent-roles"), map[string]any{"name": "Other", "slug": "rev"}, 409, "conflict")
	h.wantError("POST", wsPath("/agent-roles"), map[string]any{"icon": "x"}, 400, "bad_request")

	var list []padAgentRole
	h.mustJSON("GET", wsPath("/agent-roles"), nil, 200, &list)
	if len(list) != 2 || list[0].Slug != "rev" || list[1].Slug != "implementer" {
		t.Errorf("list (by sort order) = %+v", list)
	}
	var got padAgentRole
	for _, ref := range []string{"implementer", impl.ID} {
		h.mustJSON("GET", wsPath("/agent-roles/"+ref), nil, 200, &got)
		if got.ID != impl.ID {
			t.Errorf("GET %s = %+v", ref, got)
		}
	}
	h.wantError("GET", wsPath("/agent-roles/nobody"), nil, 404, "not_found")

	h.task("Build it", "role", "implementer")
	h.mustJSON("PATCH", wsPath("/agent-roles/implementer"), map[string]any{"name": "Builder", "slug": "builder"}, 200, &got)
	if got.Name != "Builder" || got.Slug != "builder" || got.ItemCount != 1 {
		t.Errorf("updated = %+v", got)
	}
	var it api.Item
	h.mustJSON("GET", wsPath("/items/TASK-1"), nil, 200, &it)
	if it.AgentRoleID == nil || *it.AgentRoleID != impl.ID || it.AgentRoleSlug != "builder" || it.AgentRoleName != "Builder" {
		t.Errorf("item role columns: id %v slug %q name %q", it.AgentRoleID, it.AgentRoleSlug, it.AgentRoleName)
	}
	var status map[string]string
	h.mustJSON("DELETE", wsPath("/agent-roles/builder"), nil, 200, &status)
	if status["status"] != "deleted" {
		t.Errorf("delete answered %v", status)
	}
	h.wantError("GET", wsPath("/agent-roles/builder"), nil, 404, "not_found")
	h.wantError("DELETE", wsPath("/agent-roles/builder"), nil, 404, "not_found")
	var after api.Item // fresh: decoding leaves absent members as they were
	h.mustJSON("GET", wsPath("/items/TASK-1"), nil, 200, &after)
	if after.AgentRoleID != nil || after.AgentRoleSlug != "" || after.AgentRoleName != "" {
		t.Errorf("item keeps a deleted role: %v %q", after.AgentRoleID, after.AgentRoleSlug)
	}
}

// An item read names its role's icon as agent_role_icon, as Pad's joins
// do (item show prints it before the role's name), on one item and in
// a list; a role without an icon leaves it out.
func TestItemCarriesAgentRoleIcon(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Builder", "icon": "🔨"}, 201, nil)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Plain"}, 201, nil)
	h.task("Build it", "role", "builder")
	h.task("Plain work", "role", "plain")
	var raw map[string]any
	h.mustJSON("GET", wsPath("/items/TASK-1"), nil, 200, &raw)
	if raw["agent_role_icon"] != "🔨" || raw["agent_role_name"] != "Builder" {
		t.Errorf("item role columns: %v %v", raw["agent_role_icon"], raw["agent_role_name"])
	}
	var list []map[string]any
	h.mustJSON("GET", wsPath("/collections/tasks/items?sort=title:asc"), nil, 200, &list)
	if len(list) != 2 || list[0]["agent_role_icon"] != "🔨" {
		t.Fatalf("list: %v", list)
	}
	if _, ok := list[1]["agent_role_icon"]; ok {
		t.Errorf("a role without an icon answers agent_role_icon %v", list[1]["agent_role_icon"])
	}
}
