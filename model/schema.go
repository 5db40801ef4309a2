package model

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Field types Pad's schemas use.
const (
	TypeText          = "text"
	TypeNumber        = "number"
	TypeDate          = "date"
	TypeSelect        = "select"
	TypeMultiSelect   = "multi_select"
	TypeRelation      = "relation"
	TypeMultiRelation = "multi_relation"
	TypeCheckbox      = "checkbox"
	TypeURL           = "url"
	TypeJSON          = "json"
)

var fieldTypes = map[string]bool{
	TypeText: true, TypeNumber: true, TypeDate: true, TypeSelect: true,
	TypeMultiSelect: true, TypeRelation: true, TypeMultiRelation: true,
	TypeCheckbox: true, TypeURL: true, TypeJSON: true,
}

// IsFieldType reports whether t names a field type padd understands.
func IsFieldType(t string) bool { return fieldTypes[t] }

// FieldTypes lists the field types padd understands, sorted.
func FieldTypes() []string {
	out := make([]string, 0, len(fieldTypes))
	for t := range fieldTypes {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// UniqueScopeCollection makes a field's non-empty values unique within
// its collection.
const UniqueScopeCollection = "workspace_collection"

// FieldDef declares one field of a collection schema. The JSON names are
// Pad's.
type FieldDef struct {
	Key             string   `json:"key"`
	Label           string   `json:"label"`
	Type            string   `json:"type"`
	Options         []string `json:"options,omitempty"`
	TerminalOptions []string `json:"terminal_options,omitempty"`
	Default         any      `json:"default,omitempty"`
	Required        bool     `json:"required,omitempty"`
	Computed        bool     `json:"computed,omitempty"`
	Collection      string   `json:"collection,omitempty"` // relation target collection slug
	Suffix          string   `json:"suffix,omitempty"`
	Pattern         string   `json:"pattern,omitempty"`
	UniqueScope     string   `json:"unique_scope,omitempty"`
}

// HasOption reports whether v is one of the field's options.
func (f FieldDef) HasOption(v string) bool {
	for _, o := range f.Options {
		if o == v {
			return true
		}
	}
	return false
}

// Schema is a collection's ordered list of fields.
type Schema struct {
	Fields []FieldDef `json:"fields"`
}

// Field returns the declared field with the given key.
func (s Schema) Field(key string) (FieldDef, bool) {
	for _, f := range s.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return FieldDef{}, false
}

// Declares reports whether the schema declares key.
func (s Schema) Declares(key string) bool {
	_, ok := s.Field(key)
	return ok
}

// Reserved item field keys: system-written metadata that no write door
// may set and no schema may declare.
const (
	FieldImplementationNotes = "implementation_notes"
	FieldDecisionLog         = "decision_log"
	FieldGitHubPR            = "github_pr"
	FieldConvention          = "convention"
)

var reservedKeys = map[string]bool{
	FieldImplementationNotes: true, FieldDecisionLog: true,
	FieldGitHubPR: true, FieldConvention: true,
}

// IsReservedField reports whether key is system-written metadata.
func IsReservedField(key string) bool { return reservedKeys[key] }

// ReservedFields lists the reserved keys in a stable order.
func ReservedFields() []string {
	return []string{FieldConvention, FieldDecisionLog, FieldGitHubPR, FieldImplementationNotes}
}

// ValidFieldKey reports whether key is a usable field key: letters,
// digits, '_' and '-', which is also what a list filter accepts.
func ValidFieldKey(key string) bool {
	if key == "" || len(key) > LimitFieldKey.Max {
		return false
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// ValidateSchema is the write-time check of a schema (COL-07): a field
// with no key, a repeated key, an empty or repeated option. A stored
// schema is never re-checked on read.
func ValidateSchema(s Schema) error {
	seen := map[string]bool{}
	for i, f := range s.Fields {
		switch {
		case strings.TrimSpace(f.Key) == "":
			return Invalid("field at position %d has no key", i+1).With("field_index", i)
		case !ValidFieldKey(f.Key):
			return Invalid("field key %q may contain only letters, digits, '_' and '-'", f.Key).With("field", f.Key)
		case seen[f.Key]:
			return Invalid("field key %q is defined more than once", f.Key).With("field", f.Key)
		case IsReservedField(f.Key):
			return Invalid("field key %q is reserved for system metadata; choose another key (reserved: %s)",
				f.Key, strings.Join(ReservedFields(), ", ")).With("field", f.Key)
		case f.Type == "":
			return Invalid("field %q has no type", f.Key).With("field", f.Key)
		case !IsFieldType(f.Type):
			return Invalid("field %q has unknown type %q (known: text, number, date, select, multi_select, relation, multi_relation, checkbox, url, json)",
				f.Key, f.Type).With("field", f.Key)
		}
		seen[f.Key] = true
		// Options are checked whatever the type lists them ("n:number:,0"
		// is refused too, not stored with an empty option).
		opts := map[string]bool{}
		for _, o := range f.Options {
			if strings.TrimSpace(o) == "" {
				return Invalid("field %q lists an empty option", f.Key).With("field", f.Key)
			}
			if opts[o] {
				return Invalid("field %q lists the option %q more than once", f.Key, o).With("field", f.Key).With("option", o)
			}
			opts[o] = true
		}
		if f.Type == TypeSelect || f.Type == TypeMultiSelect {
			for _, t := range f.TerminalOptions {
				if len(f.Options) > 0 && !opts[t] {
					return Invalid("field %q names terminal option %q, which is not one of its options", f.Key, t).With("field", f.Key).With("option", t)
				}
			}
		}
		if f.UniqueScope != "" && f.UniqueScope != UniqueScopeCollection {
			return Invalid("field %q has unknown unique_scope %q (known: %s)", f.Key, f.UniqueScope, UniqueScopeCollection).With("field", f.Key)
		}
	}
	return nil
}

// SkippedDuplicateFieldKeys counts, among what an import leaves out, the
// schema fields that repeat a key an earlier field of their collection
// declares (a schema an older Pad stored before it refused repeats).
const SkippedDuplicateFieldKeys = "field_duplicate_key"

// CollapseRepeatedKeys is s with each field whose key an earlier field
// declares left out, and how many were: the first declaration is the one
// every reader of the schema already used (Schema.Field).
func CollapseRepeatedKeys(s Schema) (Schema, int) {
	seen := make(map[string]bool, len(s.Fields))
	out := s.Fields[:0:0]
	for _, f := range s.Fields {
		if seen[f.Key] && f.Key != "" {
			continue
		}
		seen[f.Key] = true
		out = append(out, f)
	}
	n := len(s.Fields) - len(out)
	if n == 0 {
		return s, 0
	}
	return Schema{Fields: out}, n
}

// ParseFieldDSL parses the compact field DSL: fields separated by ';',
// each "key:type[:third]". For relation and multi_relation the third part
// is the target collection slug and is required; for any other type it
// is a comma-separated option list. The first select named "status" is
// required and defaults to its first option, as in Pad.
func ParseFieldDSL(dsl string) (Schema, error) {
	var s Schema
	for _, part := range strings.Split(dsl, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		bits := strings.SplitN(part, ":", 3)
		if len(bits) < 2 {
			return Schema{}, Invalid("invalid field definition %q: expected key:type[:options]", part)
		}
		key, typ := strings.TrimSpace(bits[0]), strings.TrimSpace(bits[1])
		f := FieldDef{Key: key, Label: TitleCase(key), Type: typ}
		third := ""
		if len(bits) == 3 {
			third = strings.TrimSpace(bits[2])
		}
		switch typ {
		case TypeRelation, TypeMultiRelation:
			if third == "" {
				return Schema{}, Invalid("field %q is a %s and needs its target collection: write %s:%s:<collection-slug>", key, typ, key, typ).With("field", key)
			}
			f.Collection = third
		default:
			if third != "" {
				for _, o := range strings.Split(third, ",") {
					f.Options = append(f.Options, strings.TrimSpace(o))
				}
			}
		}
		if typ == TypeSelect && key == "status" && !s.Declares("status") {
			f.Required = true
			if len(f.Options) > 0 {
				f.Default = f.Options[0]
			}
		}
		s.Fields = append(s.Fields, f)
	}
	if err := ValidateSchema(s); err != nil {
		return Schema{}, err
	}
	return s, nil
}

// TitleCase turns a field key into the label Pad would derive for it:
// "due_date" -> "Due Date".
func TitleCase(key string) string {
	words := strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for i, w := range words {
		_, n := utf8.DecodeRuneInString(w) // whole first rune, never a split byte
		words[i] = strings.ToUpper(w[:n]) + strings.ToLower(w[n:])
	}
	return strings.Join(words, " ")
}

// Settings are a collection's settings, written wholesale except that a
// missing tracks_work keeps its stored value.
type Settings struct {
	Layout          string        `json:"layout,omitempty"`
	DefaultView     string        `json:"default_view,omitempty"`
	BoardGroupBy    string        `json:"board_group_by,omitempty"`
	ListSortBy      string        `json:"list_sort_by,omitempty"`
	ListGroupBy     string        `json:"list_group_by,omitempty"`
	QuickActions    []QuickAction `json:"quick_actions,omitempty"`
	ContentTemplate string        `json:"content_template,omitempty"`
	TracksWork      *bool         `json:"tracks_work,omitempty"`
}

// QuickAction is a prompt button a collection offers.
type QuickAction struct {
	Label  string `json:"label"`
	Prompt string `json:"prompt"`
	Scope  string `json:"scope"`
	Icon   string `json:"icon,omitempty"`
}

// DoneField resolves the select field that says whether an item is
// finished: the board's group-by select when there is one, else "status".
func DoneField(s Schema, set Settings) string {
	if k := strings.TrimSpace(set.BoardGroupBy); k != "" {
		if f, ok := s.Field(k); ok && f.Type == TypeSelect {
			return k
		}
	}
	return "status"
}

// DefaultTerminalOptions is the fallback terminal list for a done field
// that declares none.
var DefaultTerminalOptions = []string{
	"done", "completed", "resolved", "cancelled", "rejected",
	"wontfix", "fixed", "implemented", "archived", "disabled", "deprecated",
}

// negativeTerminals are terminal values that close without shipping.
var negativeTerminals = map[string]bool{
	"rejected": true, "cancelled": true, "canceled": true, "wontfix": true,
	"won't fix": true, "duplicate": true, "declined": true, "abandoned": true,
	"disabled": true,
}

// TerminalOptions returns the done field's key and its terminal values.
func TerminalOptions(s Schema, set Settings) (key string, values []string) {
	key = DoneField(s, set)
	if f, ok := s.Field(key); ok && f.Type == TypeSelect && len(f.TerminalOptions) > 0 {
		return key, f.TerminalOptions
	}
	return key, DefaultTerminalOptions
}

// State is an item's lifecycle state, derived from its done field.
type State string

const (
	StateOpen      State = "open"
	StateDone      State = "done"
	StateAbandoned State = "abandoned"
)

// StateOf derives an item's state from the value of the done field.
func StateOf(s Schema, set Settings, fields map[string]any) State {
	key, terms := TerminalOptions(s, set)
	v, _ := fields[key].(string)
	return StateOfValue(v, terms)
}

// StateOfValue classifies one done-field value against the terminal list.
func StateOfValue(v string, terminals []string) State {
	if v == "" {
		return StateOpen
	}
	for _, t := range terminals {
		if t == v {
			if negativeTerminals[strings.ToLower(strings.TrimSpace(v))] {
				return StateAbandoned
			}
			return StateDone
		}
	}
	return StateOpen
}

// HasDoneSelect reports whether the collection's done field is a select
// with at least one terminal option, i.e. its items can finish.
func HasDoneSelect(s Schema, set Settings) bool {
	key := DoneField(s, set)
	f, ok := s.Field(key)
	if !ok || f.Type != TypeSelect {
		return false
	}
	_, terms := TerminalOptions(s, set)
	for _, o := range f.Options {
		for _, t := range terms {
			if o == t {
				return true
			}
		}
	}
	return false
}

// DefaultTracksWork is the tracks_work a new collection gets when the
// create does not say: false for a system collection, otherwise true iff
// its items can finish.
func DefaultTracksWork(system bool, s Schema, set Settings) bool {
	if system {
		return false
	}
	return HasDoneSelect(s, set)
}

// IsWork reads tracks_work; absent means work.
func (set Settings) IsWork() bool {
	return set.TracksWork == nil || *set.TracksWork
}

func fmtOptions(opts []string) string { return fmt.Sprintf("[%s]", strings.Join(opts, " ")) }
