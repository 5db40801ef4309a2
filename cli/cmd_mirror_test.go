//go:build unix

// These tests run on the real-binaries harness of e2e_test.go, which is Unix only.

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
)

// TestMirrorCommands: padctl mirror add, list, status and remove, and
// padctl daemon config, against a real padd.
func TestMirrorCommands(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	ws := "mirrored"
	r := runInProcess(t, home, dir, nil, "workspace", "create", "Mirrored")
	if r.code != 0 {
		t.Fatal(r)
	}
	r = runInProcess(t, home, dir, nil, "item", "create", "--workspace", ws, "task", "Write the docs")
	if r.code != 0 {
		t.Fatal(r)
	}
	r = runInProcess(t, home, dir, nil, "mirror", "add", ws, "pad")
	if r.code != 0 || !strings.Contains(r.stdout, "Mirroring mirrored in "+filepath.Join(dir, "pad")) {
		t.Fatal(r)
	}
	testwait.Until(t, "the item's file", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "pad", "tasks", "TASK-1-write-the-docs.md"))
		return len(m) == 1
	})
	if err := os.WriteFile(filepath.Join(dir, "pad", "tasks", "TASK-1-write-the-docs.md"), []byte("---\nref: TASK-1\ntitle: x\nfields:\n  nope: 1\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the bad file in mirror status", func() bool {
		r = runInProcess(t, home, dir, nil, "mirror", "status")
		return r.code == 0 && strings.Contains(r.stdout, `not applied: tasks/TASK-1-write-the-docs.md: line 5: field "nope" is not declared`)
	})
	r = runInProcess(t, home, dir, nil, "mirror", "list", "--format", "json")
	if l := decode[api.Mirrors](t, r); len(l.Mirrors) != 1 || l.Mirrors[0].Workspace != ws || l.Mirrors[0].Files != 1 {
		t.Fatalf("list: %s", r)
	}
	r = runInProcess(t, home, dir, nil, "mirror", "remove", ws, "pad")
	if r.code != 0 {
		t.Fatal(r)
	}
	r = runInProcess(t, home, dir, nil, "mirror", "list")
	if !strings.Contains(r.stdout, "No mirrors") {
		t.Fatal(r)
	}
	if _, err := os.Stat(filepath.Join(dir, "pad", "tasks", "TASK-1-write-the-docs.md")); err != nil {
		t.Fatalf("remove took the files: %v", err)
	}
	r = runInProcess(t, home, dir, nil, "mirror", "remove", ws, "pad")
	if r.code == 0 || !strings.Contains(r.stderr, "no mirror") {
		t.Fatalf("second remove: %s", r)
	}

	if err := os.WriteFile(filepath.Join(home, "padd.toml"), []byte("port = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the port change waiting for a restart", func() bool {
		r = runInProcess(t, home, dir, nil, "daemon", "config")
		return r.code == 0 && strings.Contains(r.stdout, "restart to apply: port")
	})
	if !strings.Contains(r.stdout, "mirror.on_delete: (default)") || strings.Contains(r.stdout, "map[") {
		t.Fatalf("daemon config prints the settings as dotted keys:\n%s", r.stdout)
	}
}

// TestHostileNamesNeverReachTheTerminal: a mirror file named with
// escape sequences (ESC ]52 sets the clipboard, ESC [2J clears the
// screen), its error and its folder's are printed sanitised by
// `padctl mirror status`, as are names in the other outputs.
func TestHostileNamesNeverReachTheTerminal(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	ws := "hostile"
	for _, args := range [][]string{
		{"workspace", "create", "Hostile"},
		{"item", "create", "--workspace", ws, "task", "Seed"},
		{"mirror", "add", ws, "pad"},
	} {
		if r := runInProcess(t, home, dir, nil, args...); r.code != 0 {
			t.Fatal(r)
		}
	}
	testwait.Until(t, "the item's file", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "pad", "tasks", "TASK-1-*.md"))
		return len(m) == 1
	})
	clip, clear := "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J"
	bad := filepath.Join(dir, "pad", "tasks", "a"+clip+"b"+clear+"c.md")
	if err := os.WriteFile(bad, []byte("---\ntitle: x "+clear+"\nfields:\n  nope"+clip+": 1\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pad", "d"+clear), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pad", "d"+clear, "x"+clip+".md"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	var r result
	testwait.Until(t, "both files in mirror status", func() bool {
		r = runInProcess(t, home, dir, nil, "mirror", "status")
		return r.code == 0 && strings.Count(r.stdout, "not applied:") == 2
	})
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Fatalf("mirror status printed a control sequence: %q", out)
		}
	}
	if !strings.Contains(r.stdout, "tasks/abc.md") {
		t.Fatalf("the file is not named: %q", r.stdout)
	}
	// An error naming outside text.
	r = runInProcess(t, home, dir, nil, "item", "show", "--workspace", ws, "NOPE-1"+clear+clip)
	if r.code == 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
		t.Fatalf("item show of a hostile ref: %q", r)
	}
}
