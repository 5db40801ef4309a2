package mcpinstall

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

var testPadctl = abs("/opt/padd/bin/padctl")

// abs makes a slash path absolute on this system: on Windows a path needs
// a volume to be absolute, and the installer refuses a relative home or
// command. Forward slashes stay, so the path reads the same in JSON.
func abs(p string) string {
	if runtime.GOOS == "windows" {
		return "C:" + p
	}
	return p
}

func installOpts(t *testing.T, client, home string) InstallOptions {
	t.Helper()
	return InstallOptions{Client: client, Home: home, GOOS: "linux", Command: testPadctl}
}

// seeds are existing configs with other servers, unknown keys and (for
// VS Code's JSONC and Codex's TOML) comments, which must all survive.
var seeds = map[string]string{
	"claude-code": `{
  "numStartups": 42,
  "projects": {"/home/me/x": {"allowedTools": []}},
  "mcpServers": {
    "github": {"type": "stdio", "command": "gh-mcp", "args": [], "env": {"TOKEN": "s3cret"}}
  },
  "big": 9007199254740993123
}
`,
	"claude-desktop": `{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]}},"globalShortcut":"Ctrl+Space"}`,
	"cursor": `{
    "mcpServers": {
        "linear": {
            "url": "https://mcp.linear.app/sse"
        }
    }
}
`,
	"windsurf": "{\n\t\"mcpServers\": {}\n}\n",
	"vscode": `// VS Code user MCP servers
{
  "servers": {
    /* the team's server */
    "team": {"type": "http", "url": "http://localhost:9000/mcp"},
  },
  "inputs": [],
}
`,
	"codex": `# Codex config
model = "o4-mini"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]

# keep me: a comment about the next table
[profiles.fast]
model = "gpt-5"
`,
}

func TestInstallEveryClient(t *testing.T) {
	for _, client := range ClientNames() {
		t.Run(client, func(t *testing.T) {
			home := t.TempDir()
			o := installOpts(t, client, home)
			def, path, err := o.resolve()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(path, home) {
				t.Fatalf("config %s is outside the home %s", path, home)
			}
			// Fresh: no file yet.
			ch, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Action != "installed" || !ch.Written {
				t.Fatalf("fresh install: %+v", ch)
			}
			checkEntry(t, def, path)
			checkMode(t, path, 0o600)

			// Existing config with other servers: merged, not clobbered.
			seed := seeds[client]
			if err := os.WriteFile(path, []byte(seed), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil { // as a client writes it
				t.Fatal(err)
			}
			before, err := decodeAny(def, []byte(seed))
			if err != nil {
				t.Fatalf("seed does not parse: %v", err)
			}
			dry := o
			dry.DryRun = true
			ch, err = Install(dry)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Written || ch.Action != "installed" || !strings.Contains(ch.Diff, "+") || !strings.Contains(ch.Diff, testPadctl) {
				t.Fatalf("dry run: %+v", ch)
			}
			if b, _ := os.ReadFile(path); string(b) != seed {
				t.Fatal("dry run wrote the file")
			}
			ch, err = Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Action != "installed" || !ch.Written {
				t.Fatalf("install over seed: %+v", ch)
			}
			got, _ := os.ReadFile(path)
			checkEntry(t, def, path)
			checkMode(t, path, 0o644) // the file's own, kept
			after, _ := decodeAny(def, got)
			withoutEntry(before, def.Key)
			withoutEntry(after, def.Key)
			if !reflect.DeepEqual(normalize(before), normalize(after)) {
				t.Errorf("other content changed:\nbefore %v\nafter  %v", normalize(before), normalize(after))
			}
			for _, keep := range []string{"// VS Code user MCP servers", "/* the team's server */", "# keep me", "9007199254740993123", "s3cret"} {
				if strings.Contains(seed, keep) && !strings.Contains(string(got), keep) {
					t.Errorf("lost %q:\n%s", keep, got)
				}
			}
			if !strings.HasPrefix(string(got), seed[:strings.Index(seed, "\n")+1]) && strings.Contains(seed, "\n") {
				t.Errorf("the file's head moved:\n%s", got)
			}

			// Idempotent: a second install changes nothing.
			ch, err = Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Action != "unchanged" || ch.Written || ch.Diff != "" {
				t.Fatalf("second install: %+v", ch)
			}
			if again, _ := os.ReadFile(path); string(again) != string(got) {
				t.Fatal("second install changed the file")
			}

			// A moved padctl updates the entry in place.
			moved := o
			moved.Command = abs("/usr/local/bin/padctl")
			if ch, err = Install(moved); err != nil || ch.Action != "updated" {
				t.Fatalf("update: %+v %v", ch, err)
			}
			sts, err := Status(o)
			if err != nil || len(sts) != 1 || !sts[0].Installed || sts[0].Current {
				t.Fatalf("status after move: %+v %v", sts, err)
			}

			// Uninstall removes only our entry and gives back the seed.
			ch, err = Uninstall(o)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Action != "removed" || !ch.Written || !strings.Contains(ch.Diff, "-") {
				t.Fatalf("uninstall: %+v", ch)
			}
			final, _ := os.ReadFile(path)
			if string(final) != seed {
				t.Errorf("uninstall did not restore the file:\n--- seed\n%s\n--- now\n%s", seed, final)
			}
			if ch, err = Uninstall(o); err != nil || ch.Action != "absent" || ch.Written {
				t.Fatalf("second uninstall: %+v %v", ch, err)
			}
			sts, _ = Status(o)
			if sts[0].Installed {
				t.Errorf("status after uninstall: %+v", sts[0])
			}
		})
	}
}

func checkEntry(t *testing.T, def *clientDef, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := serverEntry(def, b)
	if err != nil || e == nil {
		t.Fatalf("no padd entry in %s (%v):\n%s", path, err, b)
	}
	if e.Command != testPadctl || !reflect.DeepEqual(e.Args, []string{"mcp", "serve"}) {
		t.Errorf("entry %+v", e)
	}
	if (def.Name == "vscode" || def.Name == "claude-code") != (e.Type == "stdio") {
		t.Errorf("%s entry type %q", def.Name, e.Type)
	}
}

// checkMode: a config padctl made is 0600 (configs can hold other
// servers' secrets); one it edited keeps its mode (issue 41: an edit
// made a 0644 file 0600 without a word). Windows has no Unix modes.
func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != want {
		t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
	}
}

