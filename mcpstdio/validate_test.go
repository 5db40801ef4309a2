package mcpstdio

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		tool, args string
		code       string // "" = accepted
		in         string // a substring of the message or hint
		details    map[string]any
	}{
		{"pad_item", `{"action":"get","ref":"TASK-1"}`, "", "", nil},
		{"pad_item", `{"action":"get","ref":"TASK-1","workspace":"w"}`, "", "", nil},
		{"pad_item", `{}`, codeValidationFailed, "needs an action", nil},
		{"pad_item", `{"action":"explode"}`, codeValidationFailed, `no action "explode"`, nil},
		{"pad_item", `{"action":"get","ref":"TASK-1","bogus":1,"also":2}`, codeValidationFailed, "parameters also, bogus",
			map[string]any{"unknown_params": []string{"also", "bogus"}}},
		{"pad_item", `{"action":"get","ref":"TASK-1","status":"open"}`, codeValidationFailed, "does not use status",
			map[string]any{"unused_params": []string{"status"}}},
		{"pad_item", `{"action":"create","title":"x"}`, codeValidationFailed, "needs collection",
			map[string]any{"missing": []string{"collection"}}},
		{"pad_item", `{"action":"create","collection":"tasks","title":""}`, codeValidationFailed, "needs title", nil},
		{"pad_item", `{"action":"list","limit":"ten"}`, codeValidationFailed, "limit must be a number, got a string", nil},
		{"pad_item", `{"action":"list","limit":2.5}`, codeValidationFailed, "whole number", nil},
		{"pad_item", `{"action":"list","limit":0}`, codeValidationFailed, "1 or more", nil},
		{"pad_item", `{"action":"list","offset":-1}`, codeValidationFailed, "0 or more", nil},
		{"pad_item", `{"action":"list","full":"yes"}`, codeValidationFailed, "true or false", nil},
		{"pad_item", `{"action":"list","field":["a=1",2]}`, codeValidationFailed, "field[1] must be a string", nil},
		{"pad_item", `{"action":"list","parent":"PLAN-1","unparented":true}`, codeValidationFailed, "not both", nil},
		{"pad_item", `{"action":"list","parent":"PLAN-1","unparented":false}`, "", "", nil},
		{"pad_item", `{"action":"link","ref":"A-1","target":"A-2","link_type":"likes"}`, codeValidationFailed, "one of blocks", nil},
		{"pad_item", `{"action":"patch","ref":"A-1"}`, codeValidationFailed, "exactly one of edits, undo", nil},
		{"pad_item", `{"action":"patch","ref":"A-1","undo":"p1","edits":[{"old":"a","new":"b"}]}`, codeValidationFailed, "exactly one", nil},
		{"pad_item", `{"action":"update","ref":"A-1","expected_seq":0}`, codeValidationFailed, "1 or more", nil},
		{"pad_item", `{"action":"update","ref":"A-1","replace":true,"expected_seq":3}`, codeValidationFailed, "not both", nil},
		{"pad_item", `["not","an","object"]`, codeValidationFailed, "JSON object", nil},
		{"pad_item", `{"action":"get","ref":"A-1",}`, codeValidationFailed, "not valid JSON", nil},
		{"pad_set_workspace", `{}`, codeValidationFailed, "needs workspace", nil},
		{"pad_set_workspace", `{"workspace":"w","action":"x"}`, codeValidationFailed, "does not declare parameter action", nil},
		{"pad_set_workspace", `{"workspace":"w"}`, "", "", nil},
		{"pad_collection", `{"action":"create","name":"Bugs","fields":"a:text","schema":{}}`, codeValidationFailed, "not both", nil},
		{"pad_workspace", `{"action":"invite","email":"a@b","role":"admin"}`, codeValidationFailed, "one of owner, editor, viewer", nil},
	}
	for _, tc := range cases {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			tool, _ := toolByName(tc.tool)
			_, _, terr := validate(tool, json.RawMessage(tc.args))
			if tc.code == "" {
				if terr != nil {
					t.Fatalf("refused: %v", terr)
				}
				return
			}
			if terr == nil {
				t.Fatalf("accepted, want %s", tc.code)
			}
			if terr.Code != tc.code || !strings.Contains(terr.Message+" "+terr.Hint, tc.in) {
				t.Errorf("got %s %q (hint %q), want %s containing %q", terr.Code, terr.Message, terr.Hint, tc.code, tc.in)
			}
			if terr.Hint == "" {
				t.Error("no hint")
			}
			for k, want := range tc.details {
				if !reflect.DeepEqual(terr.Details[k], want) {
					t.Errorf("details.%s = %v, want %v", k, terr.Details[k], want)
				}
			}
		})
	}
}

// Numbers reach padd with every digit: arguments are decoded with
// UseNumber, and the fields object is re-encoded from json.Number.
func TestValidateKeepsNumbersExact(t *testing.T) {
	tool, _ := toolByName("pad_item")
	_, a, terr := validate(tool, json.RawMessage(`{"action":"create","collection":"tasks","title":"t",
		"fields":{"big":9007199254740993123,"neg":-9007199254740993,"f":1.000000000000000000001,"n":null,"o":{"x":[1,2]}}}`))
	if terr != nil {
		t.Fatal(terr)
	}
	c := &call{a: a}
	got := string(c.fieldsFlex())
	for _, want := range []string{`"big":9007199254740993123`, `"neg":-9007199254740993`, `"f":1.000000000000000000001`, `"n":null`, `"o":{"x":[1,2]}`} {
		if !strings.Contains(got, want) {
			t.Errorf("fields sent to padd %s lack %s", got, want)
		}
	}
}

