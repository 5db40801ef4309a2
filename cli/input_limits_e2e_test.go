//go:build unix

// These tests run on the real-binaries harness of e2e_test.go, which is Unix only.

package cli

import (
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

// Oversized inputs, and filter values no item can hold, through padctl
// against a real padd: each fails with padd's validation_error (exit 1),
// never a server_error with its hint to retry.
func TestOversizedInputsFailCleanly(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	if r := runInProcess(t, home, dir, nil, "workspace", "create", "Limits"); r.code != 0 {
		t.Fatalf("workspace create: %s", r)
	}
	if r := runInProcess(t, home, dir, nil, "item", "create", "tasks", "A task"); r.code != 0 {
		t.Fatalf("item create: %s", r)
	}
	long := func(l model.Limit) string { return strings.Repeat("x", l.Max+1) }
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"the issue's 33,000-character title", []string{"item", "create", "tasks", strings.Repeat("t", 33000)}},
		{"title on update", []string{"item", "update", "TASK-1", "--title", long(model.LimitTitle)}},
		{"tag", []string{"item", "create", "tasks", "tagged", "--tags", strings.Repeat("g", 33000)}},
		{"field value", []string{"item", "update", "TASK-1", "-f", "notes=" + long(model.LimitFieldValue)}},
		{"comment", []string{"item", "comment", "TASK-1", long(model.LimitComment)}},
		{"a 3,000-character word", []string{"search", strings.Repeat("a", 3000)}},
		{"a thousand typo terms", []string{"search", strings.Repeat("x~", 1000)}},
		{"a status no item can hold", []string{"item", "list", "tasks", "--status", "in_progress"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runInProcess(t, home, dir, nil, tc.args...)
			assertFailure(t, r, ExitError, "validation_error")
			if strings.Contains(r.stderr, "server_error") || strings.Contains(r.stderr, "if it persists") {
				t.Errorf("padctl reports padd's own failure:\n%s", r.stderr)
			}
			if len(r.stderr) > 2000 {
				t.Errorf("stderr is %d bytes: it echoes the input", len(r.stderr))
			}
		})
	}
}
