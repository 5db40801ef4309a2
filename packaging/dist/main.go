// Command dist builds padd's release files into dist/ (`make dist`):
//
//   - padd-<version>-<os>-<arch>.tar.gz for linux and darwin, amd64 and arm64, and a .zip for
//     windows/amd64, each with padd, padctl, README.md and the shell completions;
//   - padd_<version>_<arch>.deb and padd-<version>.<arch>.rpm for linux (nfpm), with the systemd
//     user unit (rendered by userservice, as `padctl daemon install` renders it) in
//     /usr/lib/systemd/user/ and the completions in the system's places;
//   - padd.rb, a Homebrew formula for the darwin and linux archives;
//   - SHA256SUMS of all of them.
//
// The version is git's (`git describe --tags --always --dirty`), stamped with -ldflags; builds are
// -trimpath, without build ids or VCS stamps, and every file in an archive or package carries the
// commit's time (SOURCE_DATE_EPOCH when set), so two runs on one commit give the same bytes.
//
//	go run ./packaging/dist [-out dist] [-version v1.2.3] [-targets linux/amd64,...]
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm"

	"github.com/padd/padd/userservice"
)

var allTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64"

func main() {
	out := flag.String("out", "dist", "output directory (emptied first)")
	version := flag.String("version", "", "version to stamp (default: git describe --tags --always --dirty)")
	targets := flag.String("targets", allTargets, "os/arch pairs to build, comma-separated")
	urlBase := flag.String("url", "https://github.com/padd/padd/releases/download/{version}/", "where the Homebrew formula fetches the archives")
	flag.Parse()
	if err := run(*out, *version, strings.Split(*targets, ","), *urlBase); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(out, version string, targets []string, urlBase string) error {
	if version == "" {
		v, err := git("describe", "--tags", "--always", "--dirty")
		if err != nil {
			return err
		}
		version = v
	}
	mtime, err := sourceTime()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "padd-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	// The completions are padctl's own output, from a padctl of this machine.
	host := filepath.Join(work, "host")
	if err := build(host, version, runtime.GOOS, runtime.GOARCH, "./cmd/padctl"); err != nil {
		return err
	}
	comp := map[string][]byte{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		// Found on PATH, padctl writes itself into the script by name, not
		// by this temporary path.
		cmd := exec.Command(filepath.Join(host, exe("padctl", runtime.GOOS)), "completion", sh)
		cmd.Env = append(os.Environ(), "PATH="+host+string(os.PathListSeparator)+os.Getenv("PATH"))
		b, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("padctl completion %s: %w", sh, err)
		}
		comp[sh] = b
	}
	var made []string
	formula := map[string]string{} // os/arch -> archive name
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("target %q is not os/arch", t)
		}
		dir := filepath.Join(work, goos+"-"+goarch)
		if err := build(dir, version, goos, goarch, "./cmd/padd", "./cmd/padctl"); err != nil {
			return err
		}
		padd, err := os.ReadFile(filepath.Join(dir, exe("padd", goos)))
		if err != nil {
			return err
		}
		padctl, err := os.ReadFile(filepath.Join(dir, exe("padctl", goos)))
		if err != nil {
			return err
		}
		base := fmt.Sprintf("padd-%s-%s-%s", version, goos, goarch)
		entries := []entry{
			{base + "/" + exe("padd", goos), padd, 0o755},
			{base + "/" + exe("padctl", goos), padctl, 0o755},
			{base + "/README.md", readme, 0o644},
			{base + "/completions/padctl.bash", comp["bash"], 0o644},
			{base + "/completions/_padctl", comp["zsh"], 0o644},
			{base + "/completions/padctl.fish", comp["fish"], 0o644},
		}
		var name string
		var b []byte
		if goos == "windows" {
			name, b, err = base+".zip", nil, nil
			b, err = zipArchive(entries, mtime)
		} else {
			name = base + ".tar.gz"
			b, err = tarGz(entries, mtime)
			formula[t] = name
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
		made = append(made, name)
		if goos == "linux" {
			for _, format := range []string{"deb", "rpm"} {
				name, b, err := linuxPackage(format, version, goarch, padd, padctl, readme, comp, mtime)
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
					return err
				}
				made = append(made, name)
			}
		}
	}
	if len(formula) > 0 {
		f, err := brewFormula(out, version, strings.ReplaceAll(urlBase, "{version}", version), formula)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "padd.rb"), f, 0o644); err != nil {
			return err
		}
		made = append(made, "padd.rb")
	}
	slices.Sort(made)
	var sums bytes.Buffer
	for _, name := range made {
		sum, err := fileSum(filepath.Join(out, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, name)
	}
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), sums.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Print(sums.String())
	return nil
}

