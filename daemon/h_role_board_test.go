package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

// The role board: a lane per role in the roles' order and the unassigned
// lane, open items only, each lane by role_sort_order; the reorders move
// items and lanes as Pad's do (an item keeps its updated_at and takes a
// new seq), and refuse what they cannot apply with a coded 4xx.
func TestRoleBoard(t *testing.T) {
	h := newHarness(t)
	var builder, reviewer api.AgentRole
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Builder"}, 201, &builder)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Reviewer", "sort_order": 1}, 201, &reviewer)
	a := h.task("A", "role", "builder", "content", "the body")
	b := h.task("B")
	c := h.task("C")
	h.task("Done", "fields", map[string]any{"status": "done"})

	board := func() [][]string {
		t.Helper()
		var rb api.RoleBoard
		h.mustJSON("GET", wsPath("/roles/board"), nil, 200, &rb)
		var out [][]string
		for _, l := range rb.Lanes {
			lane := []string{"-"}
			if l.Role != nil {
				lane[0] = l.Role.Slug
			}
			for _, it := range l.Items {
				lane = append(lane, it.Ref)
			}
			out = append(out, lane)
		}
		return out
	}
	same := func(got, want [][]string) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if len(got[i]) != len(want[i]) {
				return false
			}
			for j := range got[i] {
				if got[i][j] != want[i][j] {
					return false
				}
			}
		}
		return true
	}
	if got := board(); len(got) != 3 || !same(got[:2], [][]string{{"builder", a.Ref}, {"reviewer"}}) || len(got[2]) != 3 {
		t.Fatalf("board = %v", got)
	}
	var rb api.RoleBoard
	h.mustJSON("GET", wsPath("/roles/board"), nil, 200, &rb)
	if it := rb.Lanes[0].Items[0]; it.Content != "the body" || rb.Lanes[1].Items == nil || rb.Lanes[1].AssignedUsers == nil {
		t.Errorf("lanes = %+v", rb.Lanes)
	}

	var before api.Item
	h.mustJSON("GET", wsPath("/items/"+b.Ref), nil, 200, &before)
	var ok api.Status
	h.mustJSON("PUT", wsPath("/roles/board/reorder"), []map[string]any{
		{"item_id": b.ID, "role_sort_order": 5}, {"item_id": c.ID, "role_sort_order": 1}}, 200, &ok)
	if ok.Status != "ok" {
		t.Errorf("reorder answered %+v", ok)
	}
	if got := board(); !same(got, [][]string{{"builder", a.Ref}, {"reviewer"}, {"-", c.Ref, b.Ref}}) {
		t.Errorf("after reorder = %v", got)
	}
	var after api.Item
	h.mustJSON("GET", wsPath("/items/"+b.Ref), nil, 200, &after)
	if after.RoleSortOrder != 5 || after.Seq <= before.Seq || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("reordered item: order %d seq %d->%d updated %v->%v", after.RoleSortOrder, before.Seq, after.Seq, before.UpdatedAt, after.UpdatedAt)
	}

	h.mustJSON("PUT", wsPath("/roles/board/lane-order"), []map[string]any{
		{"role_id": builder.ID, "sort_order": 2}, {"role_id": reviewer.ID, "sort_order": 0}}, 200, nil)
	if got := board(); !same(got[:2], [][]string{{"reviewer"}, {"builder", a.Ref}}) {
		t.Errorf("after lane order = %v", got)
	}

	h.wantError("PUT", wsPath("/roles/board/reorder"), []map[string]any{{"item_id": b.ID, "role_sort_order": 9}, {"item_id": "nope", "role_sort_order": 1}}, 404, "not_found")
	h.mustJSON("GET", wsPath("/items/"+b.Ref), nil, 200, &after)
	if after.RoleSortOrder != 5 {
		t.Errorf("a refused batch wrote: %d", after.RoleSortOrder)
	}
	h.wantError("PUT", wsPath("/roles/board/lane-order"), []map[string]any{{"role_id": "00000000-0000-0000-0000-000000000000", "sort_order": 1}}, 400, "unknown_role")
	h.wantError("PUT", wsPath("/roles/board/lane-order"), map[string]any{"x": 1}, 400, "bad_request")
	h.wantError("PUT", wsPath("/roles/board/reorder"), nil, 400, "bad_request")
}