// Empty strings, nulls and empty arrays read as "not given" (Pad's rule:
// an empty declared string is inert), so they never satisfy a required
// param and never count as a conflicting one.
func TestValidateEmptyMeansAbsent(t *testing.T) {
	tool, _ := toolByName("pad_item")
	_, a, terr := validate(tool, json.RawMessage(`{"action":"update","ref":"A-1","title":"x","parent":"","clear_parent":true,"tags":[],"content":null}`))
	if terr != nil {
		t.Fatal(terr)
	}
	for _, k := range []string{"parent", "tags", "content"} {
		if a.has(k) {
			t.Errorf("%s kept", k)
		}
	}
}

func TestFromAPI(t *testing.T) {
	cases := []struct {
		in         error
		code, hint string
	}{
		{&api.Error{Code: "update_conflict", Message: "TASK-1 was modified", Status: 409}, "update_conflict", "re-read and merge, do not resend"},
		{&api.Error{Code: "validation_error", Message: "bad", Status: 400}, "validation_error", "fix the value"},
		{&api.Error{Code: "bad_request", Message: "ids is required", Status: 400}, codeValidationFailed, "fix the parameters"},
		{&api.Error{Code: "not_found", Message: "Item not found", Status: 404}, api.CodeNotFound, "pad_search"},
		{&api.Error{Code: "not_found", Message: "Workspace not found: x", Status: 404, Details: map[string]any{"scope": "workspace"}}, api.CodeNotFound, "pad_workspace list"},
		{&api.Error{Code: "not_found", Message: "no route GET /x", Status: 404, Details: map[string]any{"scope": "route"}}, codeNotImplemented, "update padd"},
		{&api.Error{Code: "method_not_allowed", Message: "no", Status: 405}, codeNotImplemented, "update padd"},
		{&api.Error{Code: "forbidden", Message: "web pages refused", Status: 403}, codePermissionDenied, "padd refused"},
		{&api.Error{Code: "too_large", Message: "big", Status: 413}, "too_large", "send less"},
		{&api.Error{Code: "http_429", Message: "slow down", Status: 429}, "rate_limited", "retry_after_seconds"},
		{&api.Error{Code: "http_502", Message: "gateway", Status: 502}, api.CodeServerError, "retry once"},
		{&api.Error{Code: "open_children", Message: "has open children", Status: 409}, "open_children", "force"},
		{&api.Error{Code: "something_new", Message: "what", Status: 409}, "something_new", "the message says why"},
		{&api.TransportError{Err: fmt.Errorf("connection refused")}, api.CodeServerError, "padctl daemon status"},
		{invalid("do this", "bad"), codeValidationFailed, "do this"},
	}
	for _, tc := range cases {
		e := fromAPI(tc.in)
		if e.Code != tc.code || !strings.Contains(e.Hint, tc.hint) {
			t.Errorf("%v: got %s hint %q, want %s hint containing %q", tc.in, e.Code, e.Hint, tc.code, tc.hint)
		}
	}
	e := fromAPI(&api.Error{Code: "http_429", Status: 429, Message: "x"})
	if e.Details["retry_after_seconds"] != 1 {
		t.Errorf("rate_limited details: %v", e.Details)
	}
}

func TestNotWiredRefusal(t *testing.T) {
	e := notWired["pad_workspace.invite"].refusal("pad_workspace.invite")
	if e.Code != codeNotImplemented || e.Details["action"] != "invite" || !strings.Contains(e.Message, "members and invitations") || e.Hint == "" ||
		!strings.Contains(e.Message, "single-user") {
		t.Errorf("%+v", e)
	}
}

func TestItemMarkdown(t *testing.T) {
	it := api.Item{Ref: "TASK-3", Title: "Ship it", CollectionSlug: "tasks", Seq: 12,
		Fields:    `{"status":"open","big":9007199254740993123,"gone":null,"meta":{"a":[1,2]},"note":"two\nlines"}`,
		Tags:      `["x","y"]`,
		ParentRef: "PLAN-1", ParentTitle: "Launch", CreatedBy: "agent", CreatedByName: "claude-code",
		Content: "Body text"}
	md, err := itemMarkdown(it)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# TASK-3: Ship it\n", "- **big**: 9007199254740993123\n", "- **gone**: null\n",
		`- **meta**: {"a":[1,2]}` + "\n", `- **note**: "two\nlines"` + "\n", "- **status**: open\n", "- **tags**: x, y\n",
		"- **parent**: PLAN-1 Launch\n", "- **created_by**: agent (claude-code)\n", "---\n\nBody text\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestFileURIPath(t *testing.T) {
	for uri, want := range map[string]string{"file:///home/me/proj": "/home/me/proj", "file:///a%20b": "/a b", "https://x/y": "", "file://": ""} {
		got, ok := fileURIPath(uri)
		if got != want || ok != (want != "") {
			t.Errorf("%s: got %q %v, want %q", uri, got, ok, want)
		}
	}
}
