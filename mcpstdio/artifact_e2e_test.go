package mcpstdio_test

import (
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// pad_item export gives a playbook as artifact text; pad_item import
// makes it in another workspace, through padd's relayed session.
func TestItemArtifactsOverMCP(t *testing.T) {
	e := newEnv(t)
	from, to := e.workspace("From"), e.workspace("To")
	var pb api.Item
	e.do("POST", "/workspaces/"+from+"/collections/playbooks/items", map[string]any{"title": "Triage bugs",
		"content": "Read each new bug.", "fields": map[string]any{"status": "active", "invocation_slug": "triage"}}, &pb)
	cs := e.session(sessionOpts{})
	r := ok(t, cs, "pad_item", map[string]any{"action": "export", "workspace": from, "ref": pb.Ref})
	text := r.str("artifact")
	if !strings.HasPrefix(text, "---\npad_artifact: playbook\n") || !strings.Contains(text, "workspace: "+from) {
		t.Fatalf("export: %s", r.texts[0])
	}
	r = ok(t, cs, "pad_item", map[string]any{"action": "import", "workspace": to, "artifact": text})
	got := e.item(to, r.str("ref"))
	if got.Title != "Triage bugs" || !strings.HasPrefix(got.Content, "Read each new bug.") {
		t.Errorf("imported %+v", got)
	}
	refused(t, cs, "pad_item", map[string]any{"action": "import", "workspace": to, "artifact": "not an artifact"}, api.CodeMalformedArtifact)
}
