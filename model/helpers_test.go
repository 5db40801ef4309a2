package model_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// wantErr asserts that err is a coded *model.Error with the given code
// and status, and that every key of details is present with an equal
// value. It returns the error for further checks.
func wantErr(t *testing.T, err error, code string, status int, details map[string]any) *model.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got nil", code)
	}
	e, ok := model.AsError(err)
	if !ok {
		t.Fatalf("want *model.Error, got %T: %v", err, err)
	}
	if got := api.StatusOf(e.Code); e.Code != code || got != status {
		t.Fatalf("want %s/%d, got %s/%d: %s", code, status, e.Code, got, e.Message)
	}
	for k, want := range details {
		got, ok := e.Details[k]
		if !ok {
			t.Fatalf("details[%q] missing; details = %v (message %q)", k, e.Details, e.Message)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("details[%q] = %#v, want %#v (message %q)", k, got, want, e.Message)
		}
	}
	return e
}

// wantInvalid is wantErr for Pad's 400 validation_error.
func wantInvalid(t *testing.T, err error, details map[string]any) *model.Error {
	t.Helper()
	return wantErr(t, err, model.CodeValidation, 400, details)
}

// wantMessage asserts that the error's message contains every fragment.
func wantMessage(t *testing.T, err error, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("message %q does not contain %q", err.Error(), f)
		}
	}
}

// checkCoded is the fuzz property for refusals: a *model.Error with a
// non-empty code that api's table answers with a 4xx status.
func checkCoded(t *testing.T, err error) {
	t.Helper()
	var e *model.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, not *model.Error: %v", err, err)
	}
	if c, ok := api.LookupCode(e.Code); e.Code == "" || !ok || c.Status < 400 || c.Status > 499 {
		t.Fatalf("error has code %q status %d: %v", e.Code, c.Status, err)
	}
	if e.Message == "" {
		t.Fatalf("error %q has an empty message", e.Code)
	}
}

// decode is model.DecodeJSON for test literals; it fails the test on bad JSON.
func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := model.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("DecodeJSON(%q): %v", s, err)
	}
	return v
}

// obj decodes a JSON object literal.
func obj(t testing.TB, s string) map[string]any {
	t.Helper()
	m, ok := decode(t, s).(map[string]any)
	if !ok {
		t.Fatalf("%q is not a JSON object", s)
	}
	return m
}

func num(s string) json.Number { return json.Number(s) }

func intp(i int) *int { return &i }
