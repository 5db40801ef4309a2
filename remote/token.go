package remote

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/padd/padd/internal/atomicfile"
)

// Tokens of remote servers live in <data dir>/remotes/<name>.token, mode
// 0600 in a 0700 folder, and nowhere else: not in daemon.json, not in a
// log. A token is kept as the user gave it (Pad's pad_… tokens as is).

// tokensDir is the folder under padd's data directory.
const tokensDir = "remotes"

// maxTokenBytes bounds a token file read back.
const maxTokenBytes = 4 << 10

// tokenPath is the file of the token called name; name is one plain
// path element of letters, digits, '.', '_' and '-', not starting with
// '.', so it can never point outside the folder.
func tokenPath(dataDir, name string) (string, error) {
	if name == "" || len(name) > 128 || name[0] == '.' {
		return "", fmt.Errorf("remote: bad token name %q", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return "", fmt.Errorf("remote: bad token name %q", name)
		}
	}
	if dataDir == "" {
		return "", errors.New("remote: no data directory")
	}
	return filepath.Join(dataDir, tokensDir, name+".token"), nil
}

// checkToken refuses what cannot be sent in an Authorization header. The
// error never repeats the token.
func checkToken(token string) error {
	if token == "" {
		return errors.New("remote: empty token")
	}
	if len(token) > maxTokenBytes {
		return errors.New("remote: the token is too long")
	}
	for _, r := range token {
		if r <= ' ' || r == 0x7f {
			return errors.New("remote: the token holds a space or a control character")
		}
	}
	return nil
}

// SaveToken writes token as name under dataDir (atomically, 0600). A
// trailing line break (from a file or a prompt) is dropped.
func SaveToken(dataDir, name, token string) error {
	path, err := tokenPath(dataDir, name)
	if err != nil {
		return err
	}
	token = strings.TrimRight(token, "\r\n")
	if err := checkToken(token); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("remote: token folder: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("remote: token folder: %w", err)
	}
	if err := atomicfile.Write(path, []byte(token+"\n")); err != nil {
		return fmt.Errorf("remote: writing the token %s: %w", name, err)
	}
	return nil
}

// LoadToken reads the token saved as name.
func LoadToken(dataDir, name string) (string, error) {
	path, err := tokenPath(dataDir, name)
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("remote: reading the token %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+3))
	if err != nil {
		return "", fmt.Errorf("remote: reading the token %s: %w", name, err)
	}
	token := strings.TrimRight(string(data), "\r\n")
	if err := checkToken(token); err != nil {
		return "", fmt.Errorf("%w (in %s)", err, path)
	}
	return token, nil
}

// DeleteToken removes the token saved as name; a missing one is no error.
func DeleteToken(dataDir, name string) error {
	path, err := tokenPath(dataDir, name)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remote: removing the token %s: %w", name, err)
	}
	return nil
}
