package mcpstdio_test

import (
	"strings"
	"testing"
)

// pad_playbook match answers as Pad does with no decision provider
// (PB-03's local note): decision_provider_unavailable, with a hint that
// says how to choose a playbook without one. Bad text is refused first.
func TestPlaybookMatch(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Match")
	cs := e.session(sessionOpts{noRoots: true})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})
	r := refused(t, cs, "pad_playbook", map[string]any{"action": "match", "text": "triage the inbox"}, "decision_provider_unavailable")
	if !strings.Contains(r.str("hint"), "pad_playbook list") {
		t.Errorf("match's hint: %s", r.texts[0])
	}
	refused(t, cs, "pad_playbook", map[string]any{"action": "match"}, "validation_failed")
	refused(t, cs, "pad_playbook", map[string]any{"action": "match", "text": "x", "ref": "triage"}, "validation_failed")
	if long := refused(t, cs, "pad_playbook", map[string]any{"action": "match", "text": strings.Repeat("triage ", 2000)}, "validation_error"); long.str("details", "field") != "text" {
		t.Errorf("an over-long text: %s", long.texts[0])
	}
	refused(t, cs, "pad_playbook", map[string]any{"action": "match", "text": "x", "workspace": "nowhere"}, "not_found")
}
