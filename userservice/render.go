package userservice

import (
	"fmt"
	"strings"
)

// Spec is what an entry starts: padd's absolute path and, when it is not
// the default, the data directory (PAD_HOME).
type Spec struct {
	Executable string // absolute path of the padd to run
	PadHome    string // PAD_HOME to run with; "" leaves the default
	// LogDir is padd's data directory as padd will resolve it: launchd
	// writes padd's stderr (its words before its log is open) there.
	LogDir string
}

// Unit name, launchd label and registry value name: one name everywhere.
const (
	Name       = "padd"
	UnitName   = Name + ".service"
	PlistName  = Name + ".plist"
	Desktop    = Name + ".desktop"
	RunKey     = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`
	startErrFn = "padd.start.err" // launch.StartErrFile: kept equal by a test
)

// SystemdUnit renders padd's systemd user unit. It is wanted by
// default.target, the target a user manager starts (multi-user.target,
// kardianos/service's stock choice, is a system target and never starts
// there). Restart=on-failure brings padd back after a crash but not after
// a stop; exit 3 (another padd already serves the data directory) is not
// retried. padd logs to stderr under systemd, so journald keeps its log.
func SystemdUnit(s Spec) string {
	var b strings.Builder
	b.WriteString("# padd's per-user service, written by `padctl daemon install`.\n")
	b.WriteString("# `padctl daemon uninstall` removes it; padd's data stays.\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=padd, Pad on this computer\n")
	b.WriteString("\n[Service]\n")
	b.WriteString("Type=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s\n", systemdQuote(s.Executable))
	if s.PadHome != "" {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote("PAD_HOME="+s.PadHome))
	}
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=2\n")
	b.WriteString("RestartPreventExitStatus=3\n")
	// padd's own shutdown is bounded at 10 s; the rest is headroom.
	b.WriteString("TimeoutStopSec=20\n")
	b.WriteString("\n[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return b.String()
}

// systemdQuote is the executable of an Exec line, or an Environment=
// assignment: quoted when it holds anything systemd would split or
// interpret, with % doubled (specifiers). Neither expands $ (only an Exec
// line's arguments do, and padd's unit has none).
func systemdQuote(w string) string {
	w = strings.ReplaceAll(w, "%", "%%")
	if w != "" && !strings.ContainsFunc(w, func(r rune) bool {
		return r <= ' ' || r == '"' || r == '\'' || r == '\\' || r == ';' || r >= 0x7f
	}) {
		return w
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range w {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// LaunchAgent renders padd's LaunchAgent plist: loaded at login
// (RunAtLoad), started again when it exits unsuccessfully (a crash) but
// not after a clean stop. padd logs to its rotated file; launchd's
// stderr file catches what padd says before that file is open.
func LaunchAgent(s Spec) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + Name + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + xmlEscape(s.Executable) + `</string>
		<string>--quiet</string>
	</array>
`)
	if s.PadHome != "" {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n\t\t<key>PAD_HOME</key>\n\t\t<string>" +
			xmlEscape(s.PadHome) + "</string>\n\t</dict>\n")
	}
	b.WriteString(`	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Background</string>
	<key>ExitTimeOut</key>
	<integer>20</integer>
`)
	if s.LogDir != "" {
		b.WriteString("\t<key>StandardErrorPath</key>\n\t<string>" + xmlEscape(s.LogDir+"/"+startErrFn) + "</string>\n")
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// WindowsRun is the per-user logon entry on Windows: a value under the
// user's Run key (HKCU, so no elevation), whose data is padd's command
// line. A Run value carries no environment, so a PAD_HOME that is not
// the default travels as padd's --home flag.
type WindowsRun struct {
	Key, Value, Data string
}

// WindowsEntry renders the Run value for s.
func WindowsEntry(s Spec) WindowsRun {
	line := windowsArg(s.Executable) + " --quiet"
	if s.PadHome != "" {
		line += " --home " + windowsArg(s.PadHome)
	}
	return WindowsRun{Key: RunKey, Value: Name, Data: line}
}

// RegAddArgs are the arguments of the `reg add` that writes the entry.
func (r WindowsRun) RegAddArgs() []string {
	return []string{"add", r.Key, "/v", r.Value, "/t", "REG_SZ", "/d", r.Data, "/f"}
}

// windowsArg quotes one argument the way CommandLineToArgvW reads it
// back: backslashes are literal except before a quote, where they are
// doubled, as are those before the closing quote.
func windowsArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// AutostartEntry renders the XDG autostart entry, the fallback where no
// systemd user manager runs: desktop sessions start it at login. It has
// no restart policy.
func AutostartEntry(s Spec) string {
	exec := desktopArg(s.Executable) + " --quiet"
	if s.PadHome != "" {
		exec += " --home " + desktopArg(s.PadHome)
	}
	return "# padd's autostart entry, written by `padctl daemon install` where no systemd user\n" +
		"# manager runs. `padctl daemon uninstall` removes it; padd's data stays.\n" +
		"[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=padd\n" +
		"Comment=Pad on this computer (per-user daemon)\n" +
		"Exec=" + desktopString(exec) + "\n" +
		"Terminal=false\n" +
		"NoDisplay=true\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// desktopArg quotes one argument of an Exec key (Desktop Entry
// Specification, "The Exec key"): inside double quotes, ", `, $ and \ take
// a backslash; % is doubled everywhere (field codes).
func desktopArg(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\><~|&;$*?#()`=") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// desktopString escapes a value of type string in a desktop file: a
// backslash is written twice (on top of the Exec quoting above).
func desktopString(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`).Replace(s)
}
