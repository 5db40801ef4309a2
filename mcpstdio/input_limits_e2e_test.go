package mcpstdio_test

import (
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Oversized inputs and filter values no item can hold, through MCP: each
// is a tool error with padd's code, never a server_error, and never a
// hint to retry.
func TestOversizedInputsAreToolErrors(t *testing.T) {
	e := newEnv(t)
	e.workspace("Limits")
	cs := e.session(sessionOpts{noRoots: true})
	task := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "A task"})
	ref := task.str("ref")
	long := func(l model.Limit) string { return strings.Repeat("x", l.Max+1) }
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"the issue's 33,000-character title", "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": strings.Repeat("t", 33000)}, api.CodeValidation},
		{"title on update", "pad_item", map[string]any{"action": "update", "ref": ref, "title": long(model.LimitTitle)}, api.CodeValidation},
		{"tag", "pad_item", map[string]any{"action": "update", "ref": ref, "tags": []string{strings.Repeat("g", 33000)}}, api.CodeValidation},
		{"field value", "pad_item", map[string]any{"action": "update", "ref": ref, "field": []string{"notes=" + long(model.LimitFieldValue)}}, api.CodeValidation},
		{"comment", "pad_item", map[string]any{"action": "comment", "ref": ref, "message": long(model.LimitComment)}, api.CodeValidation},
		{"a 3,000-character word", "pad_search", map[string]any{"action": "query", "query": strings.Repeat("a", 3000)}, api.CodeValidation},
		{"a thousand typo terms", "pad_search", map[string]any{"action": "query", "query": strings.Repeat("x~", 1000)}, api.CodeValidation},
		{"a status no item can hold", "pad_item", map[string]any{"action": "list", "collection": "tasks", "status": "in_progress"}, api.CodeValidation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := refused(t, cs, tc.tool, tc.args, tc.code)
			if h := strings.ToLower(r.str("hint")); strings.Contains(h, "retry") {
				t.Errorf("hint says retry: %s", r.str("hint"))
			}
			if len(r.texts[0]) > 2000 {
				t.Errorf("the tool error is %d bytes: it echoes the input", len(r.texts[0]))
			}
		})
	}
}
