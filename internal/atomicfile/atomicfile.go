// Package atomicfile writes a file so that a reader sees the old content
// or the new, never a part: daemon.json, the token, MCP clients' configs.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with mode 0600 through a temporary
// file and a rename, so readers never see half a file.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