// Each client's config is where the client reads it, per OS.
func TestConfigPaths(t *testing.T) {
	home := abs("/home/me")
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	cases := []struct{ client, goos, want string }{
		{"cursor", "linux", "/home/me/.cursor/mcp.json"},
		{"cursor", "darwin", "/home/me/.cursor/mcp.json"},
		{"windsurf", "linux", "/home/me/.codeium/windsurf/mcp_config.json"},
		{"claude-desktop", "darwin", "/home/me/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", "linux", "/home/me/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop", "windows", "/home/me/AppData/Roaming/Claude/claude_desktop_config.json"},
		{"claude-code", "linux", "/home/me/.claude.json"},
		{"vscode", "darwin", "/home/me/Library/Application Support/Code/User/mcp.json"},
		{"vscode", "linux", "/home/me/.config/Code/User/mcp.json"},
		{"vscode", "windows", "/home/me/AppData/Roaming/Code/User/mcp.json"},
		{"codex", "linux", "/home/me/.codex/config.toml"},
	}
	for _, tc := range cases {
		o := InstallOptions{Client: tc.client, Home: home, GOOS: tc.goos, Getenv: getenv}
		_, got, err := o.resolve()
		if err != nil || got != filepath.FromSlash(abs(tc.want)) {
			t.Errorf("%s on %s: %s %v, want %s", tc.client, tc.goos, got, err, tc.want)
		}
	}
	env["APPDATA"], env["XDG_CONFIG_HOME"], env["CODEX_HOME"] = abs("/w/roaming"), abs("/x/config"), abs("/c/codex")
	for _, tc := range []struct{ client, goos, want string }{
		{"claude-desktop", "windows", "/w/roaming/Claude/claude_desktop_config.json"},
		{"vscode", "linux", "/x/config/Code/User/mcp.json"},
		{"codex", "darwin", "/c/codex/config.toml"},
	} {
		o := InstallOptions{Client: tc.client, Home: home, GOOS: tc.goos, Getenv: getenv}
		if _, got, _ := o.resolve(); got != filepath.FromSlash(abs(tc.want)) {
			t.Errorf("%s on %s with env: %s, want %s", tc.client, tc.goos, got, tc.want)
		}
	}
}

