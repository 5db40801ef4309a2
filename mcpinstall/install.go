// Package mcpinstall registers padd's MCP server (`padctl mcp serve`)
// with MCP clients (Cursor, Windsurf, Claude Desktop and Code, VS Code,
// Codex) by editing their own config files in place, and takes it out
// again. It does not link the MCP server, so padctl stays light.
package mcpinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/padd/padd/internal/atomicfile"
)

// ServerEntryName is the name padd's server gets in a client's config.
// Not "pad": that is the real Pad's entry, and both can be installed.
const ServerEntryName = "padd"

// InstallOptions say which client to configure and how to start padd's
// MCP server. Everything environmental is a field, so tests run against
// temporary home directories.
type InstallOptions struct {
	Client string
	// Home is the user's home directory.
	Home string
	// GOOS picks the per-OS config location; "" means this OS.
	GOOS string
	// Getenv reads APPDATA, XDG_CONFIG_HOME and CODEX_HOME; nil reads
	// nothing (the defaults under Home apply).
	Getenv func(string) string
	// Command is the absolute path of padctl; Args what follows it
	// (default: mcp serve).
	Command string
	Args    []string
	// Env is written into the entry's environment (nil: none), so that
	// the client's server reaches the same padd as the installer.
	Env map[string]string
	// DryRun computes the change without writing it.
	DryRun bool
}

func (o *InstallOptions) goos() string {
	if o.GOOS != "" {
		return o.GOOS
	}
	return runtime.GOOS
}

func (o *InstallOptions) getenv(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

func (o *InstallOptions) args() []string {
	if o.Args != nil {
		return o.Args
	}
	return []string{"mcp", "serve"}
}

// Change is what an install or uninstall did (or, with DryRun, would do).
type Change struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	// Action is installed, updated, unchanged, removed or absent.
	Action  string `json:"action"`
	Written bool   `json:"written"`
	// Diff is the change to the file as a unified diff ("" when none).
	Diff string `json:"diff,omitempty"`
}

// InstallError is a refusal with what to do about it.
type InstallError struct {
	Code, Message, Hint string
}

func (e *InstallError) Error() string { return e.Message }

func installErr(code, hint, format string, args ...any) *InstallError {
	return &InstallError{Code: code, Hint: hint, Message: fmt.Sprintf(format, args...)}
}

func (o *InstallOptions) resolve() (*clientDef, string, error) {
	def, ok := clientByName(o.Client)
	if !ok {
		return nil, "", installErr("unknown_client", "choose one of: "+strings.Join(ClientNames(), ", "),
			"unknown MCP client %q", o.Client)
	}
	if o.Home == "" || !filepath.IsAbs(o.Home) {
		return nil, "", installErr("no_home", "set HOME to your home directory", "no absolute home directory (got %q)", o.Home)
	}
	return def, def.Path(o), nil
}

// Install adds (or updates) padd's entry in the client's config, keeping
// every other key and server as it is. A second install changes nothing.
func Install(o InstallOptions) (*Change, error) {
	def, path, err := o.resolve()
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(o.Command) {
		return nil, installErr("bad_command", "pass the absolute path of padctl", "the server command must be an absolute path, got %q", o.Command)
	}
	old, exists, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	entry := def.Entry(o.Command, o.args())
	if len(o.Env) > 0 {
		entry.Env = o.Env
	}
	next, err := setEntry(def, old, entry)
	if err == nil {
		err = verifyEdit(def, old, next, &entry)
	}
	if err != nil {
		return nil, editRefusal(path, err)
	}
	ch := &Change{Client: def.Name, Path: path, Action: "installed"}
	if had, _ := hasServer(def, old); had {
		ch.Action = "updated"
	}
	return ch, apply(ch, o.DryRun, old, next, exists)
}

