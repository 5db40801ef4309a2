package model

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Playbooks (Pad's PB-01..03): workflows an agent follows. Running one
// executes nothing; it binds the caller's arguments against the
// playbook's declared argument list and hands the body back.

// CodePlaybookNotActive refuses to run a playbook whose status is not
// active unless the caller allows drafts. Pad answers it with 409, and
// so does padd: the playbook is in a state that forbids the request.
const CodePlaybookNotActive = "playbook_not_active"

// CodeDecisionProviderUnavailable is Pad's answer to playbook match when
// no LLM provider is configured, which is always the case in padd.
const CodeDecisionProviderUnavailable = "decision_provider_unavailable"

// Playbook argument types.
const (
	ArgRef    = "ref"
	ArgString = "string"
	ArgFlag   = "flag"
	ArgEnum   = "enum"
	ArgNumber = "number"
)

// ArgSpec declares one playbook argument: the queryable form of the
// body's "## Arguments" section, stored in the playbook's arguments field.
// Its JSON tags are that stored field's format, which ParseArgSpecs
// decodes; answers carry it as api.ArgSpec.
type ArgSpec struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
}

// UnboundArg is a required argument the caller did not supply, with its
// declaration so the agent can ask for it rather than fail.
type UnboundArg struct {
	Name string
	Spec ArgSpec
}

// ParseArgSpecs reads a playbook's arguments field. Absent, null and
// empty mean no arguments; anything that is not a list of {name, type}
// objects is refused, so a run never silently ignores a broken
// declaration.
func ParseArgSpecs(v any) ([]ArgSpec, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
			return nil, nil
		}
		return nil, Invalid("the playbook's arguments field must be a JSON list of {name, type, required?, default?, description?, enum?}").With("field", "arguments")
	}
	out := make([]ArgSpec, 0, len(list))
	seen := map[string]bool{}
	for i, e := range list {
		b, err := json.Marshal(e)
		var spec ArgSpec
		if err == nil {
			err = json.Unmarshal(b, &spec)
		}
		spec.Name = strings.TrimSpace(spec.Name)
		if err != nil || spec.Name == "" {
			return nil, Invalid("the playbook's arguments[%d] must be an object with a name", i).With("field", "arguments").With("index", i)
		}
		if seen[spec.Name] {
			return nil, Invalid("the playbook declares argument %q twice", spec.Name).With("field", "arguments").With("index", i)
		}
		seen[spec.Name] = true
		if spec.Type == "" {
			spec.Type = ArgString
		}
		switch spec.Type {
		case ArgRef, ArgString, ArgFlag, ArgEnum, ArgNumber:
		default:
			return nil, Invalid("the playbook's argument %q has type %q; use ref, string, flag, enum or number", spec.Name, spec.Type).
				With("field", "arguments").With("index", i)
		}
		out = append(out, spec)
	}
	return out, nil
}

// HasArguments reports whether a stored arguments value declares any.
func HasArguments(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// ArgBinding is a run's bound arguments.
type ArgBinding struct {
	Bound   map[string]any
	Unbound []UnboundArg
	// Ignored names args members the playbook does not declare. Pad
	// drops them silently; padd drops them too but says so.
	Ignored []string
}

// BindArgs binds a run's arguments. args is an object of name -> value;
// raw is CLI-style tokens: positionals fill the required non-flag
// arguments in declared order, a bareword naming a flag sets it, and
// key=value sets any other argument. When both name an argument, args
// wins. Unsupplied arguments take their default (a flag defaults to
// false); required ones without a default are reported unbound, not
// refused, so the agent can ask the user. An undeclared name in raw, a
// surplus positional, an enum value outside its list and a non-number
// for a number argument are 400 bad_request; an undeclared args member
// is dropped and listed in Ignored.
func BindArgs(specs []ArgSpec, args map[string]any, raw []string) (*ArgBinding, error) {
	byName := make(map[string]*ArgSpec, len(specs))
	for i := range specs {
		byName[specs[i].Name] = &specs[i]
	}
	supplied := map[string]any{}
	if err := parseRawArgs(specs, byName, raw, supplied); err != nil {
		return nil, err
	}
	out := &ArgBinding{Bound: map[string]any{}}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names) // one refusal, always the same one
	for _, k := range names {
		spec := byName[k]
		if spec == nil {
			out.Ignored = append(out.Ignored, k)
			continue
		}
		v, err := coerceArg(spec, args[k])
		if err != nil {
			return nil, err
		}
		supplied[k] = v
	}
	for _, spec := range specs {
		if v, ok := supplied[spec.Name]; ok {
			out.Bound[spec.Name] = v
			continue
		}
		switch {
		case spec.Default != nil:
			out.Bound[spec.Name] = spec.Default
		case spec.Type == ArgFlag:
			out.Bound[spec.Name] = false
		case spec.Required:
			out.Unbound = append(out.Unbound, UnboundArg{Name: spec.Name, Spec: spec})
		}
	}
	return out, nil
}

