package tray

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/mcpinstall"
)

// padctlPath finds padctl: beside padtray first, then on PATH.
func padctlPath(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	p, err := launch.Sibling("padctl")
	if err != nil {
		return "", errors.New("cannot find padctl beside padtray or on PATH")
	}
	return p, nil
}

// readAgents is each MCP client `padctl mcp install` knows, marked when
// padd's server is in its config.
func readAgents(o Options) []Agent {
	if o.Home == "" {
		return nil
	}
	padctl, _ := padctlPath(o.Padctl)
	sts, err := mcpinstall.Status(mcpinstall.InstallOptions{Home: o.Home, Getenv: o.Getenv, Command: padctl})
	if err != nil {
		o.Log.Warn("could not read the MCP clients' configs", "err", err)
		return nil
	}
	out := make([]Agent, 0, len(sts))
	for _, st := range sts {
		out = append(out, Agent{Name: st.Client, Label: st.Label, Installed: st.Installed})
	}
	return out
}

// padctlTimeout bounds one padctl call.
const padctlTimeout = 60 * time.Second

// runPadctl runs padctl with args and returns its standard output; a
// failure carries what padctl said.
func runPadctl(o Options, args ...string) error {
	_, err := padctlOutput(o, args...)
	return err
}

func padctlOutput(o Options, args ...string) ([]byte, error) {
	bin, err := padctlPath(o.Padctl)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), padctlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "PAD_HOME="+o.DataDir)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("padctl %s: %s", strings.Join(args, " "), msg)
	}
	return out.Bytes(), nil
}

// serviceStatus is `padctl daemon status --format json` of a padctl
// that manages the per-user service.
type serviceStatus struct {
	Installed *bool  `json:"installed"`
	Manager   string `json:"manager"`
	Enabled   bool   `json:"enabled"`
	Running   bool   `json:"running"`
}

// readLogin asks padctl about the per-user service. A padctl without the
// service commands (it fails, or its status has no "installed") leaves
// the checkbox unavailable.
func readLogin(o Options) Login {
	if _, err := padctlPath(o.Padctl); err != nil {
		return Login{Known: true}
	}
	// `daemon status` exits 3 when padd is not running (systemctl's
	// convention), with its answer on stdout all the same: the answer is
	// what counts.
	out, _ := padctlOutput(o, "daemon", "status", "--format", "json")
	var st serviceStatus
	if json.Unmarshal(out, &st) != nil || st.Installed == nil {
		return Login{Known: true}
	}
	enabled := *st.Installed && st.Enabled
	if p := autostartPath(o); p != "" {
		_, ferr := os.Stat(p)
		enabled = enabled && ferr == nil
	}
	return Login{Known: true, Available: true, Enabled: enabled, Manager: st.Manager}
}

// autostartPath is the tray's own autostart entry: an XDG autostart
// desktop file on Linux and the BSDs; "" where padctl's service is all
// there is.
func autostartPath(o Options) string {
	switch runtime.GOOS {
	case "darwin", "windows":
		return ""
	}
	dir := o.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if o.Home == "" {
			return ""
		}
		dir = filepath.Join(o.Home, ".config")
	}
	return filepath.Join(dir, "autostart", "padtray.desktop")
}

func writeAutostart(o Options) error {
	p := autostartPath(o)
	if p == "" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	entry := "[Desktop Entry]\nType=Application\nName=padd tray\nComment=padd at a glance\nExec=" + execQuote(exe) +
		"\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(entry), 0o644)
}

func removeAutostart(o Options) error {
	p := autostartPath(o)
	if p == "" {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// execQuote quotes a path for a desktop entry's Exec key.
func execQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"\\$`") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// openPath opens a file or folder with the system's default application.
func openPath(p string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", p)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", p)
	default:
		cmd = exec.Command("xdg-open", p)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it; the opener's outcome is the desktop's
	return nil
}

// copyText puts text on the clipboard through the system's own tool.
func copyText(text string) error {
	var tries [][]string
	switch runtime.GOOS {
	case "darwin":
		tries = [][]string{{"pbcopy"}}
	case "windows":
		tries = [][]string{{"clip"}}
	default:
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			tries = append(tries, []string{"wl-copy"})
		}
		tries = append(tries, []string{"xclip", "-selection", "clipboard"}, []string{"xsel", "--clipboard", "--input"})
	}
	var last error = errors.New("no clipboard tool found")
	for _, t := range tries {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		cmd := exec.Command(t[0], t[1:]...)
		cmd.Stdin = strings.NewReader(text)
		if last = cmd.Run(); last == nil {
			return nil
		}
	}
	return last
}
