//go:build unix

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent's client starts its MCP server with an environment of its
// own, without the PAD_HOME of the person who installed it. The install
// records PAD_HOME, so the server reaches the installer's padd and
// workspace, not a second, empty one; `mcp doctor` says so, and names
// the fix for an entry that lacks it.
func TestMCPInstallReachesTheInstallersPadd(t *testing.T) {
	padHome, userHome, proj := t.TempDir(), t.TempDir(), t.TempDir()
	stopPaddOf(t, padHome)
	stopPaddOf(t, filepath.Join(userHome, ".local", "share", "padd"))
	_, bin := binaries(t)
	as := func(args ...string) result {
		return runBin(t, bin, testEnv(padHome, "HOME="+userHome), proj, "", args...)
	}
	if r := as("init", "--name", "My project"); r.code != 0 {
		t.Fatalf("init: %s", r)
	}
	if r := as("mcp", "install", "cursor"); r.code != 0 {
		t.Fatalf("install: %s", r)
	}
	cfgPath := filepath.Join(userHome, ".cursor", "mcp.json")
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	b, err := os.ReadFile(cfgPath)
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("config %s: %v\n%s", cfgPath, err, b)
	}
	entry := cfg.MCPServers["padd"]
	if entry.Env["PAD_HOME"] != padHome {
		t.Fatalf("the entry does not record PAD_HOME=%s:\n%s", padHome, b)
	}

	// The client runs the entry: its command, its args, its env over a
	// bare environment of the client's own.
	env := []string{"HOME=" + userHome, "PATH=/usr/bin:/bin", "GORACE=atexit_sleep_ms=50"}
	for k, v := range entry.Env {
		env = append(env, k+"="+v)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pad_workspace","arguments":{"action":"list"}}}` + "\n"
	r := runBin(t, entry.Command, env, proj, in, entry.Args...)
	if r.code != 0 || !strings.Contains(r.stdout, "my-project") {
		t.Fatalf("the client's server does not see the installer's workspace: %s", r)
	}

	if r := as("mcp", "doctor"); r.code != 0 || !strings.Contains(r.stdout, "cursor") || !strings.Contains(r.stdout, "ok") || !strings.Contains(r.stdout, "my-project") {
		t.Fatalf("doctor on a good install: %s", r)
	}
	// An entry from before: no env. The doctor names the padd it would
	// reach instead, and the fix.
	old := strings.Replace(string(b), `"env"`, `"unused"`, 1)
	if err := os.WriteFile(cfgPath, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	r = as("mcp", "doctor")
	if r.code != ExitError || !strings.Contains(r.stdout, filepath.Join(userHome, ".local", "share", "padd")) || !strings.Contains(r.stdout, "padctl mcp install cursor") {
		t.Fatalf("doctor on an entry without PAD_HOME: %s", r)
	}
}
