package api

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// PadTomlName is the file that links a directory tree to a workspace, in
// Pad's format: workspace = "slug" (and optionally url, agent_name).
const PadTomlName = ".pad.toml"

// PadToml is a .pad.toml that names a workspace.
type PadToml struct {
	Path      string `toml:"-"`
	Workspace string `toml:"workspace"`
	AgentName string `toml:"agent_name"`
}

// FindPadToml walks from dir up to the root and returns the nearest
// .pad.toml that names a workspace, or nil when there is none. A file
// without `workspace` is skipped, as Pad does; one that is not valid TOML
// is an error, because guessing past it would silently pick the wrong
// workspace.
func FindPadToml(dir string) (*PadToml, error) {
	return WalkPadToml(dir, nil)
}

// WalkPadToml is FindPadToml that calls visit with each directory before
// it reads that directory's .pad.toml, so a caller can watch what the
// answer depends on.
func WalkPadToml(dir string, visit func(dir string)) (*PadToml, error) {
	if dir == "" {
		return nil, nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		if visit != nil {
			visit(dir)
		}
		p, err := ReadPadToml(filepath.Join(dir, PadTomlName))
		if err != nil {
			return nil, err
		}
		if p != nil && p.Workspace != "" {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// ReadPadToml reads one .pad.toml; nil when there is none (or it cannot
// be read, as a directory we may not enter says nothing about links).
func ReadPadToml(path string) (*PadToml, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p PadToml
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&p)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid TOML (%v); fix or remove it, it should hold a line like: workspace = \"my-project\"", path, err)
	}
	if a, b, ok := sameKey(md.Keys()); ok {
		// The decoder matches keys to fields without regard to case, and
		// which of the two it keeps is left to chance.
		return nil, fmt.Errorf("%s has both %q and %q, which padd reads as one key; keep one of them", path, a, b)
	}
	p.Path = path
	return &p, nil
}

// sameKey finds two different top-level keys that both read as one of
// PadToml's fields.
func sameKey(keys []toml.Key) (string, string, bool) {
	seen := map[string]string{} // field -> the key that set it
	for _, k := range keys {
		if len(k) != 1 {
			continue
		}
		for _, field := range []string{"workspace", "agent_name"} {
			if !strings.EqualFold(k[0], field) {
				continue
			}
			if first, ok := seen[field]; ok && first != k[0] {
				return first, k[0], true
			}
			seen[field] = k[0]
		}
	}
	return "", "", false
}
