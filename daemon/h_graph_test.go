package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

// The graph over HTTP: Pad's {nodes, edges} keyed by ref, a focus's
// neighbourhood, and a coded 4xx for a depth that is no number or a
// focus that names no item.
func TestGraphRoute(t *testing.T) {
	h := newHarness(t)
	plan := h.create("plans", map[string]any{"title": "Launch"})
	task := h.task("one", "parent", plan.Ref)
	h.task("two")
	var g api.Graph
	r := h.mustJSON("GET", wsPath("/graph"), nil, 200, &g)
	if len(g.Nodes) != 3 || len(g.Edges) != 1 || g.Edges[0] != (api.GraphEdge{Source: task.Ref, Target: plan.Ref, Type: "parent"}) || g.Truncated {
		t.Fatalf("graph = %s", r.body)
	}
	h.mustJSON("GET", wsPath("/graph?focus="+plan.Ref+"&depth=9"), nil, 200, &g)
	if len(g.Nodes) != 2 || g.Nodes[0].Ref != plan.Ref || g.Nodes[0].ChildCount != 1 {
		t.Errorf("focus = %+v", g)
	}
	h.wantError("GET", wsPath("/graph?focus="+plan.Ref+"&depth=deep"), nil, 400, "bad_request")
	h.wantError("GET", wsPath("/graph?focus=TASK-99"), nil, 404, "not_found")
}
