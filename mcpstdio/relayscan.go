package mcpstdio

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The relay reads three things of each message it passes on: the id, the
// method and a tool call's name, and one thing of each answer: its id.
// Decoding them with encoding/json was a large part of the relay's CPU
// (every message parsed whole into values, allocating), on the path of
// every call (docs/PERFORMANCE.md, "Why the code is as it is"). The
// scans here read only the message's top level (and a call's
// params), in place, and leave anything unusual to encoding/json: a line
// that is not valid JSON, a key with escapes or outside ASCII, a method or
// name that is not a plain string. What they read is what encoding/json
// reads (FuzzRelayScan holds them to it).

// scanRequest is json.Unmarshal(line, &m) for a relayMsg, for the lines
// it can read in place; ok is false for the others.
func scanRequest(line []byte) (m relayMsg, ok bool) {
	if !json.Valid(line) {
		return relayMsg{}, false
	}
	s := jsonScan{b: line}
	if !s.object(func(key, val []byte) bool {
		switch {
		case bytes.EqualFold(key, []byte("id")):
			m.ID = val // a RawMessage takes null too
		case bytes.EqualFold(key, []byte("method")):
			return plainStringInto(&m.Method, val)
		case bytes.EqualFold(key, []byte("params")):
			if val[0] == 'n' { // null leaves a struct as it was
				return true
			}
			p := jsonScan{b: val}
			return p.object(func(key, val []byte) bool {
				if bytes.EqualFold(key, []byte("name")) {
					return plainStringInto(&m.Params.Name, val)
				}
				return true
			})
		}
		return true
	}) {
		return relayMsg{}, false
	}
	return m, true
}

// plainStringInto sets *dst to a JSON string without escapes; null leaves
// it as it was. Anything else (a number, an escaped string) is encoding/
// json's to read: false.
func plainStringInto(dst *string, val []byte) bool {
	switch {
	case val[0] == 'n':
		return true
	case plainString(val):
		*dst = string(val[1 : len(val)-1])
		return true
	}
	return false
}

// plainString says whether val is a JSON string that reads as it is
// written: no escapes, and valid UTF-8 (encoding/json reads a bad byte as
// U+FFFD).
func plainString(val []byte) bool {
	return len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' &&
		bytes.IndexByte(val, '\\') < 0 && utf8.Valid(val[1:len(val)-1])
}

// plainIDKey is idKey for the ids it can read in place: a string without
// escapes or a number.
func plainIDKey(raw []byte) (key string, ok bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case plainString(raw):
		return "s" + string(raw[1:len(raw)-1]), true
	case c == '-' || c >= '0' && c <= '9':
		return "n" + string(raw), true
	}
	return "", false
}

// jsonScan walks valid JSON in place.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object calls fn with each member of the object at the scan's start, in
// order, the key without its quotes and the value as it is written. It is
// false when the value there is not an object, when a key has escapes or
// bytes outside ASCII (encoding/json folds those in ways the scan does not
// follow; an ASCII key folds the same under bytes.EqualFold), or when
// fn says so.
func (s *jsonScan) object(fn func(key, val []byte) bool) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	for {
		s.ws()
		if s.b[s.i] == '}' {
			s.i++
			return true
		}
		if s.b[s.i] == ',' {
			s.i++
			s.ws()
		}
		start := s.i
		s.value() // the line is valid JSON: a key, then a value
		key := s.b[start+1 : s.i-1]
		for _, c := range key {
			if c == '\\' || c >= 0x80 {
				return false
			}
		}
		s.ws()
		s.i++ // ':'
		s.ws()
		start = s.i
		s.value()
		if !fn(key, s.b[start:s.i]) {
			return false
		}
	}
}

// value moves past the value at the scan's position; false when the
// bytes end first (the scan of an answer does not check the whole line
// first, so it must stop at the end of what it was given).
func (s *jsonScan) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		for s.i++; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case '\\':
				s.i++
			case '"':
				s.i++
				return true
			}
		}
		return false
	case '{', '[':
		for depth := 0; s.i < len(s.b); {
			switch s.b[s.i] {
			case '"':
				if !s.value() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return true
			}
		}
		return false
	default: // a number, true, false or null: up to the next delimiter
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
