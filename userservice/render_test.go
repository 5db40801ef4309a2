package userservice

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/internal/launch"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// specs are the entries the golden files pin: the plain one, and one
// whose paths hold what each format must quote or escape.
var specs = map[string]Spec{
	"default": {Executable: "/home/ann/.local/bin/padd", LogDir: "/Users/ann/Library/Application Support/padd"},
	"home": {Executable: `/opt/my apps/padd "x"/padd`, PadHome: `/data/pad 100%/$HOME\x & <y>`,
		LogDir: `/data/pad 100%/$HOME\x & <y>`},
}

var winSpecs = map[string]Spec{
	"default": {Executable: `C:\Users\ann\AppData\Local\Programs\padd\padd.exe`},
	"home":    {Executable: `C:\Program Files\padd\padd.exe`, PadHome: `D:\pad data\`},
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenEntries(t *testing.T) {
	for name, s := range specs {
		golden(t, "padd."+name+".service", SystemdUnit(s))
		golden(t, "padd."+name+".plist", LaunchAgent(s))
		golden(t, "padd."+name+".desktop", AutostartEntry(s))
	}
	for name, s := range winSpecs {
		golden(t, "padd."+name+".reg-add", strings.Join(WindowsEntry(s).RegAddArgs(), "\n")+"\n")
	}
}

// The plist's stderr file is the one launch reads when padd dies early.
func TestStartErrFileIsLaunchs(t *testing.T) {
	if startErrFn != launch.StartErrFile {
		t.Fatalf("startErrFn %q, launch.StartErrFile %q", startErrFn, launch.StartErrFile)
	}
}

// TestSystemdAnalyzeVerify runs systemd's own checker on the rendered
// unit, for an executable that exists, in a directory whose name needs
// quoting. Any message (an unknown key is only a warning) fails.
func TestSystemdAnalyzeVerify(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze here")
	}
	dir := filepath.Join(t.TempDir(), "bin 100% $x")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "padd")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), UnitName)
	if err := os.WriteFile(unit, []byte(SystemdUnit(Spec{Executable: exe, PadHome: "/data/pad 100%"})), 0o644); err != nil {
		t.Fatal(err)
	}
	// The user manager's checker wants a runtime directory.
	rt := t.TempDir()
	cmd := exec.Command(tool, "--user", "verify", unit)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "HOME="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Fatalf("systemd-analyze --user verify: %v\n%s", err, out.String())
	}
}

// TestQuotingReadsBack reads each rendered command line back the way its
// consumer does and gets the original words.
func TestQuotingReadsBack(t *testing.T) {
	words := []string{"/plain/padd", `/a b/c"d`, `x\y`, "100%", "$HOME", `C:\dir\`, `tab	here`}
	for _, w := range words {
		if got, err := SplitExec(systemdQuote(w)); err != nil || len(got) != 1 || got[0] != w {
			t.Errorf("systemd %q → %q → %q, %v", w, systemdQuote(w), got, err)
		}
	}
	home := specs["home"]
	argv, env, err := UnitCommand(SystemdUnit(home))
	if err != nil || len(argv) != 1 || argv[0] != home.Executable || len(env) != 1 || env[0] != "PAD_HOME="+home.PadHome {
		t.Errorf("unit reads back as %q %q, %v", argv, env, err)
	}
	for name, sp := range specs {
		if got := unitPadHome(SystemdUnit(sp)); got != sp.PadHome {
			t.Errorf("%s: unit's PAD_HOME reads back as %q", name, got)
		}
		if got := plistPadHome(LaunchAgent(sp)); got != sp.PadHome {
			t.Errorf("%s: plist's PAD_HOME reads back as %q", name, got)
		}
		if got := desktopPadHome(AutostartEntry(sp)); got != sp.PadHome {
			t.Errorf("%s: autostart --home reads back as %q", name, got)
		}
	}
	for name, sp := range winSpecs {
		if got := homeFlag(windowsSplit(WindowsEntry(sp).Data)); got != sp.PadHome {
			t.Errorf("%s: Run value's --home reads back as %q", name, got)
		}
	}
	for _, w := range words {
		if got := windowsSplit(windowsArg(w)); len(got) != 1 || got[0] != w {
			t.Errorf("windows %q → %q → %q", w, windowsArg(w), got)
		}
	}
}
