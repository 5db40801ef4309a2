//go:build unix

package cli

import (
	"encoding/json"
	"net"
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

// init below a linked directory finds the workspace above, as every
// other command does, and writes nothing; a workspace of its own is
// asked for with --new. The command that starts padd says so.
func TestInitBelowALinkedDirectory(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	stopPaddOf(t, home)
	r := ok(t, home, proj, "init", "--name", "Proj")
	if !strings.Contains(r.stderr, "started padd") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("starting padd is not said in one line: %s", r)
	}
	if r := ok(t, home, proj, "workspace", "list"); strings.Contains(r.stderr, "started padd") {
		t.Fatalf("a command that found padd running says it started it: %s", r)
	}
	sub := filepath.Join(proj, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r = ok(t, home, sub, "init")
	if !strings.Contains(r.stdout, "Found workspace proj") || !strings.Contains(r.stdout, filepath.Join(proj, PadTomlName)) {
		t.Fatalf("init below a linked directory: %s", r)
	}
	if _, err := os.Stat(filepath.Join(sub, PadTomlName)); !os.IsNotExist(err) {
		t.Fatalf("init below a linked directory wrote a .pad.toml (%v)", err)
	}
	if r := ok(t, home, sub, "workspace", "list", "--format", "json"); strings.Count(r.stdout, `"slug"`) != 1 {
		t.Fatalf("init below a linked directory made a workspace: %s", r)
	}
	r = padctl(t, home, sub, "", "init", "--name", "Other")
	assertFailure(t, r, ExitError, "already_linked")
	if !strings.Contains(r.stderr, "--new") {
		t.Fatalf("the refusal does not say how to make a new one: %s", r)
	}
	r = ok(t, home, sub, "init", "--new")
	if !strings.Contains(r.stdout, "Created workspace deep") {
		t.Fatalf("init --new: %s", r)
	}
	if _, err := os.Stat(filepath.Join(sub, PadTomlName)); err != nil {
		t.Fatalf("init --new wrote no .pad.toml: %v", err)
	}
}

// Search as a new user types it, against a real padd: a column filter,
// a title match marked in the snippet, a query of punctuation refused
// with a pointer at the syntax; a second collection of the same name is
// a conflict that names the first.
func TestSearchSyntaxAndNamesE2E(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	stopPaddOf(t, home)
	ok(t, home, proj, "init", "--name", "Proj")
	ok(t, home, proj, "item", "create", "tasks", "Fix login")
	ok(t, home, proj, "item", "create", "tasks", "Landing page", "--content", "The login page redirects.")
	r := ok(t, home, proj, "search", "title:login", "--format", "json")
	if !strings.Contains(r.stdout, "Fix login") || strings.Contains(r.stdout, "Landing page") || !strings.Contains(r.stdout, "<mark>login</mark>") {
		t.Fatalf("title:login: %s", r)
	}
	for _, q := range []string{"(", "NOT", "foo:bar"} {
		r = padctl(t, home, proj, "", "search", "--", q)
		assertFailure(t, r, ExitError, "validation_error")
		if !strings.Contains(r.stderr, "padctl search --help") {
			t.Fatalf("search %q: %s", q, r)
		}
	}
	if r := ok(t, home, proj, "search", "--help"); !strings.Contains(r.stdout, "title:login") {
		t.Fatalf("search --help lacks the syntax: %s", r)
	}
	r = padctl(t, home, proj, "", "collection", "create", "Tasks")
	assertFailure(t, r, ExitError, "conflict")
	if !strings.Contains(r.stderr, "slug tasks, prefix TASK") || !strings.Contains(r.stderr, "--prefix") {
		t.Fatalf("a second Tasks: %s", r)
	}
	ok(t, home, proj, "collection", "create", "Tasks", "--slug", "tasks-b", "--prefix", "TB")
}

// padd keeps the port it got when 7787 was taken, across a stop and the
// next start by any command, so PAD_URL from `padctl env` stays right.
func TestPortKeptAcrossRestartsE2E(t *testing.T) {
	if ln, err := net.Listen("tcp", "127.0.0.1:7787"); err == nil {
		defer ln.Close() // held, as another program would
	}
	home, dir := t.TempDir(), t.TempDir()
	stopPaddOf(t, home)
	r := ok(t, home, dir, "env")
	url := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(r.stdout, "\n", 2)[0], "export PAD_URL='"), "'")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":7787") || !strings.Contains(r.stdout, "export PAD_TOKEN='") {
		t.Fatalf("padctl env: %s", r)
	}
	ok(t, home, dir, "daemon", "stop")
	if r := ok(t, home, dir, "env"); !strings.Contains(r.stdout, "export PAD_URL='"+url+"'") || !strings.Contains(r.stderr, "started padd") {
		t.Fatalf("after a restart padd is not at %s: %s", url, r)
	}
}
