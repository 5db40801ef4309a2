package mirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/padd/padd/model"
	"gopkg.in/yaml.v3"
)

// A mirrored file is YAML front matter between two "---" lines, then the
// item's content, byte for byte:
//
//	---
//	ref: TASK-12
//	title: Fix the login
//	fields:
//	  status: open
//	  estimate: 3
//	tags: [auth]
//	---
//	The content.
//
// fields holds the fields the collection's schema declares, typed by the
// schema (a number is a YAML number, a checkbox a boolean, a
// multi-select a list, a json field its JSON text). Undeclared and
// system fields (notes, decisions) stay in padd and out of the file.

// Bounds on a file the mirror reads: the content's own limit, plus room
// for front matter.
const (
	maxFrontMatter = 256 << 10
	// maxFileBytes allows the content's most characters at four bytes each.
	maxFileBytes = 4*(2<<20) + maxFrontMatter
	// maxNodes bounds the YAML nodes of the front matter (a flat map of
	// a schema's fields needs a few hundred at most).
	maxNodes = 20000
)

const delim = "---"

// Doc is a file's front matter and content, as parsed.
type Doc struct {
	Ref     string
	Title   string
	HasRef  bool
	Fields  map[string]any // typed by the schema; nil value clears the field
	Tags    []string
	Content string
}

// Render writes an item as its file's bytes.
func Render(ref, title string, fields map[string]any, tags []string, content string, schema model.Schema) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, k string, v *yaml.Node) {
		m.Content = append(m.Content, str(k), v)
	}
	add(root, "ref", str(ref))
	add(root, "title", str(title))
	fm := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range schema.Fields {
		if f.Computed {
			continue
		}
		v, ok := fields[f.Key]
		if !ok || v == nil {
			continue
		}
		n, err := valueNode(f, v)
		if err != nil {
			return nil, err
		}
		add(fm, f.Key, n)
	}
	if len(fm.Content) > 0 {
		add(root, "fields", fm)
	}
	if len(tags) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, t := range tags {
			seq.Content = append(seq.Content, str(t))
		}
		add(root, "tags", seq)
	}
	var buf bytes.Buffer
	buf.WriteString(delim + "\n")
	back := swapAstral(root)
	var text bytes.Buffer
	enc := yaml.NewEncoder(&text)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	enc.Close()
	if back != nil {
		_, _ = back.WriteString(&buf, text.String())
	} else {
		buf.Write(text.Bytes())
	}
	buf.WriteString(delim + "\n")
	buf.WriteString(content)
	return buf.Bytes(), nil
}

// swapAstral keeps the text of the front matter as written. yaml.v3
// writes a character beyond U+FFFF (an emoji, a rare ideograph) as a
// \U escape in a double-quoted string: valid YAML, but not the text the
// user wrote. Each such character in the tree's strings is swapped for a
// private-use character (U+E000-U+F8FF) the tree does not hold, which
// the encoder writes as it is; the replacer returned swaps them back in
// the encoded text. nil when there is nothing to swap, or more distinct
// characters than free private-use ones (then the escapes stay: the
// same text, read back).
func swapAstral(root *yaml.Node) *strings.Replacer {
	var scalars []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && utf8.ValidString(n.Value) {
			scalars = append(scalars, n)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	used := map[rune]bool{}
	astral := map[rune]rune{}
	for _, n := range scalars {
		for _, r := range n.Value {
			switch {
			case r > 0xffff:
				astral[r] = 0
			case r >= 0xe000 && r <= 0xf8ff:
				used[r] = true
			}
		}
	}
	if len(astral) == 0 {
		return nil
	}
	var pairs []string
	next := rune(0xe000)
	for r := range astral {
		for next <= 0xf8ff && used[next] {
			next++
		}
		if next > 0xf8ff {
			return nil
		}
		astral[r] = next
		pairs = append(pairs, string(next), string(r))
		next++
	}
	for _, n := range scalars {
		n.Value = strings.Map(func(r rune) rune {
			if p, ok := astral[r]; ok {
				return p
			}
			return r
		}, n.Value)
	}
	return strings.NewReplacer(pairs...)
}

func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.ContainsAny(s, "\n\r\t") || !utf8.ValidString(s) || s != strings.TrimSpace(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// valueNode is a stored field value as YAML, typed by its field.
func valueNode(f model.FieldDef, v any) (*yaml.Node, error) {
	switch f.Type {
	case model.TypeNumber:
		if s := fmt.Sprint(v); isNumber(s) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}, nil
		}
	case model.TypeCheckbox:
		if b, ok := v.(bool); ok {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}, nil
		}
	case model.TypeMultiSelect, model.TypeMultiRelation:
		if l, ok := v.([]any); ok {
			seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			all := true
			for _, e := range l {
				s, ok := e.(string)
				all = all && ok
				seq.Content = append(seq.Content, str(s))
			}
			if all {
				return seq, nil
			}
		}
	case model.TypeJSON:
	default:
		if s, ok := v.(string); ok {
			return str(s), nil
		}
	}
	// Anything else (a json field, or a value its type does not expect)
	// is its JSON text, which reads back as the same value.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	n := str(string(b))
	n.Style = yaml.SingleQuotedStyle
	return n, nil
}