func exe(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

func git(args ...string) (string, error) {
	b, err := exec.Command("git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(b)), nil
}

// sourceTime is SOURCE_DATE_EPOCH, else the commit's time.
func sourceTime() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		var err error
		if s, err = git("log", "-1", "--format=%ct"); err != nil {
			return time.Time{}, err
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("source time %q: %w", s, err)
	}
	return time.Unix(n, 0).UTC(), nil
}

// build compiles pkgs for goos/goarch into dir: no cgo, -trimpath, no
// build id and no VCS stamp, so the bytes depend on the source alone.
func build(dir, version, goos, goarch string, pkgs ...string) error {
	args := append([]string{"build", "-o", dir + "/", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X github.com/padd/padd/api.Version=" + version}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOTOOLCHAIN=local", "GOFLAGS=")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s/%s: %w", goos, goarch, err)
	}
	return nil
}

// entry is one file of an archive.
type entry struct {
	name string
	body []byte
	mode int64
}

// tarGz writes entries, in their order, with owner root and time t.
func tarGz(entries []entry, t time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	gz.ModTime = t
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, e := range entries {
		for d := filepath.Dir(e.name); d != "."; d = filepath.Dir(d) {
			if dirs[d] {
				break
			}
			dirs[d] = true
		}
	}
	var dl []string
	for d := range dirs {
		dl = append(dl, d)
	}
	slices.Sort(dl)
	for _, d := range dl {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: t, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: e.mode, Size: int64(len(e.body)), ModTime: t, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipArchive(entries []entry, t time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: t}
		h.SetMode(os.FileMode(e.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnitPath is where the packages put padd's systemd user unit: users
// enable it with `systemctl --user enable --now padd` (or `padctl daemon
// install`, which writes their own copy).
const UnitPath = "/usr/lib/systemd/user/padd.service"

// linuxPackage builds the .deb or .rpm for goarch with nfpm.
func linuxPackage(format, version, goarch string, padd, padctl, readme []byte, comp map[string][]byte, t time.Time) (string, []byte, error) {
	dir, err := os.MkdirTemp("", "padd-pkg-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	zsh := "/usr/share/zsh/vendor-completions/_padctl"
	if format == "rpm" {
		zsh = "/usr/share/zsh/site-functions/_padctl"
	}
	srcs := []struct {
		dst  string
		body []byte
		mode os.FileMode
	}{
		{"/usr/bin/padd", padd, 0o755},
		{"/usr/bin/padctl", padctl, 0o755},
		{UnitPath, []byte(userservice.SystemdUnit(userservice.Spec{Executable: "/usr/bin/padd"})), 0o644},
		{"/usr/share/bash-completion/completions/padctl", comp["bash"], 0o644},
		{zsh, comp["zsh"], 0o644},
		{"/usr/share/fish/vendor_completions.d/padctl.fish", comp["fish"], 0o644},
		{"/usr/share/doc/padd/README.md", readme, 0o644},
	}
	var contents files.Contents
	for i, s := range srcs {
		src := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(src, s.body, 0o600); err != nil {
			return "", nil, err
		}
		contents = append(contents, &files.Content{Source: src, Destination: s.dst,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: s.mode, MTime: t}})
	}
	info := &nfpm.Info{
		Name: "padd", Arch: goarch, Platform: "linux", Version: version, VersionSchema: "none",
		Section: "utils", Priority: "optional", Maintainer: "padd <padd@localhost>",
		Description: "Pad on this computer: a per-user daemon and its CLI (padd, padctl)",
		Homepage:    "https://github.com/padd/padd", License: "see /usr/share/doc/padd", MTime: t,
		Overridables: nfpm.Overridables{Contents: contents, RPM: nfpm.RPM{BuildHost: "padd-dist", Packager: "padd"}},
	}
	if strings.HasPrefix(version, "v") {
		info.Version, info.VersionSchema = version, "semver"
	}
	p, err := nfpm.Get(format)
	if err != nil {
		return "", nil, err
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	if err := p.Package(info, &buf); err != nil {
		return "", nil, fmt.Errorf("%s: %w", format, err)
	}
	return p.ConventionalFileName(info), buf.Bytes(), nil
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// brewFormula writes a Homebrew formula for the darwin and linux archives
// in out (sha256 of each), installing the binaries and completions.
func brewFormula(out, version, url string, archives map[string]string) ([]byte, error) {
	sum := func(t string) (string, string, bool) {
		name, ok := archives[t]
		if !ok {
			return "", "", false
		}
		s, err := fileSum(filepath.Join(out, name))
		if err != nil {
			return "", "", false
		}
		return url + name, s, true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Homebrew formula for padd %s, written by `make dist`.\n", version)
	b.WriteString("class Padd < Formula\n")
	b.WriteString("  desc \"Pad on this computer: a per-user daemon and its CLI\"\n")
	b.WriteString("  homepage \"https://github.com/padd/padd\"\n")
	fmt.Fprintf(&b, "  version \"%s\"\n", strings.TrimPrefix(version, "v"))
	for _, osName := range []string{"darwin", "linux"} {
		block := map[string]string{"darwin": "on_macos", "linux": "on_linux"}[osName]
		var arms []string
		for _, arch := range []string{"arm64", "amd64"} {
			u, s, ok := sum(osName + "/" + arch)
			if !ok {
				continue
			}
			cpu := map[string]string{"arm64": "on_arm", "amd64": "on_intel"}[arch]
			arms = append(arms, fmt.Sprintf("    %s do\n      url \"%s\"\n      sha256 \"%s\"\n    end\n", cpu, u, s))
		}
		if len(arms) > 0 {
			fmt.Fprintf(&b, "\n  %s do\n%s  end\n", block, strings.Join(arms, ""))
		}
	}
	b.WriteString(`
  def install
    bin.install "padd", "padctl"
    bash_completion.install "completions/padctl.bash" => "padctl"
    zsh_completion.install "completions/_padctl"
    fish_completion.install "completions/padctl.fish"
  end

  def caveats
    <<~EOS
      To start padd at login (a LaunchAgent, or a systemd user unit on Linux):
        padctl daemon install
      After an upgrade, run it again: it restarts padd on the new binary.
    EOS
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/padctl version")
  end
end
`)
	return []byte(b.String()), nil
}
