// Package artifact writes and reads an item artifact (pad-inventory
// ITM-19): one playbook or convention as portable text, YAML front
// matter (its kind, title, the kind's fields and a provenance block)
// between "---" fences, then the body. Read as hostile input: no YAML
// anchors or aliases, bounded depth and nodes.
package artifact

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/padd/padd/api"
)

// FormatVersion is the artifact format padd writes and reads.
const FormatVersion = 1

// Doc kinds, and the collections (by slug) whose items are them.
const (
	Playbook   = "playbook"
	Convention = "convention"
)

// KindOfCollection is the artifact kind of a collection's items,
// or "" when its items are not artifacts.
func KindOfCollection(slug string) string {
	switch slug {
	case "playbooks":
		return Playbook
	case "conventions":
		return Convention
	}
	return ""
}

// Collection is the collection slug that takes kind's artifacts.
func Collection(kind string) string {
	switch kind {
	case Playbook:
		return "playbooks"
	case Convention:
		return "conventions"
	}
	return ""
}

// FieldKeys are the fields an artifact of kind carries.
func FieldKeys(kind string) []string {
	switch kind {
	case Playbook:
		return []string{"status", "trigger", "scope", "invocation_slug", "arguments"}
	case Convention:
		return []string{"status", "trigger", "scope", "priority", "role"}
	}
	return nil
}

// Provenance says where an artifact came from.
type Provenance struct {
	Workspace     string `yaml:"workspace" json:"workspace"`
	ExportedAt    string `yaml:"exported_at" json:"exported_at"`
	Author        string `yaml:"author" json:"author"`
	FormatVersion int    `yaml:"format_version" json:"format_version"`
}

// Doc is a decoded artifact.
type Doc struct {
	Kind       string
	Title      string
	Fields     map[string]any
	Body       string
	Provenance Provenance
}

type frontMatter struct {
	Kind           string           `yaml:"pad_artifact"`
	FormatVersion  int              `yaml:"format_version"`
	Title          string           `yaml:"title"`
	Status         string           `yaml:"status,omitempty"`
	Trigger        string           `yaml:"trigger,omitempty"`
	Scope          string           `yaml:"scope,omitempty"`
	InvocationSlug string           `yaml:"invocation_slug,omitempty"`
	Arguments      []map[string]any `yaml:"arguments,omitempty"`
	Priority       string           `yaml:"priority,omitempty"`
	Role           string           `yaml:"role,omitempty"`
	Provenance     Provenance       `yaml:"provenance"`
}

// Encode writes a as artifact text.
func Encode(a Doc) ([]byte, error) {
	keys := FieldKeys(a.Kind)
	if keys == nil {
		return nil, fmt.Errorf("unknown artifact kind %q", a.Kind)
	}
	fm := frontMatter{Kind: a.Kind, FormatVersion: FormatVersion, Title: a.Title, Provenance: a.Provenance}
	if fm.Provenance.FormatVersion == 0 {
		fm.Provenance.FormatVersion = FormatVersion
	}
	str := func(k string) string {
		switch v := a.Fields[k].(type) {
		case nil:
			return ""
		case string:
			return v
		default:
			return fmt.Sprint(v)
		}
	}
	for _, k := range keys {
		switch k {
		case "status":
			fm.Status = str(k)
		case "trigger":
			fm.Trigger = str(k)
		case "scope":
			fm.Scope = str(k)
		case "invocation_slug":
			fm.InvocationSlug = str(k)
		case "priority":
			fm.Priority = str(k)
		case "role":
			fm.Role = str(k)
		case "arguments":
			if xs, ok := a.Fields[k].([]any); ok {
				for _, x := range xs {
					if m, ok := x.(map[string]any); ok {
						fm.Arguments = append(fm.Arguments, m)
					}
				}
			}
		}
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&fm); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	buf.WriteString("---\n\n")
	buf.WriteString(strings.TrimRight(a.Body, "\n") + "\n")
	return buf.Bytes(), nil
}

// Error is why artifact text was refused: Code is the error code
// (malformed_artifact, unknown_kind, unsupported_version, unsafe_yaml).
type Error struct{ Code, Message string }

func (e *Error) Error() string { return e.Message }

