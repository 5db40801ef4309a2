package mcpinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex keeps its servers in TOML ([mcp_servers.<name>] tables). As with
// JSON, the file is edited as text so comments and layout survive: our
// table (and any subtable of it, like [mcp_servers.padd.env]) is
// replaced or removed line by line, and verifyEdit decodes both versions
// to prove nothing else moved.

func decodeTOML(src []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// tomlString writes s as a TOML basic string. JSON's escapes (\" \\ \n
// \t \uXXXX ...) are all valid TOML escapes.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func tomlSection(key, name string, e stdioEntry) string {
	args := make([]string, 0, len(e.Args))
	for _, a := range e.Args {
		args = append(args, tomlString(a))
	}
	sec := fmt.Sprintf("[%s.%s]\ncommand = %s\nargs = [%s]\n", key, name, tomlString(e.Command), strings.Join(args, ", "))
	if len(e.Env) > 0 {
		keys := make([]string, 0, len(e.Env))
		for k := range e.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kv := make([]string, 0, len(keys))
		for _, k := range keys {
			kv = append(kv, tomlString(k)+" = "+tomlString(e.Env[k]))
		}
		sec += "env = { " + strings.Join(kv, ", ") + " }\n"
	}
	return sec
}

// tomlHeader parses a table header line ([a.b] or [[a.b]]) into its key
// path; ok is false for any other line.
func tomlHeader(line string) (path []string, ok bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") {
		return nil, false
	}
	t = strings.TrimLeft(t, "[")
	end := -1
	var quote byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ']':
			end = i
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return nil, false
	}
	for _, part := range splitDotted(t[:end]) {
		part = strings.TrimSpace(part)
		if len(part) >= 2 && (part[0] == '"' || part[0] == '\'') {
			if part[0] == '"' {
				var s string
				if json.Unmarshal([]byte(part), &s) == nil {
					part = s
				}
			} else {
				part = part[1 : len(part)-1]
			}
		}
		path = append(path, part)
	}
	return path, true
}

// splitDotted splits a dotted key at dots outside quotes.
func splitDotted(s string) []string {
	var parts []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// tomlLines splits src into lines and marks which start a table header,
// skipping lines inside multi-line strings.
func tomlLines(src []byte) (lines []string, header [][]string) {
	lines = splitKeep(string(src))
	header = make([][]string, len(lines))
	inMulti := ""
	for i, l := range lines {
		if inMulti == "" {
			if p, ok := tomlHeader(l); ok {
				header[i] = p
			}
		}
		inMulti = multiAfter(l, inMulti)
	}
	return lines, header
}

// multiAfter returns the multi-line string still open at the end of
// line l (its delimiter: three double or three single quotes; "" for
// none), given the one open at its start. It lexes as much TOML as that
// takes: a delimiter in a comment or inside a one-line string opens
// nothing (fuzzing found a comment of three single quotes hiding the
// rest of the file), escapes in basic strings, and the one or two quotes
// a multi-line string may hold just before its closing delimiter.
func multiAfter(l, open string) string {
	for i := 0; i < len(l); {
		switch {
		case open != "":
			if open == `"""` && l[i] == '\\' {
				i += 2
				continue
			}
			if strings.HasPrefix(l[i:], open) {
				n := 3
				for n < 5 && i+n < len(l) && l[i+n] == open[0] {
					n++
				}
				open, i = "", i+n
				continue
			}
			i++
		case l[i] == '#':
			return ""
		case strings.HasPrefix(l[i:], `"""`), strings.HasPrefix(l[i:], `'''`):
			open, i = l[i:i+3], i+3
		case l[i] == '"':
			for i++; i < len(l) && l[i] != '"'; i++ {
				if l[i] == '\\' {
					i++
				}
			}
			i++
		case l[i] == '\'':
			for i++; i < len(l) && l[i] != '\''; i++ {
			}
			i++
		default:
			i++
		}
	}
	return open
}

// ourSection finds the lines of [key.name] and its subtables: from the
// header to the last key line before the next foreign header (comments
// and blank lines before that header stay with it). ok is false when the
// file has no such header.
func ourSection(lines []string, header [][]string, key, name string) (from, to int, ok bool) {
	ours := func(p []string) bool { return len(p) >= 2 && p[0] == key && p[1] == name }
	from = -1
	for i, p := range header {
		if p != nil && ours(p) {
			from = i
			break
		}
	}
	if from < 0 {
		return 0, 0, false
	}
	to = from + 1
	for i := from + 1; i < len(lines); i++ {
		if p := header[i]; p != nil && !ours(p) {
			break
		}
		if t := strings.TrimSpace(lines[i]); t != "" && !strings.HasPrefix(t, "#") {
			to = i + 1
		}
	}
	return from, to, true
}

// tomlSetServer writes our table in place of the old one, or appends it.
func tomlSetServer(src []byte, key, name string, e stdioEntry) ([]byte, error) {
	m, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	section := tomlSection(key, name, e)
	lines, header := tomlLines(src)
	if from, to, ok := ourSection(lines, header, key, name); ok {
		out := strings.Join(lines[:from], "") + section + strings.Join(lines[to:], "")
		return []byte(out), nil
	}
	if err := notInline(m, key, name); err != nil {
		return nil, err
	}
	// A key that is not a table (`mcp_servers = ""`, an array of tables)
	// cannot take a [key.name] table after it: the file would not parse.
	if v, set := m[key]; set {
		if _, isTable := v.(map[string]any); !isTable {
			return nil, fmt.Errorf("%s is %s in this file, not a table of servers; make it a table, or remove it, and install again", key, tomlKind(v))
		}
	}
	text := string(src)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if strings.TrimSpace(text) != "" {
		text += "\n"
	}
	return []byte(text + section), nil
}

// tomlRemoveServer deletes our table and its subtables.
func tomlRemoveServer(src []byte, key, name string) ([]byte, bool, error) {
	m, err := decodeTOML(src)
	if err != nil {
		return nil, false, err
	}
	lines, header := tomlLines(src)
	from, to, ok := ourSection(lines, header, key, name)
	if !ok {
		return src, false, notInline(m, key, name)
	}
	// Drop one blank line before the table when one follows it too, so
	// removing the table leaves no double gap.
	if from > 0 && strings.TrimSpace(lines[from-1]) == "" && (to == len(lines) || strings.TrimSpace(lines[to]) == "") {
		from--
	}
	return []byte(strings.Join(lines[:from], "") + strings.Join(lines[to:], "")), true, nil
}

// notInline refuses an entry written inline or with dotted keys rather
// than as a [key.name] table: not ours to untangle.
func notInline(m map[string]any, key, name string) error {
	if servers, _ := m[key].(map[string]any); servers[name] != nil {
		return fmt.Errorf("the %s.%s entry is not written as a [%s.%s] table", key, name, key, name)
	}
	return nil
}

// tomlKind names a decoded TOML value's type as TOML spells it, with
// its article.
func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	}
	return "a date or time"
}
