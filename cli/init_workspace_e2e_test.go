//go:build unix

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `padctl init -w team` links the directory to the workspace team, which
// exists: it creates none, and refuses one that does not exist.
func TestInitWorkspaceFlagLinksExisting(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	root := t.TempDir()
	run := func(dir string, args ...string) result {
		t.Helper()
		return runInProcess(t, home, dir, nil, args...)
	}
	for _, name := range []string{"Team", "Alpha"} {
		if r := run(root, "workspace", "create", name); r.code != 0 {
			t.Fatal(r)
		}
	}
	count := func() int {
		t.Helper()
		var wss []json.RawMessage
		if err := json.Unmarshal([]byte(run(root, "workspace", "list", "--format", "json").stdout), &wss); err != nil {
			t.Fatal(err)
		}
		return len(wss)
	}
	linked := func(dir string) string {
		t.Helper()
		p, err := readPadToml(filepath.Join(dir, PadTomlName))
		if err != nil || p == nil {
			return ""
		}
		return p.Workspace
	}

	fresh := filepath.Join(root, "fresh")
	noErr(t, os.Mkdir(fresh, 0o755))
	if r := run(fresh, "init", "-w", "team"); r.code != 0 || !strings.Contains(r.stdout, "Using workspace team") {
		t.Fatalf("init -w team: %s", r)
	}
	if got := linked(fresh); got != "team" || count() != 2 {
		t.Errorf("init -w team linked %q with %d workspaces, want team and 2", got, count())
	}

	ghost := filepath.Join(root, "ghost")
	noErr(t, os.Mkdir(ghost, 0o755))
	if r := run(ghost, "init", "-w", "nope"); r.code != ExitError || !strings.Contains(r.stderr, "(not_found)") || !strings.Contains(r.stderr, "padctl init --name nope") {
		t.Errorf("init -w of no workspace: %s", r)
	}
	if linked(ghost) != "" || count() != 2 {
		t.Error("init -w of no workspace wrote .pad.toml or created a workspace")
	}
	if r := run(ghost, "init", "-w", "team", "--name", "Other"); r.code != ExitUsage || !strings.Contains(r.stderr, "(conflicting_args)") {
		t.Errorf("init -w with another --name: %s", r)
	}

	// A directory linked to another workspace: --force relinks it.
	if r := run(fresh, "init", "-w", "alpha"); r.code != ExitError || !strings.Contains(r.stderr, "(already_linked)") || linked(fresh) != "team" {
		t.Errorf("init -w over another link: %s", r)
	}
	if r := run(fresh, "init", "-w", "alpha", "--force"); r.code != 0 || linked(fresh) != "alpha" {
		t.Errorf("init -w --force: %s", r)
	}

	// Below a linked directory, -w links this one to its own workspace.
	sub := filepath.Join(fresh, "sub")
	noErr(t, os.Mkdir(sub, 0o755))
	if r := run(sub, "init", "-w", "team"); r.code != 0 || linked(sub) != "team" || linked(fresh) != "alpha" {
		t.Errorf("init -w below a linked directory: %s", r)
	}
	if r := run(sub, "workspace", "show", "--format", "json"); !strings.Contains(r.stdout, `"slug": "team"`) {
		t.Errorf("below, the workspace is not team: %s", r)
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