func TestInstallRefusals(t *testing.T) {
	home := t.TempDir()
	if _, err := Install(InstallOptions{Client: "emacs", Home: home, Command: testPadctl}); err == nil || err.(*InstallError).Code != "unknown_client" {
		t.Errorf("unknown client: %v", err)
	}
	if _, err := Install(InstallOptions{Client: "cursor", Home: home, Command: "padctl"}); err == nil || err.(*InstallError).Code != "bad_command" {
		t.Errorf("relative command: %v", err)
	}
	// A file that does not parse is never overwritten.
	o := installOpts(t, "cursor", home)
	_, path, _ := o.resolve()
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	broken := `{"mcpServers": {"x": {"command": "a"` // cut short
	_ = os.WriteFile(path, []byte(broken), 0o600)
	if _, err := Install(o); err == nil || err.(*InstallError).Code != "unparsable_config" {
		t.Errorf("broken file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Error("broken file was written")
	}
	// mcpServers that is not an object is not replaced.
	_ = os.WriteFile(path, []byte(`{"mcpServers": null}`), 0o600)
	if _, err := Install(o); err == nil {
		t.Error("mcpServers: null was clobbered")
	}
	// Codex: an entry written inline is not untangled.
	co := installOpts(t, "codex", home)
	_, cpath, _ := co.resolve()
	_ = os.MkdirAll(filepath.Dir(cpath), 0o700)
	_ = os.WriteFile(cpath, []byte("[mcp_servers]\npadd = { command = \"x\" }\n"), 0o600)
	if _, err := Install(co); err == nil {
		t.Error("inline codex entry was rewritten")
	}
	if _, err := Uninstall(co); err == nil {
		t.Error("inline codex entry was removed")
	}
	// Codex: mcp_servers that is not a table cannot take our table after
	// it (found by FuzzConfigEdit). Install refuses and says what it is;
	// uninstall finds nothing of ours.
	for src, kind := range map[string]string{
		"mcp_servers = \"\"\n":               "a string",
		"[[mcp_servers]]\ncommand = \"x\"\n": "an array of tables",
	} {
		_ = os.WriteFile(cpath, []byte(src), 0o600)
		_, err := Install(co)
		if err == nil || err.(*InstallError).Code != "unparsable_config" || !strings.Contains(err.Error(), kind) {
			t.Errorf("codex %q: install: %v", src, err)
		}
		if b, _ := os.ReadFile(cpath); string(b) != src {
			t.Errorf("codex %q was written: %q", src, b)
		}
		if ch, err := Uninstall(co); err != nil || ch.Action != "absent" {
			t.Errorf("codex %q: uninstall: %+v, %v", src, ch, err)
		}
	}
}

// A symlinked config (dotfiles) is edited at its target; the link stays.
func TestInstallFollowsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	home := t.TempDir()
	dots := t.TempDir()
	target := filepath.Join(dots, "mcp.json")
	_ = os.WriteFile(target, []byte(`{"mcpServers":{}}`), 0o600)
	_ = os.MkdirAll(filepath.Join(home, ".cursor"), 0o700)
	link := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(installOpts(t, "cursor", home)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	checkMode(t, target, 0o600)
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), testPadctl) {
		t.Errorf("target not edited: %s", b)
	}
}

func TestStatusAll(t *testing.T) {
	home := t.TempDir()
	o := installOpts(t, "", home)
	oo := o
	oo.Client = "codex"
	if _, err := Install(oo); err != nil {
		t.Fatal(err)
	}
	sts, err := Status(o)
	if err != nil || len(sts) != len(clients) {
		t.Fatalf("%v %v", sts, err)
	}
	for _, st := range sts {
		if st.Installed != (st.Client == "codex") || st.Current != (st.Client == "codex") || st.Exists != (st.Client == "codex") {
			t.Errorf("%+v", st)
		}
	}
}

// An install made under a non-default PAD_HOME writes it into the
// entry, so the client's server reaches the installer's padd; status
// tells an entry without it from a current one, and an install without
// it takes it out again.
func TestInstallRecordsEnvironment(t *testing.T) {
	for _, client := range ClientNames() {
		t.Run(client, func(t *testing.T) {
			home := t.TempDir()
			plain := installOpts(t, client, home)
			if _, err := Install(plain); err != nil {
				t.Fatal(err)
			}
			withHome := plain
			withHome.Env = map[string]string{"PAD_HOME": `/tmp/pad "home"`}
			sts, err := Status(withHome)
			if err != nil {
				t.Fatal(err)
			}
			if !sts[0].Installed || sts[0].Current {
				t.Fatalf("an entry without PAD_HOME reads as current for an installer with it: %+v", sts[0])
			}
			ch, err := Install(withHome)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Action != "updated" {
				t.Fatalf("install with env: %+v", ch)
			}
			def, path, _ := withHome.resolve()
			b, _ := os.ReadFile(path)
			e, err := serverEntry(def, b)
			if err != nil || e == nil || !reflect.DeepEqual(e.Env, withHome.Env) {
				t.Fatalf("entry %+v (%v):\n%s", e, err, b)
			}
			if sts, _ := Status(withHome); !sts[0].Current {
				t.Fatalf("status after install: %+v", sts[0])
			}
			if ch, _ := Install(withHome); ch.Action != "unchanged" {
				t.Fatalf("second install: %+v", ch)
			}
			if _, err := Install(plain); err != nil {
				t.Fatal(err)
			}
			b, _ = os.ReadFile(path)
			if e, _ := serverEntry(def, b); e == nil || len(e.Env) != 0 {
				t.Fatalf("install without env kept it: %s", b)
			}
		})
	}
}

// An edit keeps the config's mode, whatever it is; uninstall too.
func TestInstallKeepsTheFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix modes")
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o600} {
		home := t.TempDir()
		o := installOpts(t, "cursor", home)
		_, path, _ := o.resolve()
		_ = os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(seeds["cursor"]), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(o); err != nil {
			t.Fatal(err)
		}
		checkMode(t, path, mode)
		if _, err := Uninstall(o); err != nil {
			t.Fatal(err)
		}
		checkMode(t, path, mode)
	}
}
