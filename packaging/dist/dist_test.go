package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
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
// bytes, and dpkg-deb reads the .deb, rpm the .rpm, with their files,
// their modes and the unit padctl would write for /usr/bin/padd.

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

func TestPackagesAreReproducibleAndRead(t *testing.T) {
	for _, format := range []string{"deb", "rpm"} {
		name, a, err := linuxPackage(format, "v1.2.3", "amd64", []byte("padd"), []byte("padctl"), []byte("readme"), comp, when)
		if err != nil {
			t.Fatal(err)
		}
		_, b, _ := linuxPackage(format, "v1.2.3", "amd64", []byte("padd"), []byte("padctl"), []byte("readme"), comp, when)
		if !bytes.Equal(a, b) {
			t.Errorf("two %s packages of the same files differ", format)
		}
		if format == "rpm" {
			checkRPM(t, name, a)
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

// checkRPM reads the .rpm with rpm where that tool exists: its digests,
// its name, version and architecture, and each file with its size, time,
// mode and owner; the unit's digest is that of userservice's unit for
// /usr/bin/padd, so its bytes are the same.
func checkRPM(t *testing.T, name string, pkg []byte) {
	t.Helper()
	if name != "padd-1.2.3-1.x86_64.rpm" {
		t.Errorf("rpm named %q", name)
	}
	if _, err := exec.LookPath("rpm"); err != nil {
		t.Log("no rpm here: the .rpm is not read back")
		return
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("rpm", "--checksig", "--nosignature", p).CombinedOutput(); err != nil || !strings.Contains(string(out), "digests OK") {
		t.Errorf("rpm --checksig: %v\n%s", err, out)
	}
	if out, err := exec.Command("rpm", "-qp", "--queryformat", "%{NAME} %{VERSION} %{RELEASE} %{ARCH}\n", p).CombinedOutput(); err != nil ||
		string(out) != "padd 1.2.3 1 x86_64\n" {
		t.Errorf("rpm -qp --queryformat: %v\n%s", err, out)
	}
	if out, err := exec.Command("rpm", "-qip", p).CombinedOutput(); err != nil || !strings.Contains(string(out), "Build Host  : padd-dist") {
		t.Errorf("rpm -qip: %v\n%s", err, out)
	}
	out, err := exec.Command("rpm", "-qp", "--dump", p).CombinedOutput()
	if err != nil {
		t.Fatalf("rpm -qp --dump: %v\n%s", err, out)
	}
	// --dump: path size mtime sha256 mode owner group isconfig isdoc rdev symlink
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) < 7 {
			t.Fatalf("rpm --dump line %q", l)
		}
		got[f[0]] = strings.Join(f[1:7], " ")
	}
	sum := func(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }
	file := func(body []byte, mode string) string {
		return fmt.Sprintf("%d %d %s %s root root", len(body), when.Unix(), sum(body), mode)
	}
	unit := []byte(userservice.SystemdUnit(userservice.Spec{Executable: "/usr/bin/padd"}))
	want := map[string]string{
		"/usr/bin/padd":   file([]byte("padd"), "0100755"),
		"/usr/bin/padctl": file([]byte("padctl"), "0100755"),
		UnitPath:          file(unit, "0100644"),
		"/usr/share/bash-completion/completions/padctl":    file(comp["bash"], "0100644"),
		"/usr/share/zsh/site-functions/_padctl":            file(comp["zsh"], "0100644"),
		"/usr/share/fish/vendor_completions.d/padctl.fish": file(comp["fish"], "0100644"),
		"/usr/share/doc/padd/README.md":                    file([]byte("readme"), "0100644"),
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("rpm --dump %s: %q, want %q (size time sha256 mode owner group)", path, got[path], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("rpm holds %d files, want %d:\n%s", len(got), len(want), out)
	}
}