// Limits of an artifact's front matter: no anchors or aliases (a YAML
// alias bomb), bounded depth and nodes.
const (
	maxDepth = 32
	maxNodes = 10000
)

// Decode reads artifact text.
func Decode(data []byte) (*Doc, error) {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	bad := func(format string, args ...any) error {
		return &Error{Code: api.CodeMalformedArtifact, Message: fmt.Sprintf(format, args...)}
	}
	if !strings.HasPrefix(s, "---\n") {
		return nil, bad("an artifact starts with a --- line")
	}
	rest := s[4:]
	end, off := -1, 0
	for off <= len(rest) {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t\r") == "---" {
			end = off
			break
		}
		nl := strings.IndexByte(rest[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return nil, bad("the artifact's front matter has no closing --- line")
	}
	front := rest[:end]
	if strings.TrimSpace(front) == "" {
		return nil, bad("the artifact's front matter is empty")
	}
	body := rest[end:]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 {
		body = body[nl+1:]
	} else {
		body = ""
	}
	body = strings.TrimPrefix(body, "\n")

	var root yaml.Node
	if err := yaml.Unmarshal([]byte(front), &root); err != nil {
		return nil, bad("the artifact's front matter is not YAML: %v", err)
	}
	nodes := 0
	if err := guardYAML(&root, 0, &nodes); err != nil {
		return nil, err
	}
	var fm frontMatter
	if err := root.Decode(&fm); err != nil {
		return nil, bad("the artifact's front matter is not an artifact's: %v", err)
	}
	keys := FieldKeys(fm.Kind)
	if keys == nil {
		return nil, &Error{Code: api.CodeUnknownKind, Message: fmt.Sprintf("pad_artifact %q is not a kind padd knows (playbook, convention)", fm.Kind)}
	}
	if fm.FormatVersion != FormatVersion {
		return nil, &Error{Code: api.CodeUnsupportedVersion, Message: fmt.Sprintf("artifact format_version %d is not one padd reads (%d)", fm.FormatVersion, FormatVersion)}
	}
	a := &Doc{Kind: fm.Kind, Title: fm.Title, Fields: map[string]any{}, Body: body, Provenance: fm.Provenance}
	put := func(k, v string) {
		if v != "" {
			a.Fields[k] = v
		}
	}
	for _, k := range keys {
		switch k {
		case "status":
			put(k, fm.Status)
		case "trigger":
			put(k, fm.Trigger)
		case "scope":
			put(k, fm.Scope)
		case "invocation_slug":
			put(k, fm.InvocationSlug)
		case "priority":
			put(k, fm.Priority)
		case "role":
			put(k, fm.Role)
		case "arguments":
			if len(fm.Arguments) > 0 {
				args := make([]any, len(fm.Arguments))
				for i, m := range fm.Arguments {
					args[i] = m
				}
				a.Fields[k] = args
			}
		}
	}
	return a, nil
}

func guardYAML(n *yaml.Node, depth int, nodes *int) error {
	unsafe := func(why string) error {
		return &Error{Code: api.CodeUnsafeYAML, Message: "the artifact's front matter was refused: " + why}
	}
	if depth > maxDepth {
		return unsafe(fmt.Sprintf("nested deeper than %d", maxDepth))
	}
	if *nodes++; *nodes > maxNodes {
		return unsafe(fmt.Sprintf("more than %d nodes", maxNodes))
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return unsafe("anchors and aliases are not allowed")
	}
	for _, c := range n.Content {
		if err := guardYAML(c, depth+1, nodes); err != nil {
			return err
		}
	}
	return nil
}

// Footer is the line an imported artifact's body ends with,
// saying where it came from ("" when the provenance names nothing).
func Footer(p Provenance) string {
	if p.Workspace == "" && p.Author == "" && p.ExportedAt == "" {
		return ""
	}
	f := "\n\n---\n\n_Imported artifact"
	if p.Workspace != "" {
		f += fmt.Sprintf(" from workspace `%s`", p.Workspace)
	}
	if p.Author != "" {
		f += fmt.Sprintf(", exported by %s", p.Author)
	}
	if p.ExportedAt != "" {
		f += fmt.Sprintf(" at %s", p.ExportedAt)
	}
	return f + "._\n"
}
