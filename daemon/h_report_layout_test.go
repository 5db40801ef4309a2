package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

// The report layout answers Pad's defaults until saved; a save drops an
// unknown card and window and a repeated card as Pad's does, answers
// what it stored, and is one change of the workspace's feed.
func TestReportLayout(t *testing.T) {
	h := newHarness(t)
	var l api.ReportLayout
	r := h.mustJSON("GET", wsPath("/report/layout"), nil, 200, &l)
	if string(r.body) != `{"hidden_cards":[],"default_window":"","default_collections":[]}`+"\n" {
		t.Fatalf("default = %s", r.body)
	}
	var ws api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces/w", nil, 200, &ws)
	r = h.mustJSON("PUT", wsPath("/report/layout"), map[string]any{"hidden_cards": []string{"wip", "bogus", "wip"},
		"default_window": "year", "default_collections": []string{"tasks"}}, 200, &l)
	want := `{"hidden_cards":["wip"],"default_window":"","default_collections":["tasks"]}` + "\n"
	if string(r.body) != want {
		t.Errorf("put = %s", r.body)
	}
	if r = h.mustJSON("GET", wsPath("/report/layout"), nil, 200, nil); string(r.body) != want {
		t.Errorf("get after put = %s", r.body)
	}
	var after api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces/w", nil, 200, &after)
	if after.Seq != ws.Seq+1 || !after.UpdatedAt.Equal(ws.UpdatedAt) {
		t.Errorf("workspace seq %d -> %d, updated %v -> %v", ws.Seq, after.Seq, ws.UpdatedAt, after.UpdatedAt)
	}
	h.mustJSON("PUT", wsPath("/report/layout"), map[string]any{"default_window": "week"}, 200, &l)
	if l.DefaultWindow != "week" || len(l.HiddenCards) != 0 || l.DefaultCollections == nil {
		t.Errorf("second put = %+v", l)
	}
	h.wantError("PUT", wsPath("/report/layout"), nil, 400, "bad_request")
	h.wantError("PUT", wsPath("/report/layout"), []string{"x"}, 400, "bad_request")
	many := make([]string, 501)
	h.wantError("PUT", wsPath("/report/layout"), map[string]any{"default_collections": many}, 400, "validation_error")
	h.wantError("GET", "/api/v1/workspaces/nope/report/layout", nil, 404, "not_found")
}
