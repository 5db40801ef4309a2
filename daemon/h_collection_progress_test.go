package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

// The collection progress badges answer as Pad's did for the same items
// (checked by hand on Pad's server): children done of children per plan,
// cancelled ones done, an implementer a child; boxes counted
// "- [ ]" and "- [x]", not "- [X]"; archived items only when asked.
func TestCollectionProgress(t *testing.T) {
	h := newHarness(t)
	a := h.create("plans", map[string]any{"title": "Plan A", "content": "- [ ] one\n- [x] two\n- [X] three"})
	b := h.create("plans", map[string]any{"title": "Plan B"})
	old := h.create("plans", map[string]any{"title": "Old", "content": "- [x] done"})
	h.task("T1", "parent", a.Ref, "fields", map[string]any{"status": "done"})
	h.task("T2", "parent", a.Ref)
	h.task("T3", "parent", a.Ref, "fields", map[string]any{"status": "cancelled"})
	h.task("T4", "parent", old.Ref)
	impl := h.task("Impl")
	h.mustJSON("POST", wsPath("/items/"+impl.Ref+"/links"), map[string]any{"target_id": b.ID, "link_type": "implements"}, 201, nil)
	h.mustJSON("DELETE", wsPath("/items/"+old.Ref), nil, 204, nil)

	rows := func(path string) map[string]api.ItemProgress {
		t.Helper()
		var list []api.ItemProgress
		h.mustJSON("GET", wsPath(path), nil, 200, &list)
		out := map[string]api.ItemProgress{}
		for _, p := range list {
			out[p.ItemID] = p
		}
		return out
	}
	for _, path := range []string{"/plans-progress", "/collections/plans/child-progress"} {
		got := rows(path)
		if len(got) != 2 || got[a.ID] != (api.ItemProgress{ItemID: a.ID, Total: 3, Done: 2}) ||
			got[b.ID] != (api.ItemProgress{ItemID: b.ID, Total: 1}) {
			t.Errorf("%s = %+v", path, got)
		}
	}
	if got := rows("/collections/plans/child-progress?include_archived=true"); len(got) != 3 || got[old.ID].Total != 1 {
		t.Errorf("with archived = %+v", got)
	}
	if got := rows("/collections/plans/checkbox-progress"); len(got) != 1 || got[a.ID] != (api.ItemProgress{ItemID: a.ID, Total: 2, Done: 1}) {
		t.Errorf("checkbox = %+v", got)
	}
	if got := rows("/collections/plans/checkbox-progress?include_archived=true"); len(got) != 2 || got[old.ID].Done != 1 {
		t.Errorf("checkbox with archived = %+v", got)
	}
	if r := h.mustJSON("GET", wsPath("/collections/tasks/checkbox-progress"), nil, 200, nil); string(r.body) != "[]\n" {
		t.Errorf("no boxes = %q", r.body)
	}
	h.wantError("GET", wsPath("/collections/nope/child-progress"), nil, 404, "not_found")
	h.wantError("GET", wsPath("/collections/nope/checkbox-progress"), nil, 404, "not_found")
}
