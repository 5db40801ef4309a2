// Package padtoml reads and writes .pad.toml, the file that links a
// directory tree to a Pad workspace, and finds the one that applies to a
// directory (Find, or a Finder that remembers its answers and watches
// the directories they came from).
package padtoml

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// FileName is the file that links a directory tree to a workspace, in
// Pad's format: workspace = "slug" (and optionally url, agent_name).
const FileName = ".pad.toml"

// File is a .pad.toml that names a workspace.
type File struct {
	Path      string `toml:"-"`
	Workspace string `toml:"workspace"`
	AgentName string `toml:"agent_name"`
}

// Find walks from dir up to the root and returns the nearest
// .pad.toml that names a workspace, or nil when there is none. A file
// without `workspace` is skipped, as Pad does; one that is not valid TOML
// is an error, because guessing past it would silently pick the wrong
// workspace.
func Find(dir string) (*File, error) {
	return Walk(dir, nil)
}

// Walk is Find that calls visit with each directory before
// it reads that directory's .pad.toml, so a caller can watch what the
// answer depends on.
func Walk(dir string, visit func(dir string)) (*File, error) {
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
		p, err := Read(filepath.Join(dir, FileName))
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

// Read reads one .pad.toml; nil when there is none (or it cannot
// be read, as a directory we may not enter says nothing about links).
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p File
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
// File's fields.
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

// ErrWorkspaceNotUTF8 refuses to link to a workspace name that is not
// UTF-8: TOML is, so the file would be written and then no longer read.
var ErrWorkspaceNotUTF8 = errors.New("the workspace name is not valid UTF-8")

// NotTOMLError is an existing .pad.toml that Write will not rewrite,
// because it could not keep what the file holds.
type NotTOMLError struct {
	Path string
	Err  error
}

func (e *NotTOMLError) Error() string { return fmt.Sprintf("%s is not valid TOML: %v", e.Path, e.Err) }
func (e *NotTOMLError) Unwrap() error { return e.Err }

// Write links dir to a workspace and returns the file's path. Other keys
// of an existing file (url, agent_name, [push] ...) are kept; comments
// are not, as the TOML encoder cannot carry them.
func Write(dir, workspace string) (string, error) {
	if !utf8.ValidString(workspace) {
		return "", ErrWorkspaceNotUTF8
	}
	path := filepath.Join(dir, FileName)
	doc := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if _, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
			return "", &NotTOMLError{Path: path, Err: err}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	// Read matches keys without regard to case (as TOML decoding into a
	// struct does), so a "Workspace" line would still name the workspace
	// beside the new one: the link replaces it.
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
