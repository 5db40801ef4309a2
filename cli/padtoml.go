package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/padd/padd/api"
)

// PadTomlName is the file that links a directory tree to a workspace
// (api.FindPadToml finds it; padctl also writes it).
const PadTomlName = api.PadTomlName

// padToml is a .pad.toml that names a workspace.
type padToml = api.PadToml

// findPadToml is api.FindPadToml with a broken file reported as a coded
// error (bad_pad_toml) and a hint.
func findPadToml(dir string) (*padToml, error) {
	p, err := api.FindPadToml(dir)
	return p, badPadToml(err)
}

// readPadToml is api.ReadPadToml, errors coded likewise.
func readPadToml(path string) (*padToml, error) {
	p, err := api.ReadPadToml(path)
	return p, badPadToml(err)
}

func badPadToml(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: "bad_pad_toml", Message: err.Error(), Exit: ExitError, Err: err,
		Hint: "fix or remove the file; it should hold a line like: workspace = \"my-project\""}
}

// writePadToml links dir to a workspace. Other keys of an existing file
// (url, agent_name, [push] ...) are kept; comments are not, as the TOML
// encoder cannot carry them.
func writePadToml(dir, workspace string) (string, error) {
	if !utf8.ValidString(workspace) {
		// TOML is UTF-8: such a value would be written, then the file
		// would no longer read (fuzzing found it).
		return "", failf("bad_workspace", "name the workspace by its slug", "workspace %q is not valid UTF-8", workspace)
	}
	path := filepath.Join(dir, PadTomlName)
	doc := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if _, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
			return "", failf("bad_pad_toml", "fix or remove the file, then run `padctl init` again",
				"%s is not valid TOML: %v", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	// The reader matches keys without regard to case (as TOML decoding
	// into a struct does), so a "Workspace" line would still name the
	// workspace beside the new one: the link replaces it.
	for k := range doc {
		if strings.EqualFold(k, "workspace") {
			delete(doc, k)
		}
	}
	doc["workspace"] = workspace
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}
