//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// ITM-11: padctl item copy previews with --dry-run (changing nothing),
// copies, and with --archive-source moves, against a real padd.
func TestE2EItemCopy(t *testing.T) {
	home := t.TempDir()
	stopPaddOf(t, home)
	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	ok(t, home, proj, "init", "--name", "Copy Source")
	ok(t, home, proj, "workspace", "create", "Copy Dest")
	ok(t, home, proj, "item", "create", "tasks", "Carry me", "--priority", "high", "--tags", "a,b")

	r := ok(t, home, proj, "item", "copy", "TASK-1", "--to-workspace", "copy-dest", "--collection", "tasks", "--dry-run")
	for _, want := range []string{"nothing changed", "priority", "high", "[migrated]", "Ready"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, r.stdout)
		}
	}
	if got := decode[[]itemResult](t, ok(t, home, proj, "item", "list", "-w", "copy-dest", "--format", "json")); len(got) != 0 {
		t.Fatalf("the dry run copied: %+v", got)
	}

	res := decode[api.ItemCopyResult](t, ok(t, home, proj, "item", "copy", "TASK-1", "--to-workspace", "copy-dest",
		"--collection", "tasks", "--archive-source", "-f", "status=in-progress", "--format", "json"))
	if res.Source.Archived == nil || !*res.Source.Archived || res.Destination.WorkspaceSlug != "copy-dest" || res.Item == nil {
		t.Fatalf("copy --archive-source answered %+v", res)
	}
	got := decode[[]itemResult](t, ok(t, home, proj, "item", "list", "-w", "copy-dest", "--format", "json"))
	if len(got) != 1 || got[0].Title != "Carry me" || got[0].Fields["priority"] != "high" || got[0].Fields["status"] != "in-progress" ||
		strings.Join(got[0].Tags, ",") != "a,b" {
		t.Errorf("the copy: %+v", got)
	}
	if r := padctl(t, home, proj, "", "item", "copy", "TASK-1", "--to-workspace", "copy-dest", "--collection", "tasks"); r.code != ExitError ||
		!strings.Contains(r.stderr, "archived") {
		t.Errorf("copying the archived source: %s", r)
	}
}
