package mcpstdio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// args are a call's validated arguments. Numbers are json.Number, so a
// field value beyond 2^53 reaches padd with every digit.
type args map[string]any

func (a args) has(k string) bool { _, ok := a[k]; return ok }

func (a args) str(k string) string {
	s, _ := a[k].(string)
	return s
}

func (a args) boolean(k string) bool {
	b, _ := a[k].(bool)
	return b
}

// int returns an integer param (validated as one) and whether it was given.
func (a args) int(k string) (int64, bool) {
	n, ok := a[k].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil
}

func (a args) strs(k string) []string {
	list, _ := a[k].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, v.(string))
	}
	return out
}

func (a args) obj(k string) map[string]any {
	m, _ := a[k].(map[string]any)
	return m
}

// strp is a string param as a pointer: nil when not given.
func (a args) strp(k string) *string {
	if !a.has(k) {
		return nil
	}
	s := a.str(k)
	return &s
}

// Integer params with a lower bound; every other integer param is >= 0
// unless listed in signed.
var (
	positive = map[string]bool{"limit": true, "expected_seq": true, "budget": true, "days": true, "pr_number": true}
	signed   = map[string]bool{"sort_order": true}
)

// decodeArguments parses the raw tools/call arguments keeping numbers
// exact (mcp-go's own decode turns them into float64).
func decodeArguments(raw json.RawMessage) (map[string]any, *toolError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("send the arguments as a JSON object", "arguments are not valid JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("send the arguments as a JSON object of params", "arguments must be a JSON object")
	}
	return m, nil
}

// pseudoAction stands for pad_set_workspace, the one tool with no action:
// its schema-required workspace is checked like an action's.
var pseudoAction = actionDef{Name: "", Required: []string{"workspace"}, NoWorkspace: true}

// validate checks a call against the catalog: every param declared by
// the tool, every value of its declared type, the action known, and the
// action's own requirements met. It returns the action and the arguments
// with empty strings and nulls removed (Pad reads both as "not given").
func validate(t *toolDef, raw json.RawMessage) (*actionDef, args, *toolError) {
	in, terr := decodeArguments(raw)
	if terr != nil {
		return nil, nil, terr
	}
	var unknown []string
	for k := range in {
		if _, ok := t.param(k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, nil, invalid(fmt.Sprintf("remove %s; %s takes: %s", strings.Join(unknown, ", "), t.Name, strings.Join(paramNames(t), ", ")),
			"%s does not declare %s %s", t.Name, plural(len(unknown), "parameter", "parameters"), strings.Join(unknown, ", ")).
			with("unknown_params", unknown).with("tool", t.Name)
	}
	a := args{}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, _ := t.param(k)
		v, err := checkType(p, in[k])
		if err != nil {
			return nil, nil, err.with("param", k).with("tool", t.Name)
		}
		if v != nil {
			a[k] = v
		}
	}
	act := &pseudoAction
	if len(t.Actions) > 0 {
		name := a.str("action")
		if name == "" {
			return nil, nil, invalid("pass action: one of "+strings.Join(t.actionNames(), ", "), "%s needs an action", t.Name).
				with("missing", []string{"action"}).with("actions", t.actionNames())
		}
		var ok bool
		if act, ok = t.action(name); !ok {
			return nil, nil, invalid("pass action: one of "+strings.Join(t.actionNames(), ", "), "%s has no action %q", t.Name, name).
				with("param", "action").with("actions", t.actionNames())
		}
	}
	if terr := checkAction(t, act, a); terr != nil {
		return nil, nil, terr
	}
	return act, a, nil
}

