package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

func TestStars(t *testing.T) {
	h := newHarness(t)
	h.task("A", "content", "body of A")
	h.task("B", "content", "body of B")
	var st api.StarState
	h.mustJSON("GET", wsPath("/items/TASK-1/star"), nil, 200, &st)
	if st.Starred {
		t.Fatal("a fresh item is starred")
	}
	h.mustJSON("POST", wsPath("/items/TASK-1/star"), nil, 200, &st)
	if !st.Starred || st.Ref != "TASK-1" {
		t.Errorf("star = %+v", st)
	}
	h.mustJSON("POST", wsPath("/items/TASK-1/star"), nil, 200, &st) // again: still fine
	h.mustJSON("GET", wsPath("/items/TASK-1/star"), nil, 200, &st)
	if !st.Starred {
		t.Error("GET after star says not starred")
	}
	h.clock.advance(1e9)
	h.mustJSON("POST", wsPath("/items/TASK-2/star"), nil, 200, nil)

	var items []api.Item
	r := h.mustJSON("GET", wsPath("/starred"), nil, 200, &items)
	if len(items) != 2 || items[0].Ref != "TASK-2" || items[1].Ref != "TASK-1" || items[0].Content != "body of B" ||
		r.header.Get("X-Pad-Has-More") != "false" {
		t.Fatalf("starred = %+v (has more %q)", items, r.header.Get("X-Pad-Has-More"))
	}
	h.mustJSON("GET", wsPath("/starred?summary=true"), nil, 200, &items)
	if len(items) != 2 || items[0].Content != "" {
		t.Errorf("summary keeps bodies: %+v", items)
	}
	r = h.mustJSON("GET", wsPath("/starred?limit=1"), nil, 200, &items)
	if len(items) != 1 || r.header.Get("X-Pad-Has-More") != "true" || r.header.Get("X-Pad-Next-Offset") != "1" {
		t.Errorf("limit=1: %d items, headers %v", len(items), r.header)
	}
	h.mustJSON("GET", wsPath("/starred?limit=1&offset=1"), nil, 200, &items)
	if len(items) != 1 || items[0].Ref != "TASK-1" {
		t.Errorf("second page = %+v", items)
	}

	// A finished item leaves the list unless asked for.
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"fields_patch": map[string]any{"status": "done"}}, 200, nil)
	h.mustJSON("GET", wsPath("/starred"), nil, 200, &items)
	if len(items) != 1 {
		t.Errorf("done item still listed: %d", len(items))
	}
	h.mustJSON("GET", wsPath("/starred?include_terminal=true"), nil, 200, &items)
	if len(items) != 2 {
		t.Errorf("include_terminal lists %d", len(items))
	}

	h.mustJSON("DELETE", wsPath("/items/TASK-1/star"), nil, 200, &st)
	if st.Starred || st.Ref != "TASK-1" {
		t.Errorf("unstar = %+v", st)
	}
	if e := h.wantError("DELETE", wsPath("/items/TASK-1/star"), nil, 404, "not_found"); e.Message != "Item is not starred" {
		t.Errorf("unstar twice: %q", e.Message)
	}
	h.wantError("POST", wsPath("/items/TASK-9/star"), nil, 404, "not_found")
	h.wantError("GET", wsPath("/starred?offset=-2"), nil, 400, "bad_request")
}
