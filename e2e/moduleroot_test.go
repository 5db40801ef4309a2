package e2e

import (
	"fmt"
	"os"
	"path/filepath"
)

// moduleRoot is the directory holding go.mod above this package.
func moduleRoot() (string, error) {
	dir, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("no go.mod in %s: run the e2e tests from the module (go test ./e2e/)", dir)
	}
	return dir, nil
}
