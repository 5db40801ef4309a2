package daemon

import (
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// PUT /workspaces/reorder sets each listed workspace's order, which the
// list then follows; a slug that names no workspace is skipped, as Pad
// skips one the caller is no member of; a list past the bound is refused.
func TestReorderWorkspaces(t *testing.T) {
	h := newHarness(t)
	for _, n := range []string{"Beta", "Gamma"} {
		h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": n}, 201, nil)
	}
	slugs := func() []string {
		var wss []api.Workspace
		h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &wss)
		var out []string
		for _, ws := range wss {
			out = append(out, ws.Slug)
		}
		return out
	}
	before := slugs()
	if len(before) != 3 {
		t.Fatalf("workspaces: %v", before)
	}
	want := []string{before[2], before[0], before[1]}
	var st api.Status
	h.mustJSON("PUT", "/api/v1/workspaces/reorder", []api.WorkspaceOrder{{Slug: want[0], SortOrder: 0},
		{Slug: want[1], SortOrder: 1}, {Slug: "nobody-has-this", SortOrder: 2}, {Slug: want[2], SortOrder: 3}}, 200, &st)
	if st.Status != "ok" {
		t.Errorf("answer %+v", st)
	}
	if got := slugs(); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"slug":"x","sort_order":1},`, maxReorder+1), ",") + "]"
	h.wantError("PUT", "/api/v1/workspaces/reorder", many, 400, "validation_error")
	h.wantError("PUT", "/api/v1/workspaces/reorder", `{"slug":"x"}`, 400, "bad_request")
}
