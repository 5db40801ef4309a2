package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// textGoldenCases are padctl's help and error text: `padctl search
// --help` documents the query syntax; each refusal names what it is
// about and has a hint of its own (a cycle is not pointed at the
// schema, a collection is named, a search refusal points at the syntax,
// a negative count is said as such, a slow padd is not called gone).
func textGoldenCases(t *testing.T) []renderCase {
	help := func(w io.Writer) error {
		var errw bytes.Buffer
		env := Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: &errw, Dir: t.TempDir(), Now: time.Now,
			LookupEnv: env(nil), Style: &Style{Width: 100}}
		if code := Run(context.Background(), []string{"search", "--help"}, env); code != 0 {
			return fmt.Errorf("exit %d: %s", code, errw.String())
		}
		return nil
	}
	errs := []struct {
		name string
		err  error
	}{
		{"collection not found", &api.Error{Code: "not_found", Message: "Collection not found: bugz", Details: map[string]any{"collection": "bugz"}}},
		{"parent cycle", &api.Error{Code: "validation_error", Message: `parent "TASK-2" would make a cycle: it is this item or one of its descendants`,
			Details: map[string]any{"field": "parent", "reason": "cycle"}}},
		{"blocking cycle", &api.Error{Code: "validation_error", Message: "TASK-1 blocks TASK-2 would make a blocking cycle: TASK-2 → TASK-1",
			Details: map[string]any{"field": "link_type", "reason": "cycle", "cycle": []any{"TASK-2", "TASK-1"}}}},
		{"search with no word", &api.Error{Code: "validation_error", Message: `the query "(" has no word to search for`,
			Details: map[string]any{"field": "q", "reason": "no_words", "limit": 0}}},
		{"search too long", &api.Error{Code: "validation_error", Message: "the query has 40 search terms; a search takes at most 32",
			Details: map[string]any{"field": "q", "reason": "too_many_terms", "limit": 32}}},
		{"same collection name", &api.Error{Code: "conflict", Message: `a collection named "Tasks" already exists (slug tasks, prefix TASK); give the new one another name, or a slug and prefix of its own`,
			Details: map[string]any{"collection": "tasks", "field": "name"}}},
		{"field value", &api.Error{Code: "validation_error", Message: `"x" is not an option of status`, Details: map[string]any{"field": "status"}}},
		{"slow padd", &api.TransportError{Err: context.DeadlineExceeded}},
		{"negative offset", parseError(fmt.Errorf(`--offset: expected int value but got "-1" (short flag); perhaps try --offset="-1"?`))},
	}
	errText := func(w io.Writer) error {
		for _, c := range errs {
			fmt.Fprintf(w, "## %s\n", c.name)
			report(w, c.err, Style{Width: 100})
		}
		return nil
	}
	return []renderCase{{"help-search", help}, {"errors", errText}}
}
