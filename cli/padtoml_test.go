package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindPadToml(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "repo", PadTomlName), "workspace = \"repo-ws\"\nagent_name = \"bot\"\n")
	// A .pad.toml without workspace is skipped, as Pad does.
	write(t, filepath.Join(root, "repo", "svc", PadTomlName), "url = \"https://pad.example\"\n")
	deep := filepath.Join(root, "repo", "svc", "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := findPadToml(deep)
	if err != nil {
		t.Fatal(err)
	}
	if p == nil || p.Workspace != "repo-ws" || p.AgentName != "bot" || p.Path != filepath.Join(root, "repo", PadTomlName) {
		t.Fatalf("findPadToml = %+v", p)
	}
	// Nothing above an unlinked directory.
	if p, err := findPadToml(filepath.Join(root)); err != nil || p != nil {
		t.Errorf("findPadToml(root) = %+v, %v; want none", p, err)
	}
}

func TestFindPadTomlRefusesBadTOML(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, PadTomlName), "workspace = \n")
	_, err := findPadToml(dir)
	e := explain(err)
	if e.Code != "bad_pad_toml" || !strings.Contains(e.Message, PadTomlName) || e.Hint == "" {
		t.Errorf("bad TOML gave %+v", e)
	}
}

// Two keys that differ only in case would each set the workspace, and
// the TOML decoder keeps one of them at random: refused, naming both.
func TestFindPadTomlRefusesKeysThatDifferInCase(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, PadTomlName), "workspace = \"a\"\nWorkspace = \"b\"\n")
	_, err := findPadToml(dir)
	e := explain(err)
	if e.Code != "bad_pad_toml" || !strings.Contains(e.Message, `"workspace"`) || !strings.Contains(e.Message, `"Workspace"`) {
		t.Errorf("keys differing in case gave %+v", e)
	}
}

func TestWritePadTomlKeepsOtherKeys(t *testing.T) {
	dir := t.TempDir()
	path, err := writePadToml(dir, "first")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "workspace = \"first\"\n" {
		t.Errorf("new .pad.toml = %q", b)
	}
	write(t, path, "workspace = \"old\"\nagent_name = \"bot\"\n[push]\nauto_arm = true\n")
	if _, err := writePadToml(dir, "new"); err != nil {
		t.Fatal(err)
	}
	p, err := readPadToml(path)
	if err != nil || p.Workspace != "new" || p.AgentName != "bot" {
		t.Fatalf("rewritten .pad.toml = %+v, %v", p, err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "auto_arm = true") {
		t.Errorf("[push] table lost:\n%s", b)
	}
}
