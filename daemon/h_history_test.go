package daemon

import (
	"strconv"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

func TestVersionsDiffRestore(t *testing.T) {
	h := newHarness(t)
	h.task("Doc", "content", "line one\n")
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"content": "line one\nline two\n", "change_summary": "add two"}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"content": "rewritten\n"}, 200, nil)

	var vs []api.ItemVersion
	h.mustJSON("GET", wsPath("/items/TASK-1/versions"), nil, 200, &vs)
	if len(vs) != 3 || vs[0].VersionSeq != 3 || vs[2].VersionSeq != 1 || !vs[2].IsCreate || vs[1].ChangeSummary != "add two" ||
		vs[0].Content != "rewritten\n" || vs[0].DocumentID != vs[0].ItemID || vs[0].CreatedBy != "user" || vs[0].Source != "cli" {
		t.Fatalf("versions = %+v", vs)
	}
	var sum []api.ItemVersion
	h.mustJSON("GET", wsPath("/items/TASK-1/versions?summary=true&limit=2"), nil, 200, &sum)
	if len(sum) != 2 || sum[0].Content != "" || sum[0].ID != vs[0].ID {
		t.Errorf("summary page = %+v", sum)
	}
	var one api.ItemVersion
	for _, ref := range []string{vs[1].ID, "2"} {
		h.mustJSON("GET", wsPath("/items/TASK-1/versions/"+ref), nil, 200, &one)
		if one.ID != vs[1].ID || one.Content != "line one\nline two\n" {
			t.Errorf("version %s = %+v", ref, one)
		}
	}
	var d api.VersionDiff
	h.mustJSON("GET", wsPath("/items/TASK-1/versions/"+vs[1].ID+"/diff"), nil, 200, &d)
	if d.Version.ID != vs[1].ID || d.Before != "line one\n" || d.After != "line one\nline two\n" || !strings.Contains(d.Unified, "\n+line two\n") {
		t.Errorf("diff = %+v", d)
	}
	h.mustJSON("GET", wsPath("/items/TASK-1/versions/1/diff"), nil, 200, &d)
	if d.Before != "" || d.After != "line one\n" {
		t.Errorf("create diff = %+v", d)
	}
	var it api.Item
	h.mustJSON("POST", wsPath("/items/TASK-1/versions/"+vs[2].ID+"/restore"), nil, 200, &it)
	if it.Content != "line one\n" {
		t.Errorf("restored content = %q", it.Content)
	}
	h.mustJSON("GET", wsPath("/items/TASK-1/versions"), nil, 200, &vs)
	if len(vs) != 4 || !strings.HasPrefix(vs[0].ChangeSummary, "Restored from version 1") {
		t.Errorf("after restore: %d versions, newest %q", len(vs), vs[0].ChangeSummary)
	}
	h.wantError("GET", wsPath("/items/TASK-1/versions/99"), nil, 404, "not_found")
	h.wantError("GET", wsPath("/items/TASK-1/versions/nope/diff"), nil, 404, "not_found")
	h.wantError("POST", wsPath("/items/TASK-1/versions/99/restore"), nil, 404, "not_found")
	h.wantError("GET", wsPath("/items/TASK-9/versions"), nil, 404, "not_found")
	h.mustJSON("DELETE", wsPath("/items/TASK-1"), nil, 204, nil)
	h.mustJSON("GET", wsPath("/items/TASK-1/versions?limit="+strconv.Itoa(1)), nil, 200, &vs) // archived: still readable
	h.wantError("POST", wsPath("/items/TASK-1/versions/1/restore"), nil, 409, "archived")
}
