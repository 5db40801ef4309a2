//go:build unix

package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `mcp serve` (padctl running padd's MCP server on its stdio) starts
// padd when none runs, answers the handshake and tools/list, and writes
// nothing to stdout but JSON-RPC lines.
func TestMCPServeStdoutIsProtocol(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { stopPaddOf(t, home) })
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}` + "\n"
	r := padctl(t, home, home, in, "mcp", "serve")
	if r.code != 0 {
		t.Fatalf("serve: %s", r)
	}
	out := r.stdout
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

// Without padd beside padctl or on PATH, `mcp serve` says what is
// missing and what to do, on stderr, and exits 1.
func TestMCPServeWithoutPadd(t *testing.T) {
	_, bin := binaries(t)
	dir := t.TempDir()
	lone := filepath.Join(dir, "padctl")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, lone, append(testEnv(dir), "PATH="+dir), dir, "", "mcp", "serve")
	if r.code != ExitError || !strings.Contains(r.stderr, "no_padd") || !strings.Contains(r.stderr, "install padd") || r.stdout != "" {
		t.Fatalf("mcp serve without padd: %s", r)
	}
}
