// Package testbin builds and watches padd's real binaries for the tests
// and scripts that run them (e2e, the CLI's and MCP's end-to-end tests,
// the load run): one place for how they are built and observed.
package testbin

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// Race reports whether the running binary was built with -race; the
// binaries a test builds should match it, so their data races fail the
// test too.
func Race() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return true
			}
		}
	}
	return false
}

// GoBuild runs `go build -o out [flags] [-race] pkgs...` in the module
// root (out: a file for one package, a directory ending in / for more),
// with this machine's Go (GOTOOLCHAIN=local).
func GoBuild(root, out string, race bool, flags []string, pkgs ...string) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("cannot find the go command to build %s: %w", strings.Join(pkgs, " "), err)
	}
	args := append([]string{"build", "-o", out}, flags...)
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command(gobin, append(args, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, b)
	}
	return nil
}

// Binaries are padd and padctl built for the tests of one `go test` run:
// the test packages of a run that all start the real binaries share one
// build (RunShared), instead of linking them again in each package.
// Done removes what only this process used.
type Binaries struct {
	Padd, Padctl string
	Done         func()
}

// PaddForRun builds padd and padctl (with -race when race is set) once
// per `go test` run, in a directory every test package of that run finds
// (RunShared), and privately where the run cannot be told (a test binary
// started by hand, another system).
func PaddForRun(root string, race bool) (Binaries, error) {
	if dir, unlock, ok := RunShared(race); ok {
		defer unlock()
		padd, padctl := filepath.Join(dir, "padd"), filepath.Join(dir, "padctl")
		if _, err := os.Stat(filepath.Join(dir, "built")); err == nil {
			return Binaries{padd, padctl, func() {}}, nil
		}
		if _, _, err := BuildPadd(root, dir, race); err != nil {
			return Binaries{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, "built"), nil, 0o600); err != nil {
			return Binaries{}, err
		}
		return Binaries{padd, padctl, func() {}}, nil
	}
	dir, err := os.MkdirTemp("", "padd-testbin-")
	if err != nil {
		return Binaries{}, err
	}
	padd, padctl, err := BuildPadd(root, dir, race)
	if err != nil {
		os.RemoveAll(dir)
		return Binaries{}, err
	}
	return Binaries{padd, padctl, func() { os.RemoveAll(dir) }}, nil
}

// ModuleRoot is the directory of padd's go.mod, found upward from the
// working directory (a script's `go run ./scripts/...` runs from the
// module; `go test` from the package).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/padd/padd\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no padd go.mod above the working directory: run from the padd module")
		}
		dir = parent
	}
}

// BuildPadd builds padd and padctl into dir.
func BuildPadd(root, dir string, race bool) (padd, padctl string, err error) {
	padd, padctl = filepath.Join(dir, "padd"), filepath.Join(dir, "padctl")
	for bin, pkg := range map[string]string{padd: "./cmd/padd", padctl: "./cmd/padctl"} {
		if err := GoBuild(root, bin, race, nil, pkg); err != nil {
			return "", "", err
		}
	}
	return padd, padctl, nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Buffer collects a child's output while it runs; safe to read at any
// time.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
