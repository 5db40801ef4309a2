package mcpinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Client config files are edited by splicing text, never by decoding and
// re-encoding: a decode loses key order, formatting and (in VS Code's
// JSONC) comments, and the user's file is theirs. The scanner below
// understands JSON plus what JSONC adds (// and /* */ comments, trailing
// commas) just well enough to find one object member's byte range.

// jsonMember is one member of an object, by byte offsets into the source.
type jsonMember struct {
	key        string
	keyStart   int // the opening quote of the key
	valueStart int
	valueEnd   int // one past the value
	comma      int // offset of the comma after the value, -1 if none
}

// jsonObject is an object's members and its braces.
type jsonObject struct {
	open, close int // offsets of '{' and '}'
	members     []jsonMember
}

type jsonScanner struct{ src []byte }

func (s jsonScanner) errorf(at int, format string, args ...any) error {
	line := 1 + bytes.Count(s.src[:min(at, len(s.src))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// skip passes whitespace and comments.
func (s jsonScanner) skip(i int) (int, error) {
	for i < len(s.src) {
		switch c := s.src[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(s.src) && s.src[i+1] == '/':
			for i < len(s.src) && s.src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s.src) && s.src[i+1] == '*':
			end := bytes.Index(s.src[i+2:], []byte("*/"))
			if end < 0 {
				return 0, s.errorf(i, "unterminated /* comment")
			}
			i += end + 4
		default:
			return i, nil
		}
	}
	return i, nil
}

// str passes a string starting at its quote and returns its end.
func (s jsonScanner) str(i int) (int, error) {
	for j := i + 1; j < len(s.src); j++ {
		switch s.src[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		case '\n':
			return 0, s.errorf(j, "newline inside a string")
		}
	}
	return 0, s.errorf(i, "unterminated string")
}

// value passes one value starting at i.
func (s jsonScanner) value(i int) (int, error) {
	if i >= len(s.src) {
		return 0, s.errorf(i, "a value is missing")
	}
	switch s.src[i] {
	case '"':
		return s.str(i)
	case '{':
		o, err := s.object(i)
		if err != nil {
			return 0, err
		}
		return o.close + 1, nil
	case '[':
		j := i + 1
		for {
			var err error
			if j, err = s.skip(j); err != nil {
				return 0, err
			}
			if j < len(s.src) && s.src[j] == ']' {
				return j + 1, nil
			}
			if j, err = s.value(j); err != nil {
				return 0, err
			}
			if j, err = s.skip(j); err != nil {
				return 0, err
			}
			if j < len(s.src) && s.src[j] == ',' {
				j++
				continue
			}
			if j < len(s.src) && s.src[j] == ']' {
				return j + 1, nil
			}
			return 0, s.errorf(j, "expected , or ] in an array")
		}
	}
	j := i
	for j < len(s.src) && strings.IndexByte("+-.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", s.src[j]) >= 0 {
		j++
	}
	if j == i {
		return 0, s.errorf(i, "unexpected %q", s.src[i])
	}
	return j, nil
}

// object scans the object whose '{' is at i.
func (s jsonScanner) object(i int) (*jsonObject, error) {
	o := &jsonObject{open: i}
	j := i + 1
	for {
		var err error
		if j, err = s.skip(j); err != nil {
			return nil, err
		}
		if j >= len(s.src) {
			return nil, s.errorf(j, "unterminated object")
		}
		if s.src[j] == '}' {
			o.close = j
			return o, nil
		}
		if s.src[j] != '"' {
			return nil, s.errorf(j, "expected a member name")
		}
		m := jsonMember{keyStart: j, comma: -1}
		end, err := s.str(j)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(s.src[j:end], &m.key); err != nil {
			return nil, s.errorf(j, "bad member name: %v", err)
		}
		if j, err = s.skip(end); err != nil {
			return nil, err
		}
		if j >= len(s.src) || s.src[j] != ':' {
			return nil, s.errorf(j, "expected :")
		}
		if m.valueStart, err = s.skip(j + 1); err != nil {
			return nil, err
		}
		if m.valueEnd, err = s.value(m.valueStart); err != nil {
			return nil, err
		}
		if j, err = s.skip(m.valueEnd); err != nil {
			return nil, err
		}
		if j < len(s.src) && s.src[j] == ',' {
			m.comma = j
			j++
		}
		o.members = append(o.members, m)
		if m.comma < 0 {
			if j, err = s.skip(j); err != nil {
				return nil, err
			}
			if j >= len(s.src) || s.src[j] != '}' {
				return nil, s.errorf(j, "expected , or }")
			}
		}
	}
}

func (o *jsonObject) member(key string) *jsonMember {
	for i := range o.members {
		if o.members[i].key == key {
			return &o.members[i]
		}
	}
	return nil
}

// topObject scans the document's top-level object.
func (s jsonScanner) topObject() (*jsonObject, error) {
	i, err := s.skip(0)
	if err != nil {
		return nil, err
	}
	if i >= len(s.src) || s.src[i] != '{' {
		return nil, s.errorf(i, "the file is not a JSON object")
	}
	o, err := s.object(i)
	if err != nil {
		return nil, err
	}
	rest, err := s.skip(o.close + 1)
	if err != nil {
		return nil, err
	}
	if rest != len(s.src) {
		return nil, s.errorf(rest, "data after the top-level object")
	}
	return o, nil
}

// lineIndent is the whitespace before offset i on its line.
func (s jsonScanner) lineIndent(i int) string {
	start := bytes.LastIndexByte(s.src[:i], '\n') + 1
	j := start
	for j < i && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	return string(s.src[start:j])
}

// indentUnit guesses the file's indentation step from its first indented
// line; two spaces when it has none.
func (s jsonScanner) indentUnit() string {
	for _, line := range strings.Split(string(s.src), "\n") {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// memberIndent is the indentation of members inside o.
func (s jsonScanner) memberIndent(o *jsonObject) string {
	if len(o.members) > 0 {
		return s.lineIndent(o.members[0].keyStart)
	}
	return s.lineIndent(o.open) + s.indentUnit()
}

// render marshals v indented for a value placed at indent; with no unit,
// on one line.
func render(v any, indent, unit string) string {
	if unit == "" {
		b, _ := json.Marshal(v)
		return string(b)
	}
	b, _ := json.MarshalIndent(v, indent, unit)
	return string(b)
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

// compact reports an object written on one line (a minified file): what
// goes into it is written on one line too.
func (s jsonScanner) compact(o *jsonObject) bool {
	return len(o.members) > 0 && !bytes.ContainsRune(s.src[o.open:o.close], '\n')
}

// insertMember adds "key": value as the last member of o.
func (s jsonScanner) insertMember(o *jsonObject, key string, value any) []byte {
	if s.compact(o) {
		last := o.members[len(o.members)-1]
		return splice(s.src, last.valueEnd, last.valueEnd, ","+render(key, "", "")+":"+render(value, "", ""))
	}
	indent, unit := s.memberIndent(o), s.indentUnit()
	kv := render(key, "", "") + ": " + render(value, indent, unit)
	if len(o.members) == 0 {
		return splice(s.src, o.open+1, o.close, "\n"+indent+kv+"\n"+s.lineIndent(o.open))
	}
	last := o.members[len(o.members)-1]
	if last.comma >= 0 {
		// The file writes trailing commas (JSONC): keep its style.
		at := s.restOfLine(last.comma + 1)
		return splice(s.src, at, at, "\n"+indent+kv+",")
	}
	// The new member goes on its own line, after any comment that ends
	// the last member's line (the comment stays with what it describes).
	at := s.restOfLine(last.valueEnd)
	out := splice(s.src, at, at, "\n"+indent+kv)
	return splice(out, last.valueEnd, last.valueEnd, ",")
}

// restOfLine skips from i past spaces and a // comment that end the
// line, stopping before the newline; anything else stops it at i.
func (s jsonScanner) restOfLine(i int) int {
	j := i
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	if j+1 < len(s.src) && s.src[j] == '/' && s.src[j+1] == '/' {
		for j < len(s.src) && s.src[j] != '\n' {
			j++
		}
		return j
	}
	return i
}

// removeMember deletes one member and the comma that separated it.
func (s jsonScanner) removeMember(o *jsonObject, idx int) []byte {
	m := o.members[idx]
	prevEnd := o.open + 1
	if idx > 0 {
		p := o.members[idx-1]
		prevEnd = p.valueEnd
		if p.comma >= 0 {
			prevEnd = p.comma + 1
		}
	}
	switch {
	case len(o.members) == 1:
		return splice(s.src, o.open+1, o.close, "")
	case m.comma >= 0:
		return splice(s.src, prevEnd, m.comma+1, "")
	default:
		// The last member without a trailing comma: the previous
		// member's comma goes with it.
		return splice(s.src, o.members[idx-1].valueEnd, m.valueEnd, "")
	}
}

// setServer puts entry under serversKey.name, creating what is missing,
// replacing only that one member's value when it exists.
func setServer(src []byte, serversKey, name string, entry any) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return []byte(render(map[string]any{serversKey: map[string]any{name: entry}}, "", "  ") + "\n"), nil
	}
	s := jsonScanner{src}
	top, err := s.topObject()
	if err != nil {
		return nil, err
	}
	servers := top.member(serversKey)
	if servers == nil {
		return s.insertMember(top, serversKey, map[string]any{name: entry}), nil
	}
	if src[servers.valueStart] != '{' {
		return nil, s.errorf(servers.valueStart, "%q is not an object", serversKey)
	}
	obj, err := s.object(servers.valueStart)
	if err != nil {
		return nil, err
	}
	if m := obj.member(name); m != nil {
		if s.compact(obj) {
			return splice(src, m.valueStart, m.valueEnd, render(entry, "", "")), nil
		}
		return splice(src, m.valueStart, m.valueEnd, render(entry, s.lineIndent(m.keyStart), s.indentUnit())), nil
	}
	return s.insertMember(obj, name, entry), nil
}

// removeServer deletes serversKey.name; ok is false when it was not there.
func removeServer(src []byte, serversKey, name string) (out []byte, ok bool, err error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, false, nil
	}
	s := jsonScanner{src}
	top, err := s.topObject()
	if err != nil {
		return nil, false, err
	}
	servers := top.member(serversKey)
	if servers == nil || src[servers.valueStart] != '{' {
		return src, false, nil
	}
	obj, err := s.object(servers.valueStart)
	if err != nil {
		return nil, false, err
	}
	for i := range obj.members {
		if obj.members[i].key == name {
			return s.removeMember(obj, i), true, nil
		}
	}
	return src, false, nil
}

// plainJSON drops JSONC's comments and trailing commas, so the result
// decodes with encoding/json (used to check an edit, never written).
func plainJSON(src []byte) ([]byte, error) {
	s := jsonScanner{src}
	var out []byte
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"':
			end, err := s.str(i)
			if err != nil {
				return nil, err
			}
			out = append(out, src[i:end]...)
			i = end
		case c == '/':
			j, err := s.skip(i)
			if err != nil {
				return nil, err
			}
			if j == i {
				return nil, s.errorf(i, "unexpected /")
			}
			i = j
		case c == ',':
			j, err := s.skip(i + 1)
			if err != nil {
				return nil, err
			}
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				i++ // a trailing comma
				continue
			}
			out = append(out, c)
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out, nil
}

// decodeConfig decodes a (possibly JSONC) config file to compare edits.
func decodeConfig(src []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return map[string]any{}, nil
	}
	plain, err := plainJSON(src)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}
