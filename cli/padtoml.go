package cli

import (
	"errors"

	"github.com/padd/padd/padtoml"
)

// PadTomlName is the file that links a directory tree to a workspace
// (padtoml.Find finds it; padctl also writes it).
const PadTomlName = padtoml.FileName

// padToml is a .pad.toml that names a workspace.
type padToml = padtoml.File

// findPadToml is padtoml.Find with a broken file reported as a coded
// error (bad_pad_toml) and a hint.
func findPadToml(dir string) (*padToml, error) {
	p, err := padtoml.Find(dir)
	return p, badPadToml(err)
}

// readPadToml is padtoml.Read, errors coded likewise.
func readPadToml(path string) (*padToml, error) {
	p, err := padtoml.Read(path)
	return p, badPadToml(err)
}

func badPadToml(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: codeBadPadToml, Message: err.Error(), Exit: ExitError, Err: err,
		Hint: "fix or remove the file; it should hold a line like: workspace = \"my-project\""}
}

// writePadToml is padtoml.Write with its refusals coded: a workspace
// name that is not UTF-8 (bad_workspace) and an existing file that is
// not TOML (bad_pad_toml).
func writePadToml(dir, workspace string) (string, error) {
	path, err := padtoml.Write(dir, workspace)
	var nt *padtoml.NotTOMLError
	switch {
	case errors.Is(err, padtoml.ErrWorkspaceNotUTF8):
		return "", failf(codeBadWorkspace, "name the workspace by its slug", "workspace %q is not valid UTF-8", workspace)
	case errors.As(err, &nt):
		return "", failf(codeBadPadToml, "fix or remove the file, then run `padctl init` again", "%s", nt.Error())
	}
	return path, err
}
