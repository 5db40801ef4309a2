//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
)

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"v1.2.3", "v1.2.3", 0}, {"v1.2.3", "v1.10.0", -1}, {"v2.0.0", "v1.9.9", 1},
		{"v1.0.0-rc.1", "v1.0.0", -1}, {"v1.0.0", "v1.0.0-4-gabc123", -1}, {"v1.0.1", "v1.0.0-4-gabc123", 1},
		{"dev", "v1.0.0", 0}, {"v1.0", "v1.0.0", 0}, {"abc1234", "v1.0.0", 0},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := compareVersions(c.b, c.a); got != -c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestUpgradeLeavesNoStaleDaemon: a padd stamped v0.9.0 runs, and the
// binaries are upgraded to v1.0.0 beside it. The new padctl says once
// (not on the next command) that padd is older and what fixes it; that
// command, `padctl daemon restart`, runs the new padd, and the notice
// stops.
func TestUpgradeLeavesNoStaleDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the binaries")
	}
	old, upgraded := t.TempDir(), t.TempDir()
	stamp := func(v string) []string { return []string{"-ldflags", "-X github.com/padd/padd/api.Version=" + v} }
	if err := testbin.GoBuild("..", old+"/", false, stamp("v0.9.0"), "./cmd/padd"); err != nil {
		t.Fatal(err)
	}
	if err := testbin.GoBuild("..", upgraded+"/", false, stamp("v1.0.0"), "./cmd/padd", "./cmd/padctl"); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	stopPaddOf(t, home)
	if _, _, err := launch.Connect(context.Background(), launch.ConnectOptions{DataDir: home, Start: true, Padd: filepath.Join(old, "padd")}); err != nil {
		t.Fatal(err)
	}
	padctl := filepath.Join(upgraded, "padctl")
	run := func(args ...string) result {
		t.Helper()
		r := runBin(t, padctl, testEnv(home), home, "", args...)
		if r.code != 0 {
			t.Fatalf("padctl %s: %s", strings.Join(args, " "), r)
		}
		return r
	}
	r := run("workspace", "list")
	if !strings.Contains(r.stderr, "padd v0.9.0 is older than padctl v1.0.0") || !strings.Contains(r.stderr, "`padctl daemon restart`") {
		t.Errorf("no notice of the older padd:\n%s", r)
	}
	if r := run("workspace", "list"); strings.Contains(r.stderr, "older") {
		t.Errorf("the notice came again for the same padd:\n%s", r)
	}
	run("daemon", "restart")
	info, err := launch.ReadInfo(home)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != "v1.0.0" {
		t.Errorf("after the restart padd is %s, want v1.0.0", info.Version)
	}
	if r := run("workspace", "list"); strings.Contains(r.stderr, "warning") {
		t.Errorf("a warning after the restart:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(home, versionNoticeFile)); err != nil {
		t.Errorf("no notice marker: %v", err)
	}
}
