package daemon

import (
	"strconv"
	"testing"

	"github.com/padd/padd/api"
)

func TestChangesFeed(t *testing.T) {
	h := newHarness(t)
	a := h.task("A", "content", "body A")
	h.task("B")
	h.mustJSON("DELETE", wsPath("/items/TASK-2"), nil, 204, nil)

	var raw map[string]any
	h.mustJSON("GET", wsPath("/changes?since=0"), nil, 200, &raw)
	for _, key := range []string{"items", "updated", "deleted", "server_time", "has_more", "collections_changed"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("changes answer lacks %q: %v", key, raw)
		}
	}
	var ch api.Changes
	h.mustJSON("GET", wsPath("/changes?since=0"), nil, 200, &ch)
	if len(ch.Items) != 2 || len(ch.Updated) != 2 || ch.Updated[0].ID != ch.Items[0].ID || ch.Items[0].ID != a.ID ||
		ch.Items[0].Content != "body A" || len(ch.Deleted) != 1 || ch.Deleted[0] != ch.Items[1].ID ||
		ch.ServerTime <= 0 || ch.HasMore || ch.NextCursor != "" || !ch.CollectionsChanged {
		t.Fatalf("changes = %+v", ch)
	}
	var page api.Changes
	h.mustJSON("GET", wsPath("/changes?since=0&limit=1"), nil, 200, &page)
	if len(page.Items) != 1 || !page.HasMore || page.NextCursor == "" {
		t.Fatalf("limit=1 page = %+v", page)
	}
	var rest api.Changes
	h.mustJSON("GET", wsPath("/changes?cursor="+page.NextCursor), nil, 200, &rest)
	if len(rest.Items) != 1 || rest.Items[0].ID == page.Items[0].ID || rest.HasMore || rest.ServerTime != page.ServerTime {
		t.Errorf("second page = %+v", rest)
	}
	var empty api.Changes
	h.mustJSON("GET", wsPath("/changes?since="+strconv.FormatInt(ch.ServerTime+5000, 10)), nil, 200, &empty)
	if empty.Items == nil || len(empty.Items) != 0 || empty.Deleted == nil || empty.CollectionsChanged {
		t.Errorf("nothing new = %+v", empty)
	}
	h.wantError("GET", wsPath("/changes"), nil, 400, "bad_request")
	h.wantError("GET", wsPath("/changes?since=-1"), nil, 400, "bad_request")
	h.wantError("GET", wsPath("/changes?since=x"), nil, 400, "bad_request")
	h.wantError("GET", wsPath("/changes?cursor=garbage"), nil, 400, "bad_request")
}

func TestItemsChangesAndIndex(t *testing.T) {
	h := newHarness(t)
	h.task("A", "content", "not in feeds")
	h.task("B")
	plan := h.create("plans", map[string]any{"title": "P"})
	h.mustJSON("DELETE", wsPath("/items/TASK-2"), nil, 204, nil)

	var idx api.ItemsIndex
	h.mustJSON("GET", wsPath("/items-index"), nil, 200, &idx)
	if len(idx.Items) != 2 || idx.Total != 2 || !idx.IncludesUnparentedMetadata || idx.Items[0].Content != "" {
		t.Fatalf("index = %+v", idx)
	}
	head, err := strconv.ParseInt(idx.Cursor, 10, 64)
	if err != nil || head < 1 {
		t.Fatalf("index cursor %q is not a seq", idx.Cursor)
	}
	for _, it := range idx.Items {
		if it.Deleted != nil || !it.IsUnparented {
			t.Errorf("index row %s: deleted %v unparented %v", it.Ref, it.Deleted, it.IsUnparented)
		}
	}
	h.mustJSON("GET", wsPath("/items-index?include_archived=true&collection=task"), nil, 200, &idx)
	if idx.Total != 2 {
		t.Errorf("tasks with archived: %d", idx.Total)
	}

	var chg api.ItemsChanges
	h.mustJSON("GET", wsPath("/items-changes?since=0"), nil, 200, &chg)
	if len(chg.Changes) != 3 || chg.Cursor != strconv.FormatInt(head, 10) || !chg.IncludesUnparentedMetadata {
		t.Fatalf("items-changes = %+v", chg)
	}
	deleted := map[string]bool{}
	for _, c := range chg.Changes {
		if c.Deleted == nil || c.Content != "" {
			t.Errorf("row %s: deleted %v content %q", c.Ref, c.Deleted, c.Content)
		} else {
			deleted[c.Ref] = *c.Deleted
		}
	}
	if !deleted["TASK-2"] || deleted["TASK-1"] || deleted[plan.Ref] {
		t.Errorf("deleted flags = %v", deleted)
	}
	h.mustJSON("GET", wsPath("/items-changes?since=0&limit=1"), nil, 200, &chg)
	if len(chg.Changes) != 1 || chg.Cursor == idx.Cursor {
		t.Errorf("limit=1 = %+v", chg)
	}
	h.mustJSON("GET", wsPath("/items-changes?since="+idx.Cursor), nil, 200, &chg)
	if len(chg.Changes) != 0 || chg.Cursor != idx.Cursor {
		t.Errorf("caught up = %+v", chg)
	}
	h.wantError("GET", wsPath("/items-changes?since=-3"), nil, 400, "invalid_cursor")
	h.wantError("GET", wsPath("/items-changes?limit=0"), nil, 400, "invalid_limit")
}
