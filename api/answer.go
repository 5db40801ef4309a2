package api

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// An Answer is the body of an answer that padd's handler made in its
// caller's process (the tools of a relayed MCP session): the handler's
// value itself. DoHeaders hands it to a caller that asks for exactly its
// type, with no JSON written or parsed on either side; read as a body, it
// is the JSON text padd would have sent.
//
// The value must be the handler's own, made for this answer: the caller
// gets it, not a copy.
type Answer struct {
	V   any
	r   *bytes.Reader
	err error
}

// EncodeJSON writes v as padd's answers are written: HTML characters as
// they are, one value per line.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (a *Answer) Read(p []byte) (int, error) {
	if a.r == nil && a.err == nil {
		b, err := EncodeJSON(a.V)
		a.r, a.err = bytes.NewReader(b), err
	}
	if a.err != nil {
		return 0, a.err
	}
	return a.r.Read(p)
}

func (a *Answer) Close() error { return nil }

// Verbatim receives an answer that its caller passes on as JSON without
// looking inside: over a connection, the JSON decoded (numbers as
// json.Number); in padd's own process, the handler's value, whose JSON is
// the same text.
type Verbatim struct{ V any }

// handTo stores the value in out when out points to a value of its type,
// or is a Verbatim.
func (a *Answer) handTo(out any) bool {
	if a.V == nil || out == nil {
		return false
	}
	if vb, ok := out.(*Verbatim); ok {
		vb.V = a.V
		return true
	}
	dst := reflect.ValueOf(out)
	if dst.Kind() != reflect.Pointer || dst.IsNil() {
		return false
	}
	v := reflect.ValueOf(a.V)
	if v.Type() != dst.Type().Elem() {
		return false
	}
	dst.Elem().Set(v)
	return true
}