// Uninstall removes padd's entry and nothing else.
func Uninstall(o InstallOptions) (*Change, error) {
	def, path, err := o.resolve()
	if err != nil {
		return nil, err
	}
	old, exists, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	ch := &Change{Client: def.Name, Path: path, Action: "absent"}
	next, found, err := removeEntry(def, old)
	if err == nil && found {
		err = verifyEdit(def, old, next, nil)
	}
	if err != nil {
		return nil, editRefusal(path, err)
	}
	if !found {
		return ch, nil
	}
	ch.Action = "removed"
	return ch, apply(ch, o.DryRun, old, next, exists)
}

// ClientStatus is one client's install state.
type ClientStatus struct {
	Client    string   `json:"client"`
	Label     string   `json:"label"`
	Path      string   `json:"path"`
	Exists    bool     `json:"config_exists"`
	Installed bool     `json:"installed"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	// Env is the entry's environment.
	Env map[string]string `json:"env,omitempty"`
	// Current says the entry starts this padctl with mcp serve, in the
	// environment an install would write now.
	Current bool   `json:"current"`
	Problem string `json:"problem,omitempty"`
}

// Status reports padd's entry in one client's config, or in every
// client's when o.Client is "".
func Status(o InstallOptions) ([]ClientStatus, error) {
	names := ClientNames()
	if o.Client != "" {
		names = []string{o.Client}
	}
	var out []ClientStatus
	for _, n := range names {
		oo := o
		oo.Client = n
		def, path, err := oo.resolve()
		if err != nil {
			return nil, err
		}
		st := ClientStatus{Client: def.Name, Label: def.Label, Path: path}
		src, exists, err := readConfig(path)
		st.Exists = exists
		if err == nil {
			var e *stdioEntry
			if e, err = serverEntry(def, src); e != nil {
				st.Installed, st.Command, st.Args, st.Env = true, e.Command, e.Args, e.Env
				st.Current = e.Command == o.Command && reflect.DeepEqual(e.Args, oo.args()) && sameEnv(e.Env, o.Env)
			}
		}
		if err != nil {
			st.Problem = err.Error()
		}
		out = append(out, st)
	}
	return out, nil
}

// sameEnv compares two environments, nil and empty alike.
func sameEnv(a, b map[string]string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// readConfig reads a config file; a missing one reads as empty.
func readConfig(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, installErr("unreadable_config", "check the file's permissions", "cannot read %s: %v", path, err)
	}
	return b, true, nil
}

func editRefusal(path string, err error) error {
	var ie *InstallError
	if errors.As(err, &ie) {
		return err
	}
	return installErr("unparsable_config", "fix the file by hand (or move it aside) and run the command again; padctl does not overwrite a file it cannot read",
		"cannot edit %s safely: %v", path, err)
}

// apply records the diff and writes the file unless nothing changed or
// this is a dry run. Writes are atomic (temporary file and rename). A
// config padctl makes is 0600 (configs can hold other servers' secrets);
// one it edits keeps its mode: padd's entry adds no secret, and the
// file's mode is its owner's choice.
func apply(ch *Change, dryRun bool, old, next []byte, exists bool) error {
	if bytes.Equal(old, next) && exists {
		ch.Action = "unchanged"
		return nil
	}
	ch.Diff = unifiedDiff(string(old), string(next), ch.Path)
	if dryRun {
		return nil
	}
	target := ch.Path
	if resolved, err := filepath.EvalSymlinks(target); err == nil {
		// A symlinked config (dotfiles) is edited where it lives; a
		// rename over the link would replace it with a plain file.
		target = resolved
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return installErr("unwritable_config", "check the permissions of the folder", "cannot create %s: %v", filepath.Dir(target), err)
	}
	perm := os.FileMode(0o600)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := atomicfile.WriteMode(target, next, perm); err != nil {
		return installErr("unwritable_config", "check the permissions of the file and its folder", "cannot write %s: %v", target, err)
	}
	ch.Written = true
	return nil
}

// decodeAny decodes a config in the client's format.
// setEntry writes padd's server entry into a config in the client's
// format; removeEntry takes it out.
func setEntry(def *clientDef, src []byte, entry stdioEntry) ([]byte, error) {
	if def.TOML {
		return tomlSetServer(src, def.Key, ServerEntryName, entry)
	}
	return setServer(src, def.Key, ServerEntryName, entry)
}

func removeEntry(def *clientDef, src []byte) ([]byte, bool, error) {
	if def.TOML {
		return tomlRemoveServer(src, def.Key, ServerEntryName)
	}
	return removeServer(src, def.Key, ServerEntryName)
}

func decodeAny(def *clientDef, src []byte) (map[string]any, error) {
	if def.TOML {
		return decodeTOML(src)
	}
	return decodeConfig(src)
}

// serverEntry reads padd's entry from a config (nil when absent).
func serverEntry(def *clientDef, src []byte) (*stdioEntry, error) {
	m, err := decodeAny(def, src)
	if err != nil {
		return nil, err
	}
	servers, _ := m[def.Key].(map[string]any)
	raw, ok := servers[ServerEntryName]
	if !ok {
		return nil, nil
	}
	b, _ := json.Marshal(raw)
	var e stdioEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("the %s entry is not a server entry: %v", ServerEntryName, err)
	}
	return &e, nil
}

func hasServer(def *clientDef, src []byte) (bool, error) {
	e, err := serverEntry(def, src)
	return e != nil, err
}

// verifyEdit proves an edit touched only padd's entry: both versions
// decode, everything but the entry is equal, and the entry is want (or
// gone when want is nil). The text splice is checked, not trusted.
func verifyEdit(def *clientDef, old, next []byte, want *stdioEntry) error {
	before, err := decodeAny(def, old)
	if err != nil {
		return err
	}
	after, err := decodeAny(def, next)
	if err != nil {
		return fmt.Errorf("the edited file does not parse (%v); this is a bug in padctl", err)
	}
	got, err := serverEntry(def, next)
	if err != nil {
		return err
	}
	switch {
	case want == nil && got != nil:
		return errors.New("the entry is still there after removing it; this is a bug in padctl")
	case want != nil && (got == nil || !reflect.DeepEqual(*got, *want)):
		return errors.New("the entry did not come out as written; this is a bug in padctl")
	}
	withoutEntry(before, def.Key)
	withoutEntry(after, def.Key)
	if !reflect.DeepEqual(normalize(before), normalize(after)) {
		return errors.New("the edit would change more than padd's entry; this is a bug in padctl")
	}
	return nil
}

// withoutEntry drops padd's entry (and a servers table left empty).
func withoutEntry(m map[string]any, key string) {
	servers, ok := m[key].(map[string]any)
	if !ok {
		return
	}
	delete(servers, ServerEntryName)
	if len(servers) == 0 {
		delete(m, key)
	}
}

// normalize makes decoded JSON and TOML comparable (TOML decodes arrays
// of tables as []map[string]any, JSON as []any).
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// unifiedDiff renders old -> new as a unified diff. An install or
// uninstall is one splice, so one hunk (the changed lines between the
// common head and tail, with three lines of context) is exact.
func unifiedDiff(old, new, name string) string {
	if old == new {
		return ""
	}
	a, b := splitKeep(old), splitKeep(new)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	const context = 3
	from := max(head-context, 0)
	toA, toB := min(len(a)-tail+context, len(a)), min(len(b)-tail+context, len(b))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n@@ -%s +%s @@\n", name, name, hunkSide(from, toA-from), hunkSide(from, toB-from))
	line := func(prefix, l string) {
		sb.WriteString(prefix + l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, l := range a[from:head] {
		line(" ", l)
	}
	for _, l := range a[head : len(a)-tail] {
		line("-", l)
	}
	for _, l := range b[head : len(b)-tail] {
		line("+", l)
	}
	for _, l := range a[len(a)-tail : toA] {
		line(" ", l)
	}
	return sb.String()
}

func hunkSide(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitKeep splits after each newline, keeping it.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