// checkAction applies one action's requirements.
func checkAction(t *toolDef, act *actionDef, a args) *toolError {
	label := t.Name
	if act.Name != "" {
		label += " " + act.Name
	}
	var extra []string
	for k := range a {
		if !act.accepts(k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return invalid(fmt.Sprintf("remove %s; %s reads: %s", strings.Join(extra, ", "), label, strings.Join(act.params(), ", ")),
			"%s does not use %s", label, strings.Join(extra, ", ")).
			with("unused_params", extra).with("accepts", act.params())
	}
	var missing []string
	for _, k := range act.Required {
		if !a.has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return invalid(fmt.Sprintf("send %s", strings.Join(missing, ", ")), "%s needs %s", label, strings.Join(missing, ", ")).
			with("missing", missing)
	}
	for _, g := range act.OneOf {
		n := 0
		for _, k := range g {
			if a.has(k) {
				n++
			}
		}
		if n != 1 {
			return invalid("send exactly one of "+strings.Join(g, ", "), "%s needs exactly one of %s", label, strings.Join(g, ", ")).
				with("one_of", g)
		}
	}
	for _, pair := range act.Exclusive {
		if a.has(pair[0]) && a.has(pair[1]) && a[pair[0]] != false && a[pair[1]] != false {
			return invalid(fmt.Sprintf("send %s or %s, not both", pair[0], pair[1]), "%s cannot take %s together with %s", label, pair[0], pair[1]).
				with("conflicting_params", []string{pair[0], pair[1]})
		}
	}
	return nil
}

// checkType checks one value against its declared type. It returns nil
// (and no error) for a value that means "not given": null, "" or an
// empty array.
func checkType(p *paramDef, v any) (any, *toolError) {
	if v == nil {
		return nil, nil
	}
	wrong := func(want string) *toolError {
		return invalid(fmt.Sprintf("send %s as %s", p.Name, want), "%s must be %s, got %s", p.Name, want, jsonKind(v))
	}
	switch p.Type {
	case tString:
		s, ok := v.(string)
		if !ok {
			return nil, wrong("a string")
		}
		if s == "" {
			return nil, nil
		}
		if len(p.Enum) > 0 && !contains(p.Enum, s) && p.Name != "action" {
			return nil, invalid(fmt.Sprintf("send %s as one of %s", p.Name, strings.Join(p.Enum, ", ")), "%s %q is not one of %s", p.Name, s, strings.Join(p.Enum, ", ")).
				with("allowed", p.Enum)
		}
		return s, nil
	case tBoolean:
		if _, ok := v.(bool); !ok {
			return nil, wrong("true or false")
		}
		return v, nil
	case tNumber:
		n, ok := v.(json.Number)
		if !ok {
			return nil, wrong("a number")
		}
		if p.Integer {
			i, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return nil, wrong("a whole number")
			}
			switch {
			case positive[p.Name] && i < 1:
				return nil, invalid(fmt.Sprintf("send %s as 1 or more", p.Name), "%s must be 1 or more, got %d", p.Name, i)
			case !positive[p.Name] && !signed[p.Name] && i < 0:
				return nil, invalid(fmt.Sprintf("send %s as 0 or more", p.Name), "%s must be 0 or more, got %d", p.Name, i)
			}
		}
		return n, nil
	case tObject:
		if _, ok := v.(map[string]any); !ok {
			return nil, wrong("a JSON object")
		}
		return v, nil
	case tArray:
		list, ok := v.([]any)
		if !ok {
			return nil, wrong("a JSON array")
		}
		for i, e := range list {
			switch p.Items {
			case tString:
				if _, ok := e.(string); !ok {
					return nil, invalid(fmt.Sprintf("send %s as an array of strings", p.Name), "%s[%d] must be a string, got %s", p.Name, i, jsonKind(e))
				}
			case tObject:
				if _, ok := e.(map[string]any); !ok {
					return nil, invalid(fmt.Sprintf("send %s as an array of objects", p.Name), "%s[%d] must be an object, got %s", p.Name, i, jsonKind(e))
				}
			}
		}
		if len(list) == 0 {
			return nil, nil
		}
		return v, nil
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func paramNames(t *toolDef) []string {
	out := make([]string, 0, len(t.Params))
	for _, p := range t.Params {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
