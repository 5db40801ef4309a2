// Package atomicfile writes a file so that a reader sees the old content
// or the new, never a part: daemon.json, the token, MCP clients' configs.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with mode 0600 through a temporary
// file and a rename, so readers never see half a file.
func Write(path string, data []byte) error { return WriteMode(path, data, 0o600) }

// WriteMode is Write with the file's mode perm: an edit of a file that is
// someone else's (an MCP client's config) keeps the mode it had.
func WriteMode(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
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