// AllowDraftToken is the bareword in raw_args that allows running a
// draft, as the CLI's --allow-draft; it is consumed before binding.
func AllowDraftToken(raw []string) ([]string, bool) {
	out := make([]string, 0, len(raw))
	found := false
	for _, t := range raw {
		switch t {
		case "allow-draft", "allow_draft", "--allow-draft":
			found = true
		default:
			out = append(out, t)
		}
	}
	return out, found
}

func parseRawArgs(specs []ArgSpec, byName map[string]*ArgSpec, raw []string, into map[string]any) error {
	next := 0 // the next declared argument a positional may fill
	for _, tok := range raw {
		if key, val, ok := strings.Cut(tok, "="); ok && key != "" {
			spec := byName[key]
			if spec == nil {
				return unknownArg(key, specs)
			}
			if spec.Type == ArgFlag {
				return BadRequest("argument %q is a flag: give it as the bare word %q, not %s=...", key, key, key).With("arg", key)
			}
			v, err := coerceArg(spec, val)
			if err != nil {
				return err
			}
			into[key] = v
			continue
		}
		if spec := byName[tok]; spec != nil && spec.Type == ArgFlag {
			into[tok] = true
			continue
		}
		// Only required arguments are positional, so a bare word never
		// lands on an optional one that happens to be declared first.
		for next < len(specs) && (specs[next].Type == ArgFlag || !specs[next].Required || has(into, specs[next].Name)) {
			next++
		}
		if next == len(specs) {
			return BadRequest("unexpected argument %q: every positional argument is already bound; name optional ones as key=value", tok).
				With("arg", tok).With("valid_args", argNames(specs))
		}
		v, err := coerceArg(&specs[next], tok)
		if err != nil {
			return err
		}
		into[specs[next].Name] = v
		next++
	}
	return nil
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// coerceArg checks a value against its declaration; text from raw_args
// becomes the declared type.
func coerceArg(spec *ArgSpec, v any) (any, error) {
	bad := func(format string, a ...any) *Error {
		return BadRequest("argument %q "+format, append([]any{spec.Name}, a...)...).With("arg", spec.Name)
	}
	switch spec.Type {
	case ArgNumber:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.Number:
			s = string(x)
		case float64:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			return nil, bad("must be a number, got %v", v)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad("must be a finite number, got %q", s)
		}
		if _, isText := v.(string); isText {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return v, nil
	case ArgFlag:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(x); err == nil {
				return b, nil
			}
		}
		return nil, bad("is a flag: true or false, got %v", v)
	case ArgEnum:
		s, ok := v.(string)
		if !ok {
			return nil, bad("must be one of %v, got %v", spec.Enum, v)
		}
		if len(spec.Enum) > 0 && !contains(spec.Enum, s) {
			return nil, bad("must be one of %v, got %q", spec.Enum, s).With("valid", spec.Enum)
		}
		return s, nil
	}
	if _, ok := v.(string); !ok {
		return nil, bad("must be text, got %v", v)
	}
	return v, nil
}

func unknownArg(name string, specs []ArgSpec) error {
	return BadRequest("unknown argument %q; this playbook takes %v", name, argNames(specs)).
		With("arg", name).With("valid_args", argNames(specs))
}

func argNames(specs []ArgSpec) []string {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		out = append(out, s.Name)
	}
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

// PlaybookNotActive is the refusal to run a non-active playbook.
func PlaybookNotActive(ref, status string) *Error {
	shown := status
	if shown == "" {
		shown = "(unset)"
	}
	return Errorf(CodePlaybookNotActive,
		"playbook %s has status %q, not \"active\"; refusing to run it. Pass allow_draft (CLI: --allow-draft) to run it anyway", ref, shown).
		With("ref", ref).With("status", status)
}

// PlaybookSummary is a short hint of what a playbook does: its first
// paragraph that is not a heading, a list, a quote or code, cut at 240
// characters on a word boundary.
func PlaybookSummary(body string) string {
	const limit = 240
	var para []string
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			if len(para) > 0 {
				break
			}
			continue
		}
		if inFence {
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ">") || listMarker(t) != "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	s := strings.Join(para, " ")
	if r := []rune(s); len(r) > limit {
		cut := string(r[:limit])
		if i := strings.LastIndexByte(cut, ' '); i > limit/2 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, " ,;:") + "…"
	}
	return s
}

// listMarker returns the marker a Markdown list item starts with ("- ",
// "* ", "+ ", "1. ", "2) "), or "".
func listMarker(t string) string {
	for _, m := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(t, m) {
			return m
		}
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return t[:i+2]
	}
	return ""
}
