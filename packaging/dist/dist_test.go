package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/userservice"
)

// The pieces of `make dist` on small stand-in binaries (the real build
// is make dist's, outside make test): the same input gives the same
// bytes, and dpkg-deb reads the .deb with its files, their modes and the
// unit padctl would write for /usr/bin/padd.

var (
	when = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	comp = map[string][]byte{"bash": []byte("complete -C padctl padctl\n"), "zsh": []byte("#compdef padctl\n"), "fish": []byte("complete -c padctl\n")}
)

func TestArchivesAreReproducible(t *testing.T) {
	entries := []entry{{"padd-v1-linux-amd64/padd", []byte("padd"), 0o755}, {"padd-v1-linux-amd64/completions/_padctl", comp["zsh"], 0o644}}
	a, err := tarGz(entries, when)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tarGz(entries, when)
	if !bytes.Equal(a, b) {
		t.Error("two tar.gz of the same files differ")
	}
	z1, err := zipArchive(entries, when)
	if err != nil {
		t.Fatal(err)
	}
	z2, _ := zipArchive(entries, when)
	if !bytes.Equal(z1, z2) {
		t.Error("two zips of the same files differ")
	}
	if _, err := exec.LookPath("tar"); err == nil {
		dir := t.TempDir()
		p := filepath.Join(dir, "a.tar.gz")
		os.WriteFile(p, a, 0o644)
		out, err := exec.Command("tar", "-tvzf", p).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "-rwxr-xr-x") || !strings.Contains(string(out), "padd-v1-linux-amd64/completions/_padctl") {
			t.Errorf("tar reads: %v\n%s", err, out)
		}
	}
}

func TestPackagesAreReproducibleAndDebReads(t *testing.T) {
	for _, format := range []string{"deb", "rpm"} {
		name, a, err := linuxPackage(format, "v1.2.3", "amd64", []byte("padd"), []byte("padctl"), []byte("readme"), comp, when)
		if err != nil {
			t.Fatal(err)
		}
		_, b, _ := linuxPackage(format, "v1.2.3", "amd64", []byte("padd"), []byte("padctl"), []byte("readme"), comp, when)
		if !bytes.Equal(a, b) {
			t.Errorf("two %s packages of the same files differ", format)
		}
		if format != "deb" {
			continue
		}
		if name != "padd_1.2.3_amd64.deb" {
			t.Errorf("deb named %q", name)
		}
		if _, err := exec.LookPath("dpkg-deb"); err != nil {
			t.Log("no dpkg-deb here: the .deb is not read back")
			continue
		}
		dir := t.TempDir()
		deb := filepath.Join(dir, name)
		if err := os.WriteFile(deb, a, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("dpkg-deb", "--contents", deb).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg-deb --contents: %v\n%s", err, out)
		}
		for _, want := range []string{
			"-rwxr-xr-x root/root         4 2026-12-02 12:00 ./usr/bin/padd",
			"-rwxr-xr-x root/root         6 2026-12-02 12:00 ./usr/bin/padctl",
			"-rw-r--r-- root/root", "./usr/lib/systemd/user/padd.service",
			"./usr/share/bash-completion/completions/padctl", "./usr/share/zsh/vendor-completions/_padctl",
			"./usr/share/fish/vendor_completions.d/padctl.fish",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("dpkg-deb --contents lacks %q:\n%s", want, out)
			}
		}
		if out, err := exec.Command("dpkg-deb", "--field", deb, "Package", "Version", "Architecture").CombinedOutput(); err != nil ||
			string(out) != "Package: padd\nVersion: 1.2.3\nArchitecture: amd64\n" {
			t.Errorf("dpkg-deb --field: %v\n%s", err, out)
		}
		x := filepath.Join(dir, "x")
		if out, err := exec.Command("dpkg-deb", "--extract", deb, x).CombinedOutput(); err != nil {
			t.Fatalf("dpkg-deb --extract: %v\n%s", err, out)
		}
		unit, err := os.ReadFile(filepath.Join(x, UnitPath))
		if err != nil || string(unit) != userservice.SystemdUnit(userservice.Spec{Executable: "/usr/bin/padd"}) {
			t.Errorf("the packaged unit is not userservice's: %v\n%s", err, unit)
		}
	}
}