// isNumber reports whether s is a JSON number, the text storage keeps.
func isNumber(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	var n json.Number
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return false
	}
	return string(n) == s
}

// ParseError is a file the mirror cannot apply, and why.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

func bad(format string, args ...any) error { return &ParseError{Msg: fmt.Sprintf(format, args...)} }

// Split cuts a file into its front matter and content. A file with no
// front matter is all content.
func Split(b []byte) (front []byte, content []byte, err error) {
	if len(b) > maxFileBytes {
		return nil, nil, bad("the file is %d bytes, more than the %d a mirror reads", len(b), maxFileBytes)
	}
	first, rest, ok := cutLine(b)
	if !ok || string(bytes.TrimRight(first, " \t\r")) != delim {
		return nil, b, nil
	}
	for off := 0; ; {
		line, next, more := cutLine(rest[off:])
		if string(bytes.TrimRight(line, " \t\r")) == delim {
			return rest[:off], rest[off+len(rest[off:])-len(next):], nil
		}
		if !more {
			return nil, nil, bad("the front matter opened with --- has no closing --- line")
		}
		off += len(rest[off:]) - len(next)
		if off > maxFrontMatter {
			return nil, nil, bad("the front matter is longer than %d bytes", maxFrontMatter)
		}
	}
}

// cutLine returns b's first line (without its newline) and the rest;
// more is false when b has no newline.
func cutLine(b []byte) (line, rest []byte, more bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// Parse reads a file against its collection's schema. It refuses what no
// write door would take in the shape of the file (an unknown field, a
// value of the wrong type); the domain's own checks (a select's options,
// required fields) are storage's, as for every door.
func Parse(b []byte, schema model.Schema) (*Doc, error) {
	if !utf8.Valid(b) {
		return nil, bad("the file is not UTF-8 text")
	}
	front, content, err := Split(b)
	if err != nil {
		return nil, err
	}
	d := &Doc{Content: string(content)}
	if len(front) == 0 {
		return d, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, bad("the front matter is not valid YAML: %s", yamlMsg(err))
	}
	if doc.Kind == 0 { // empty front matter
		return d, nil
	}
	if n := countNodes(&doc, 0); n > maxNodes {
		return nil, bad("the front matter has more than %d YAML nodes", maxNodes)
	}
	fileLines(&doc)
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, bad("the front matter is not a map of keys to values")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, bad("line %d: a front matter key must be a plain word", k.Line)
		}
		if seen[k.Value] {
			return nil, bad("line %d: %s appears twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "ref":
			if d.Ref, err = scalar(v, "ref"); err != nil {
				return nil, err
			}
			d.HasRef = d.Ref != ""
		case "title":
			if d.Title, err = scalar(v, "title"); err != nil {
				return nil, err
			}
		case "tags":
			if d.Tags, err = strList(v, "tags"); err != nil {
				return nil, err
			}
		case "fields":
			if d.Fields, err = parseFields(v, schema); err != nil {
				return nil, err
			}
		default:
			return nil, bad("line %d: %q is not a front matter key (ref, title, fields, tags)", k.Line, k.Value)
		}
	}
	if d.Fields == nil {
		d.Fields = map[string]any{}
	}
	return d, nil
}

func yamlMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// fileLines makes the nodes' line numbers the file's: the front matter
// starts on the file's second line.
func fileLines(n *yaml.Node) {
	n.Line++
	for _, c := range n.Content {
		fileLines(c)
	}
}

func countNodes(n *yaml.Node, acc int) int {
	acc++
	for _, c := range n.Content {
		if acc > maxNodes {
			return acc
		}
		acc = countNodes(c, acc)
	}
	return acc
}

func scalar(v *yaml.Node, key string) (string, error) {
	if v.Kind == yaml.AliasNode {
		return "", bad("line %d: %s: YAML aliases are not read", v.Line, key)
	}
	if v.Kind != yaml.ScalarNode {
		return "", bad("line %d: %s must be a single value", v.Line, key)
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

func strList(v *yaml.Node, key string) ([]string, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, bad("line %d: %s must be a list", v.Line, key)
	}
	out := make([]string, 0, len(v.Content))
	for _, e := range v.Content {
		s, err := scalar(e, key)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// parseFields reads the fields map, each value by its declared type.
// Every declared field the file leaves out is cleared (nil).
func parseFields(v *yaml.Node, schema model.Schema) (map[string]any, error) {
	out := map[string]any{}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return out, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, bad("line %d: fields must be a map of field keys to values", v.Line)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, n := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, bad("line %d: a field key must be a plain word", k.Line)
		}
		if _, dup := out[k.Value]; dup {
			return nil, bad("line %d: field %s appears twice", k.Line, k.Value)
		}
		f, ok := schema.Field(k.Value)
		if !ok || f.Computed {
			return nil, bad("line %d: field %q is not declared by this collection", k.Line, k.Value)
		}
		val, err := fieldValue(f, n)
		if err != nil {
			return nil, err
		}
		out[k.Value] = val
	}
	return out, nil
}

func fieldValue(f model.FieldDef, n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		return nil, bad("line %d: %s: YAML aliases are not read", n.Line, f.Key)
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	switch f.Type {
	case model.TypeNumber:
		if n.Kind != yaml.ScalarNode || !isYAMLNumber(n) {
			return nil, bad("line %d: %s is a number field, not %q", n.Line, f.Key, n.Value)
		}
		return json.Number(canonNumber(n.Value)), nil
	case model.TypeCheckbox:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return nil, bad("line %d: %s is a checkbox field: true or false, not %q", n.Line, f.Key, n.Value)
		}
		return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", nil
	case model.TypeMultiSelect, model.TypeMultiRelation:
		l, err := strList(n, f.Key)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, nil
	case model.TypeJSON:
		s, err := scalar(n, f.Key)
		if err != nil {
			return nil, bad("line %d: %s is a json field: write its JSON text as a quoted string", n.Line, f.Key)
		}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			return nil, bad("line %d: %s is a json field, and its text is not JSON", n.Line, f.Key)
		}
		return v, nil
	default:
		return scalar(n, f.Key)
	}
}

// isYAMLNumber accepts YAML's ints and floats that are finite decimals.
func isYAMLNumber(n *yaml.Node) bool {
	if n.Tag != "!!int" && n.Tag != "!!float" {
		return false
	}
	return isNumber(canonNumber(n.Value))
}

// canonNumber is a YAML decimal as JSON number text ("+1" is "1"); hex,
// octal, ".5" and infinities stay as they are, and are refused.
func canonNumber(s string) string {
	return strings.TrimPrefix(s, "+")
}

// PeekRef is the ref a file's front matter names, "" when none can be
// read.
func PeekRef(b []byte) string {
	front, _, err := Split(b)
	if err != nil || len(front) == 0 {
		return ""
	}
	var v struct {
		Ref string `yaml:"ref"`
	}
	if yaml.Unmarshal(front, &v) != nil {
		return ""
	}
	return v.Ref
}
