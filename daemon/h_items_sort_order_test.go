package daemon

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/padd/padd/api"
)

// The bulk sort order (ITM-10): one write sets many items' sort_order by
// id or ref, answers each item's id and seq, logs "reordered" with the
// from/to orders, leaves updated_at alone, and refuses the whole batch
// for a bad element with a coded 4xx.
func TestItemSortOrder(t *testing.T) {
	h := newHarness(t)
	a := h.task("A")
	b := h.task("B")
	c := h.task("C")

	var before api.Item
	h.mustJSON("GET", wsPath("/items/"+a.Ref), nil, 200, &before)
	var res api.ItemSortOrderResult
	h.mustJSON("PUT", wsPath("/items/sort-order"), map[string]any{"updates": []map[string]any{
		{"id": a.ID, "sort_order": 3}, {"id": b.Ref, "sort_order": 1}, {"id": c.ID, "sort_order": 0}}}, 200, &res)
	if len(res.Items) != 3 || res.Items[0].ID != a.ID || res.Items[1].ID != b.ID || res.Items[2].ID != c.ID {
		t.Fatalf("answer = %+v", res)
	}
	var after api.Item
	h.mustJSON("GET", wsPath("/items/"+a.Ref), nil, 200, &after)
	if after.SortOrder != 3 || after.Seq <= before.Seq || after.Seq != res.Items[0].Seq || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("reordered item: order %d seq %d->%d (answered %d) updated %v->%v",
			after.SortOrder, before.Seq, after.Seq, res.Items[0].Seq, before.UpdatedAt, after.UpdatedAt)
	}
	if res.Items[2].Seq != c.Seq {
		t.Errorf("an unchanged item took a new seq: %d -> %d", c.Seq, res.Items[2].Seq)
	}

	// The change feed carries the new order (so SSE and export see it).
	var ch api.Changes
	h.mustJSON("GET", wsPath(fmt.Sprintf("/changes?since=%d", before.Seq)), nil, 200, &ch)
	found := false
	for _, it := range append(ch.Items, ch.Updated...) {
		found = found || (it.ID == b.ID && it.SortOrder == 1)
	}
	if !found {
		t.Errorf("changes since %d lack %s's new order: %+v", before.Seq, b.Ref, ch)
	}

	var feed []padActivity
	h.mustJSON("GET", wsPath("/activity?action=reordered"), nil, 200, &feed)
	if len(feed) != 2 {
		t.Fatalf("reordered entries = %+v", feed)
	}
	var meta, other map[string]any
	if err := json.Unmarshal([]byte(feed[1].Metadata), &meta); err != nil || feed[1].DocumentID != a.ID ||
		meta["sort_order_from"] != float64(0) || meta["sort_order_to"] != float64(3) || meta["reorder_batch"] == nil {
		t.Errorf("reordered entry = %+v (%v)", feed[1], meta)
	}
	if err := json.Unmarshal([]byte(feed[0].Metadata), &other); err != nil || other["reorder_batch"] != meta["reorder_batch"] {
		t.Errorf("one batch, two reorder_batch values: %v, %v", meta, other)
	}

	// The dashboard shows the batch as one row standing for both.
	var dash api.Dashboard
	h.mustJSON("GET", wsPath("/dashboard"), nil, 200, &dash)
	if len(dash.RecentActivity) == 0 || dash.RecentActivity[0].Action != "reordered" || dash.RecentActivity[0].ReorderCount != 2 ||
		len(dash.RecentActivity) > 1 && dash.RecentActivity[1].Action == "reordered" {
		t.Errorf("dashboard recent activity = %+v", dash.RecentActivity)
	}

	bad := []struct {
		name string
		body any
		code int
		want string
	}{
		{"unknown item", map[string]any{"updates": []map[string]any{{"id": a.ID, "sort_order": 9}, {"id": "TASK-99", "sort_order": 1}}}, 404, "not_found"},
		{"repeated item", map[string]any{"updates": []map[string]any{{"id": a.ID, "sort_order": 9}, {"id": a.Ref, "sort_order": 1}}}, 400, "validation_error"},
		{"empty", map[string]any{"updates": []map[string]any{}}, 400, "validation_error"},
		{"no id", map[string]any{"updates": []map[string]any{{"sort_order": 9}}}, 400, "validation_error"},
		{"not an object", []int{1}, 400, "bad_request"},
		{"too many", map[string]any{"updates": make([]map[string]any, 1001)}, 400, "validation_error"},
	}
	for _, tc := range bad {
		if tc.name == "too many" {
			ups := tc.body.(map[string]any)["updates"].([]map[string]any)
			for i := range ups {
				ups[i] = map[string]any{"id": a.ID, "sort_order": i}
			}
		}
		t.Run(tc.name, func(t *testing.T) { h.wantError("PUT", wsPath("/items/sort-order"), tc.body, tc.code, tc.want) })
	}
	h.mustJSON("GET", wsPath("/items/"+a.Ref), nil, 200, &after)
	if after.SortOrder != 3 {
		t.Errorf("a refused batch wrote: %d", after.SortOrder)
	}

	h.mustJSON("DELETE", wsPath("/items/"+b.Ref), nil, 204, nil)
	h.wantError("PUT", wsPath("/items/sort-order"), map[string]any{"updates": []map[string]any{{"id": b.ID, "sort_order": 4}}}, 409, "archived")
}
