package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

func TestReport(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		exit     int
		contains []string
	}{
		{"workspace not found", &api.Error{Code: "not_found", Message: "Workspace not found: nope", Details: map[string]any{"scope": "workspace"}, Status: 404},
			ExitError, []string{"error: Workspace not found: nope (not_found)\n", "hint: `padctl workspace list`"}},
		{"item not found", &api.Error{Code: "not_found", Message: "Item not found: T-9", Details: map[string]any{"ref": "T-9"}, Status: 404},
			ExitError, []string{"(not_found)", "hint: `padctl item list --all`"}},
		{"archived item", &api.Error{Code: "not_found", Message: "Item TASK-2 is archived; restore it first", Details: map[string]any{"ref": "TASK-2", "archived": true}},
			ExitError, []string{"hint: restore it with `padctl item restore TASK-2`"}},
		{"collection not found", &api.Error{Code: "not_found", Message: "Collection not found", Details: map[string]any{"collection": "bugz"}},
			ExitError, []string{"hint: `padctl collection list`"}},
		{"open children listed", &api.Error{Code: "open_children", Message: "cannot mark PLAN-1 completed", Status: 409,
			Details: map[string]any{"open_children": []any{map[string]any{"ref": "TASK-3", "title": "child", "status": "open"}}}},
			ExitError, []string{"  TASK-3  child  (open)\n", "--force"}},
		{"valid values listed", &api.Error{Code: "bad_request", Message: `invalid link type "frobs"`, Details: map[string]any{"field": "link_type", "valid": []any{"blocks", "implements"}}},
			ExitError, []string{"hint: use one of: blocks, implements\n"}},
		{"validation points at the schema", &api.Error{Code: "validation_error", Message: `"x" is not an option of status`, Details: map[string]any{"field": "status"}},
			ExitError, []string{"padctl collection show"}},
		{"server error", &api.Error{Code: "server_error", Message: "boom", Status: 500}, ExitError, []string{"padctl daemon logs"}},
		{"unreachable", &api.TransportError{Err: errors.New("connection refused")}, ExitError, []string{"(padd_unreachable)", "padctl daemon status"}},
		{"usage", usagef("bad_limit", "give --limit between 1 and 1000", "--limit 0 is out of range"), ExitUsage,
			[]string{"error: --limit 0 is out of range (bad_limit)\nhint: give --limit between 1 and 1000\n"}},
		{"wrapped", fmt.Errorf("ctx: %w", failf("x_code", "do y", "went wrong")), ExitError, []string{"went wrong (x_code)"}},
		{"interrupted", context.Canceled, ExitInterrupted, []string{"(interrupted)"}},
		{"interrupted mid-request", &api.TransportError{Err: fmt.Errorf("Get x: %w", context.Canceled)}, ExitInterrupted, []string{"(interrupted)"}},
		{"plain", errors.New("disk full"), ExitError, []string{"error: disk full (error)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if got := report(&buf, c.err, Style{Width: 100}); got != c.exit {
				t.Errorf("exit = %d, want %d", got, c.exit)
			}
			for _, s := range c.contains {
				if !strings.Contains(buf.String(), s) {
					t.Errorf("report lacks %q:\n%s", s, buf.String())
				}
			}
			if !strings.HasPrefix(buf.String(), "error: ") {
				t.Errorf("report does not start with error: %q", buf.String())
			}
		})
	}
}

// TestReportNamesTheWorkspaceSource: a workspace padd does not know is
// traced to where it was named.
func TestReportNamesTheWorkspaceSource(t *testing.T) {
	a := &App{ws: "ghost", wsFrom: "/repo/.pad.toml"}
	err := a.explain(&api.Error{Code: "not_found", Message: "Workspace not found: ghost", Details: map[string]any{"scope": "workspace"}})
	if e := explain(err); !strings.Contains(e.Hint, `"ghost" comes from /repo/.pad.toml`) {
		t.Errorf("hint = %q", e.Hint)
	}
}
