package cli

import (
	"bufio"
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

// `mcp serve` answers the handshake and tools/list without padd, and
// writes nothing to stdout but JSON-RPC lines.
func TestMCPServeStdoutIsProtocol(t *testing.T) {
	home := t.TempDir()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}` + "\n"
	code, out, errb := runMCP(t, home, in, "mcp", "serve")
	if code != 0 {
		t.Fatalf("serve exited %d: %s", code, errb)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	ids := map[float64]bool{}
	for sc.Scan() {
		var msg struct {
			JSONRPC string  `json:"jsonrpc"`
			ID      float64 `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		ids[msg.ID] = true
	}
	if !ids[1] || !ids[2] || len(ids) != 2 {
		t.Errorf("answers for %v, want 1 and 2", ids)
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
