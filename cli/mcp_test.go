package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func runMCP(t *testing.T, home string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		LookupEnv: env(map[string]string{"HOME": home}), Dir: home, Now: time.Now, Style: &Style{Width: 100}})
	return code, out.String(), errb.String()
}

// The installer commands take the home directory from the environment
// and the command from this executable, and print what they did.
func TestMCPInstallCommands(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".cursor", "mcp.json")
	code, out, errb := runMCP(t, home, "", "mcp", "install", "cursor", "--dry-run")
	if code != 0 || !strings.Contains(out, "dry run, nothing written") || !strings.Contains(out, `+      "args": [`) {
		t.Fatalf("dry run exited %d: %s %s", code, out, errb)
	}
	if _, err := os.Stat(cfg); err == nil {
		t.Fatal("dry run wrote the config")
	}
	if code, out, errb = runMCP(t, home, "", "mcp", "install", "cursor"); code != 0 || !strings.Contains(out, "Installed") {
		t.Fatalf("install exited %d: %s %s", code, out, errb)
	}
	if code, out, _ = runMCP(t, home, "", "mcp", "install", "cursor"); code != 0 || !strings.Contains(out, "unchanged") {
		t.Errorf("second install: %d %s", code, out)
	}
	code, out, _ = runMCP(t, home, "", "--format", "json", "mcp", "status", "cursor")
	var sts []struct {
		Installed, Current bool
		Command            string
	}
	if err := json.Unmarshal([]byte(out), &sts); code != 0 || err != nil || len(sts) != 1 || !sts[0].Installed || !sts[0].Current {
		t.Errorf("status: %d %s", code, out)
	}
	if code, _, errb = runMCP(t, home, "", "mcp", "install", "emacs"); code != ExitError || !strings.Contains(errb, "unknown_client") || !strings.Contains(errb, "hint: choose one of") {
		t.Errorf("unknown client: %d %s", code, errb)
	}
	if code, out, _ = runMCP(t, home, "", "mcp", "uninstall", "cursor"); code != 0 || !strings.Contains(out, "Removed") {
		t.Errorf("uninstall: %d %s", code, out)
	}
}

// `padctl -w slug mcp serve` serves that workspace: the flag stands in
// for PAD_WORKSPACE, and the environment applies without it.
func TestMCPServeWorkspaceFlag(t *testing.T) {
	env := func(string) (string, bool) { return "from-env", true }
	a := &App{env: Env{LookupEnv: env}}
	if got := a.mcpEnv("PAD_WORKSPACE"); got != "from-env" {
		t.Fatalf("without -w: %q", got)
	}
	a.workspaceFlag = "from-flag"
	if got := a.mcpEnv("PAD_WORKSPACE"); got != "from-flag" {
		t.Fatalf("with -w: %q", got)
	}
	if got := a.mcpEnv("PAD_HOME"); got != "from-env" {
		t.Fatalf("other variables pass through: %q", got)
	}
}
