package mcpinstall

import (
	"path/filepath"
)

// Where each MCP client keeps its user-level server list, and the shape of
// our entry in it. Sources: each client's documentation (Cursor
// ~/.cursor/mcp.json; Windsurf ~/.codeium/windsurf/mcp_config.json;
// Claude Desktop claude_desktop_config.json in its per-OS app data
// folder; Claude Code ~/.claude.json, user scope; VS Code mcp.json in the
// user profile, under "servers" with type stdio; Codex
// ~/.codex/config.toml, [mcp_servers.<name>]).

// clientDef describes one client.
type clientDef struct {
	Name  string
	Label string
	// Path is the config file, from the home directory and the OS.
	Path func(o *InstallOptions) string
	// Key holds the servers: an object key in JSON, a table in TOML.
	Key  string
	TOML bool
	// Entry is our server entry for a command line.
	Entry func(command string, args []string) stdioEntry
}

// stdioEntry is a server entry; field order is the order written.
type stdioEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Env is what the server needs to reach the padd of the person who
	// installed it (PAD_HOME when theirs is not the default).
	Env map[string]string `json:"env,omitempty"`
}

func plainEntry(command string, args []string) stdioEntry {
	return stdioEntry{Command: command, Args: args}
}

// typedEntry is for clients whose schema asks for the transport type.
func typedEntry(command string, args []string) stdioEntry {
	return stdioEntry{Type: "stdio", Command: command, Args: args}
}

// appData is the per-user application data folder: Application Support on
// macOS, %APPDATA% on Windows, $XDG_CONFIG_HOME (~/.config) elsewhere.
func appData(o *InstallOptions) string {
	switch o.goos() {
	case "darwin":
		return filepath.Join(o.Home, "Library", "Application Support")
	case "windows":
		if d := o.getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(o.Home, "AppData", "Roaming")
	}
	if d := o.getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return filepath.Join(o.Home, ".config")
}

var clients = []clientDef{
	{Name: "claude-code", Label: "Claude Code", Key: "mcpServers", Entry: typedEntry,
		Path: func(o *InstallOptions) string { return filepath.Join(o.Home, ".claude.json") }},
	{Name: "claude-desktop", Label: "Claude Desktop", Key: "mcpServers", Entry: plainEntry,
		Path: func(o *InstallOptions) string {
			return filepath.Join(appData(o), "Claude", "claude_desktop_config.json")
		}},
	{Name: "codex", Label: "Codex", Key: "mcp_servers", TOML: true, Entry: plainEntry,
		Path: func(o *InstallOptions) string {
			if d := o.getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(o.Home, ".codex", "config.toml")
		}},
	{Name: "cursor", Label: "Cursor", Key: "mcpServers", Entry: plainEntry,
		Path: func(o *InstallOptions) string { return filepath.Join(o.Home, ".cursor", "mcp.json") }},
	{Name: "vscode", Label: "VS Code", Key: "servers", Entry: typedEntry,
		Path: func(o *InstallOptions) string { return filepath.Join(appData(o), "Code", "User", "mcp.json") }},
	{Name: "windsurf", Label: "Windsurf", Key: "mcpServers", Entry: plainEntry,
		Path: func(o *InstallOptions) string {
			return filepath.Join(o.Home, ".codeium", "windsurf", "mcp_config.json")
		}},
}

// ClientNames lists the clients install knows, for help and completion.
func ClientNames() []string {
	out := make([]string, 0, len(clients))
	for _, c := range clients {
		out = append(out, c.Name)
	}
	return out
}

func clientByName(name string) (*clientDef, bool) {
	for i := range clients {
		if clients[i].Name == name {
			return &clients[i], true
		}
	}
	return nil, false
}
