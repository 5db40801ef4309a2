//go:build unix

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/internal/launch"
)

// TestInstallScript installs padd and padctl from a release directory
// (and stand-ins from an archive) with scripts/install.sh into a
// temporary HOME, where no user manager can be
// reached (the runtime directory and session bus are the test's own):
// the binaries and completions land in their places, `padctl daemon
// install` falls back to the autostart entry and padd answers; then
// --uninstall stops padd and removes every file it put there, and the
// data stays.
func TestInstallScript(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	pkg := filepath.Join(work, "padd-test-linux-amd64")
	for _, f := range []struct{ from, to string }{{paddBin, "padd"}, {padctlBin, "padctl"}} {
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(f.from, filepath.Join(pkg, f.to)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(pkg, "completions", "padctl.bash"), []byte("complete -C padctl padctl\n"), 0o644)
	// The archive form, with stand-ins for the binaries (packing the
	// real ones would cost more than the rest of the test).
	stubs := filepath.Join(work, "stubs", "padd-stub-linux-amd64")
	writeFile(t, filepath.Join(stubs, "padd"), []byte("#!/bin/sh\n"), 0o755)
	writeFile(t, filepath.Join(stubs, "padctl"), []byte("#!/bin/sh\necho padctl stub\n"), 0o755)
	archive := filepath.Join(work, "padd-stub-linux-amd64.tar.gz")
	if out, err := exec.Command("tar", "-czf", archive, "-C", filepath.Dir(stubs), filepath.Base(stubs)).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}

	home := filepath.Join(work, "home")
	data := filepath.Join(work, "data")
	prefix := filepath.Join(home, ".local")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GORACE", "HOME", "PAD_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GORACE=atexit_sleep_ms=50", "HOME="+home, "PAD_HOME="+data, "XDG_RUNTIME_DIR="+t.TempDir(),
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(work, "no-bus"))
	script := filepath.Join(root, "scripts", "install.sh")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("sh", append([]string{script}, args...)...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("install.sh %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	t.Cleanup(func() {
		if info, err := launch.ReadInfo(data); err == nil && launch.ProcessAlive(info.PID) {
			p, _ := os.FindProcess(info.PID)
			p.Kill()
		}
	})

	other := filepath.Join(work, "other")
	out := run("--prefix", other, "--no-service", archive)
	if b, err := os.ReadFile(filepath.Join(other, "bin", "padctl")); err != nil || !strings.Contains(string(b), "stub") {
		t.Errorf("from the archive: %v\n%s", err, out)
	}
	run("--uninstall", "--prefix", other)
	if _, err := os.Stat(filepath.Join(other, "bin", "padctl")); err == nil {
		t.Error("uninstall left the archive's padctl")
	}

	out = run("--prefix", prefix, pkg)
	files := []string{
		filepath.Join(prefix, "bin", "padd"), filepath.Join(prefix, "bin", "padctl"),
		filepath.Join(home, ".local/share/bash-completion/completions/padctl"),
		filepath.Join(home, ".config/autostart/padd.desktop"),
		filepath.Join(prefix, "share/padd/install-manifest"),
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("after install: %v\n%s", err, out)
		}
	}
	if !strings.Contains(out, "no systemd user manager") || !strings.Contains(out, "Installed padd under xdg-autostart") {
		t.Errorf("install did not say where padd went:\n%s", out)
	}
	info, err := launch.ReadInfo(data)
	if err != nil || !launch.ProcessAlive(info.PID) {
		t.Fatalf("padd is not running after the install: %v\n%s", err, out)
	}

	out = run("--uninstall", "--prefix", prefix)
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("after uninstall %s is still there\n%s", f, out)
		}
	}
	if launch.ProcessAlive(info.PID) {
		t.Errorf("padd pid %d still runs after uninstall", info.PID)
	}
	if _, err := os.Stat(filepath.Join(data, "padd.db")); err != nil {
		t.Errorf("the data went: %v", err)
	}
}

func writeFile(t *testing.T, path string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
}
