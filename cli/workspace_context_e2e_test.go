//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceContextCommands runs padctl in-process against a real
// padd: `workspace context set --file` keeps the context, `workspace
// context` prints it (and --json prints it alone), and a file that is not
// a context is refused with the server's or padctl's code.
func TestWorkspaceContextCommands(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run, must := inProcess(t, home, dir)
	must("workspace", "create", "Work", "--slug", "w")

	r := must("-w", "w", "workspace", "context")
	if !strings.Contains(r.stdout, "No workspace context set.") {
		t.Errorf("no context: %q", r.stdout)
	}
	if r := must("-w", "w", "workspace", "context", "--format", "json"); strings.TrimSpace(r.stdout) != "{}" {
		t.Errorf("no context as JSON: %q", r.stdout)
	}
	file := filepath.Join(dir, "ctx.json")
	if err := os.WriteFile(file, []byte(`{"commands":{"test":"go test ./..."},"stack":{"languages":["go"]},"assumptions":["one user"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = must("-w", "w", "workspace", "context", "set", "--file", file)
	if !strings.Contains(r.stdout, "Updated workspace context for Work (w)") || !strings.Contains(r.stdout, "go test ./...") {
		t.Errorf("set: %q", r.stdout)
	}
	r = must("workspace", "context", "w", "--format", "json")
	if got := strings.Join(strings.Fields(r.stdout), ""); got != `{"commands":{"test":"gotest./..."},"stack":{"languages":["go"]},"assumptions":["oneuser"]}` {
		t.Errorf("shown as JSON: %q", r.stdout)
	}
	if err := os.WriteFile(file, []byte(`{"commands":{"tests":"x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run("-w", "w", "workspace", "context", "set", "--file", file); r.code == 0 || !strings.Contains(r.stderr, "bad_request") || !strings.Contains(r.stderr, "tests") {
		t.Errorf("an unknown member: %s", r)
	}
	if r := run("-w", "w", "workspace", "context", "set"); r.code == 0 || !strings.Contains(r.stderr, "--file or --stdin") {
		t.Errorf("no source: %s", r)
	}
	if r := must("-w", "w", "workspace", "context"); !strings.Contains(r.stdout, "one user") {
		t.Errorf("a refused set changed the context: %q", r.stdout)
	}
}
