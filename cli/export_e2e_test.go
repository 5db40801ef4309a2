//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// TestExportImportCommands runs padctl in-process against a real padd:
// a workspace exported as a bundle and as JSON imports back whole, a
// refused import says nothing was imported and leaves nothing, and an
// artifact moves between workspaces.
func TestExportImportCommands(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run, must := inProcess(t, home, dir)
	must("workspace", "create", "Source", "--slug", "src")
	must("-w", "src", "item", "create", "tasks", "Write the guide")
	must("-w", "src", "item", "create", "playbooks", "Release", "--content", "tag and build")

	bundle := filepath.Join(dir, "src.tar.gz")
	must("workspace", "export", "src", "-o", bundle)
	must("workspace", "export", "src", "--json", "-o", filepath.Join(dir, "src.json"))
	if left, _ := filepath.Glob(filepath.Join(dir, ".*part*")); len(left) != 0 {
		t.Errorf("part files left: %v", left)
	}
	res := decode[api.ImportResult](t, must("workspace", "import", bundle, "--name", "Copy", "--format", "json"))
	if res.Slug != "copy" || res.ImportSummary.Imported.Items != 2 {
		t.Errorf("bundle import: %+v", res)
	}
	// The same --name again is refused, with what to do (issue 41: two
	// workspaces named Copy).
	r := run("workspace", "import", bundle, "--name", "Copy")
	if r.code == 0 || !strings.Contains(r.stderr, `a workspace named "Copy" exists (copy)`) || !strings.Contains(r.stderr, "hint: give --name a name of its own") {
		t.Errorf("a second import named Copy: %s", r)
	}
	r = must("workspace", "import", filepath.Join(dir, "src.json"))
	if !strings.Contains(r.stdout, "Imported workspace Source (src-2): 6 collections, 2 items") {
		t.Errorf("JSON import said %q", r.stdout)
	}

	bad := filepath.Join(dir, "bad.tar.gz")
	if err := os.WriteFile(bad, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run("workspace", "import", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "bad_bundle") || !strings.Contains(r.stderr, "nothing was imported") {
		t.Errorf("bad bundle: %s", r)
	}
	// A file named as a bundle that is not one, and one that is neither a
	// bundle nor JSON, are refused in words (issue 41: "invalid character
	// 'o' in literal null").
	fake := filepath.Join(dir, "fake.tar.gz")
	if err := os.WriteFile(fake, []byte("not a bundle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run("workspace", "import", fake)
	if r.code == 0 || !strings.Contains(r.stderr, "not a tar.gz bundle: it is not gzip-compressed") || strings.Contains(r.stderr, "invalid character") {
		t.Errorf("a text file named .tar.gz: %s", r)
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("not a bundle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run("workspace", "import", notes)
	if r.code == 0 || !strings.Contains(r.stderr, "is not Pad's workspace export: it is not JSON") || strings.Contains(r.stderr, "invalid character") {
		t.Errorf("a text file: %s", r)
	}
	if wss := decode[[]struct{ Slug string }](t, must("workspace", "list", "--format", "json")); len(wss) != 3 {
		t.Errorf("%d workspaces after a refused import, want 3", len(wss))
	}

	art := filepath.Join(dir, "release.pad.md")
	must("-w", "src", "item", "export", "PLAYB-2", "-o", art)
	r = must("-w", "copy", "item", "import", art)
	if !strings.Contains(r.stdout, "Imported PLAYB-3") {
		t.Errorf("artifact import said %q (stderr %q)", r.stdout, r.stderr)
	}
}
