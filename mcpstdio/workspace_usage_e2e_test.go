package mcpstdio_test

import (
	"context"
	"strings"
	"testing"
)

// pad_workspace storage (WS-07) and audit-log (WS-08) answer padd's data
// rather than not_implemented: the bytes the workspace's attachments
// take, and every workspace's activity newest first, narrowed by the
// filters and a workspace named on the call.
func TestWorkspaceStorageAndAuditLog(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Usage")
	other := e.workspace("Usage Other")
	cs := e.session(sessionOpts{noRoots: true})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})

	if r := ok(t, cs, "pad_workspace", map[string]any{"action": "storage"}); r.str("used_bytes") != "0" || r.str("limit_bytes") != "-1" {
		t.Errorf("storage of an empty workspace: %s", r.texts[0])
	}
	if _, err := e.api.UploadAttachment(context.Background(), ws, strings.NewReader("twelve bytes"), -1, "notes.txt", ""); err != nil {
		t.Fatal(err)
	}
	if r := ok(t, cs, "pad_workspace", map[string]any{"action": "storage"}); r.str("used_bytes") != "12" || r.str("attachments") != "1" {
		t.Errorf("storage after an upload: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_workspace", map[string]any{"action": "storage", "workspace": other}); r.str("used_bytes") != "0" {
		t.Errorf("storage of the other workspace: %s", r.texts[0])
	}

	ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "Here"})
	ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "There", "workspace": other})
	all := ok(t, cs, "pad_workspace", map[string]any{"action": "audit-log"})
	titles := map[string]bool{}
	for _, row := range all.list("entries") {
		title, _ := row.(map[string]any)["item_title"].(string)
		titles[title] = true
	}
	if !titles["Here"] || !titles["There"] || all.get("has_more") != false {
		t.Errorf("audit-log of every workspace: %s", all.texts[0])
	}
	one := ok(t, cs, "pad_workspace", map[string]any{"action": "audit-log", "workspace": other, "action_filter": "created"})
	if rows := one.list("entries"); len(rows) != 1 || one.str("entries", "0", "item_title") != "There" {
		t.Errorf("audit-log of one workspace's creations: %s", one.texts[0])
	}
	if r := ok(t, cs, "pad_workspace", map[string]any{"action": "audit-log", "actor": "agent", "limit": 1}); len(r.list("entries")) != 1 ||
		r.get("has_more") != true || len(r.texts) < 2 {
		t.Errorf("audit-log of agents, one entry: %s", r.texts)
	}
	refused(t, cs, "pad_workspace", map[string]any{"action": "audit-log", "actor": "robot"}, "validation_error")
	refused(t, cs, "pad_workspace", map[string]any{"action": "audit-log", "days": 0}, "validation_failed")
	refused(t, cs, "pad_workspace", map[string]any{"action": "audit-log", "workspace": "nowhere"}, "not_found")
}
