package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// JSON text on the wire: Pad sends an item's fields, a collection's
// schema and settings as JSON-encoded strings, and takes either that text
// or the JSON value itself in a request.

// DecodeObject decodes JSON object text keeping numbers exact; empty
// text is an empty object.
func DecodeObject(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("fields are not a JSON object: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// Flex is a request member that Pad accepts either as JSON text or as the
// JSON value itself ("fields": "{...}" or "fields": {...}).
type Flex json.RawMessage

// UnmarshalJSON keeps the raw bytes.
func (f *Flex) UnmarshalJSON(b []byte) error {
	*f = append((*f)[:0], b...)
	return nil
}

// MarshalJSON writes the raw bytes (null when empty).
func (f Flex) MarshalJSON() ([]byte, error) {
	if len(f) == 0 {
		return []byte("null"), nil
	}
	return f, nil
}

// Present reports whether the member was sent (and not null).
func (f Flex) Present() bool { return len(f) > 0 && string(f) != "null" }

// Value decodes the member: a JSON string is parsed as JSON text, any
// other JSON value is taken as is. Numbers stay exact.
func (f Flex) Value() (any, error) {
	if !f.Present() {
		return nil, nil
	}
	raw := []byte(f)
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		raw = []byte(s)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// FlexOf wraps a Go value as a Flex object member.
func FlexOf(v any) Flex {
	b, _ := json.Marshal(v)
	return Flex(b)
}
