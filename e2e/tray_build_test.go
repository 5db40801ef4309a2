package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPadtrayBuildsForWindows cross-compiles padtray for Windows, where
// systray and the notifications are pure Go (macOS needs cgo: see the
// Makefile's padtray note).
func TestPadtrayBuildsForWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("a cross-compile: not in -short")
	}
	t.Parallel()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, "./cmd/padtray")
	cmd.Dir = root
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOOS" && k != "GOARCH" && k != "CGO_ENABLED" && k != "GOFLAGS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=windows go build ./cmd/padtray: %v\n%s", err, out)
	}
}
