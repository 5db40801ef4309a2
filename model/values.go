package model

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Reasons a field value is refused (details.reason inside
// validation_error). The relation reasons are Pad's.
const (
	ReasonRequired          = "required"
	ReasonWrongType         = "wrong_type"
	ReasonNotAnOption       = "not_an_option"
	ReasonInvalidDate       = "invalid_date"
	ReasonInvalidURL        = "invalid_url"
	ReasonPatternMismatch   = "pattern_mismatch"
	ReasonEmptyElement      = "empty_element"
	ReasonNotFound          = "not_found"
	ReasonTargetMissing     = "target_missing"
	ReasonAmbiguous         = "ambiguous"
	ReasonDuplicateReferent = "duplicate_referent"
	ReasonReserved          = "reserved"
	ReasonUndeclared        = "undeclared"
	ReasonComputed          = "computed"
)

// FieldIssue is one refused value. A validation_error refusing several
// carries them all in details.issues, which daemon sends as api.FieldIssue.
type FieldIssue struct {
	Key     string
	Reason  string
	Message string
	Index   *int
}

func issue(key, reason, format string, args ...any) *FieldIssue {
	return &FieldIssue{Key: key, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// issuesError folds issues into one validation_error, the first issue's
// key and reason at the top of details.
func issuesError(issues []*FieldIssue) error {
	if len(issues) == 0 {
		return nil
	}
	msgs := make([]string, len(issues))
	for i, is := range issues {
		msgs[i] = is.Message
	}
	e := Invalid("field validation failed: %s", strings.Join(msgs, "; ")).
		With("field", issues[0].Key).With("reason", issues[0].Reason)
	if issues[0].Index != nil {
		e.With("index", *issues[0].Index)
	}
	if len(issues) > 1 {
		e.With("issues", issues)
	}
	return e
}

var (
	patternMu    sync.Mutex
	patternCache = map[string]*regexp.Regexp{}
)

func compilePattern(p string) (*regexp.Regexp, error) {
	patternMu.Lock()
	defer patternMu.Unlock()
	if re, ok := patternCache[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	patternCache[p] = re
	return re, nil
}

// IsNumber reports whether v is a JSON number in any of the Go forms a
// decoder may produce.
func IsNumber(v any) bool {
	switch n := v.(type) {
	case json.Number:
		return isJSONNumber(string(n))
	case float64:
		return !math.IsNaN(n) && !math.IsInf(n, 0)
	case float32:
		return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0)
	case int, int64, int32, uint64:
		return true
	}
	return false
}

// jsonNumberRE is the JSON number grammar (RFC 8259 §6): what a decoder
// produces and what encoding/json will write back out.
var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

func isJSONNumber(s string) bool { return jsonNumberRE.MatchString(s) }

// ratOf returns the exact value of a number, nil when v is not one.
func ratOf(v any) *big.Rat {
	switch n := v.(type) {
	case json.Number:
		if !isJSONNumber(string(n)) {
			return nil
		}
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return nil
		}
		return r
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil
		}
		return r
	case float32:
		return ratOf(float64(n))
	case int:
		return new(big.Rat).SetInt64(int64(n))
	case int64:
		return new(big.Rat).SetInt64(n)
	case int32:
		return new(big.Rat).SetInt64(int64(n))
	case uint64:
		return new(big.Rat).SetUint64(n)
	}
	return nil
}

// EqualJSON compares two decoded JSON values; numbers compare exactly
// (3 equals 3.0, but 2^53+1 does not equal 2^53).
func EqualJSON(a, b any) bool {
	if na, ok := a.(json.Number); ok {
		if nb, ok := b.(json.Number); ok && na == nb && isJSONNumber(string(na)) {
			return true // same literal, even past big.Rat's exponent limit
		}
	}
	if ra, rb := ratOf(a), ratOf(b); ra != nil || rb != nil {
		return ra != nil && rb != nil && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			if ys, ok2 := b.([]string); ok2 && len(ys) == len(x) {
				for i := range x {
					if s, ok := x[i].(string); !ok || s != ys[i] {
						return false
					}
				}
				return true
			}
			return false
		}
		for i := range x {
			if !EqualJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case []string:
		ya := make([]any, len(x))
		for i, s := range x {
			ya[i] = s
		}
		return EqualJSON(ya, b)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !EqualJSON(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// blank reports whether v is a value that a write treats as "key absent".
func blank(v any) bool { // nil, whitespace-only, or an empty list
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case []string:
		return len(x) == 0
	}
	return false
}

func asStrings(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// CheckFilterValues refuses a list filter's value that no item could
// hold: for a key that the collections in scope declare (defs, one per
// declaring collection) as select or multi-select with options, a value
// none of them offers is refused with the validation_error a write of
// that value gets. "" (the key absent) is always allowed.
func CheckFilterValues(defs []FieldDef, values []string) error {
	var first *FieldDef
	for i, d := range defs {
		if (d.Type != TypeSelect && d.Type != TypeMultiSelect) || len(d.Options) == 0 {
			return nil // some collection takes any value
		}
		if first == nil {
			first = &defs[i]
		}
	}
	if first == nil {
		return nil
	}
	for _, v := range values {
		if v == "" || slices.ContainsFunc(defs, func(d FieldDef) bool { return d.HasOption(v) }) {
			continue
		}
		return issuesError([]*FieldIssue{ValidateValue(FieldDef{Key: first.Key, Type: TypeSelect, Options: first.Options}, v)})
	}
	return nil
}

// ValidateValue checks one value against its declaration, relation
// lookups aside (those need the store: see RelationResolver).
func ValidateValue(def FieldDef, v any) *FieldIssue {
	k := def.Key
	switch def.Type {
	case TypeText, "":
		if _, ok := v.(string); !ok {
			return issue(k, ReasonWrongType, "field %q must be a string", k)
		}
	case TypeURL:
		s, ok := v.(string)
		if !ok {
			return issue(k, ReasonWrongType, "field %q must be a string", k)
		}
		if s != "" {
			u, err := url.Parse(s)
			if err != nil || u.Scheme == "" || u.Host == "" {
				return issue(k, ReasonInvalidURL, "field %q value %q is not an absolute URL", k, s)
			}
		}
	case TypeNumber:
		if !IsNumber(v) {
			return issue(k, ReasonWrongType, "field %q must be a number", k)
		}
	case TypeCheckbox:
		if _, ok := v.(bool); !ok {
			return issue(k, ReasonWrongType, "field %q must be a boolean", k)
		}
	case TypeDate:
		s, ok := v.(string)
		if !ok {
			return issue(k, ReasonWrongType, "field %q must be a date string (YYYY-MM-DD)", k)
		}
		if s != "" && !ValidDate(s) {
			return issue(k, ReasonInvalidDate, "field %q has invalid date %q (expected YYYY-MM-DD or RFC3339)", k, s)
		}
	case TypeSelect:
		s, ok := v.(string)
		if !ok {
			return issue(k, ReasonWrongType, "field %q must be a string", k)
		}
		if s != "" && len(def.Options) > 0 && !def.HasOption(s) {
			return issue(k, ReasonNotAnOption, "field %q value %q is not in allowed options %s", k, s, fmtOptions(def.Options))
		}
	case TypeMultiSelect:
		ss, ok := asStrings(v)
		if !ok {
			return issue(k, ReasonWrongType, "field %q must be an array of strings", k)
		}
		for i, s := range ss {
			if strings.TrimSpace(s) == "" {
				is := issue(k, ReasonEmptyElement, "field %q element %d is empty", k, i)
				is.Index = &i
				return is
			}
			if len(def.Options) > 0 && !def.HasOption(s) {
				return issue(k, ReasonNotAnOption, "field %q value %q is not in allowed options %s", k, s, fmtOptions(def.Options))
			}
		}
	case TypeRelation:
		if _, ok := v.(string); !ok {
			return issue(k, ReasonWrongType, "field %q must be a string (an item id, ref or title)", k)
		}
	case TypeMultiRelation:
		ss, ok := asStrings(v)
		if !ok {
			return issue(k, ReasonWrongType, "field %q must be an array of strings (item ids, refs or titles)", k)
		}
		for i, s := range ss {
			if strings.TrimSpace(s) == "" {
				is := issue(k, ReasonEmptyElement, "field %q element %d is empty", k, i)
				is.Index = &i
				return is
			}
		}
	case TypeJSON:
		switch v.(type) {
		case map[string]any, []any, nil:
		default:
			return issue(k, ReasonWrongType, "field %q must be a JSON object, array, or null", k)
		}
	}
	if def.Pattern != "" {
		if s, ok := v.(string); ok && s != "" {
			re, err := compilePattern(def.Pattern)
			if err != nil {
				return issue(k, ReasonPatternMismatch, "field %q has an invalid pattern in its schema: %v", k, err)
			}
			if !re.MatchString(s) {
				return issue(k, ReasonPatternMismatch, "field %q value %q does not match required pattern %q", k, s, def.Pattern)
			}
		}
	}
	return nil
}

// ValidDate accepts YYYY-MM-DD or an RFC3339 instant.
func ValidDate(s string) bool {
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// RelationResolver answers relation lookups for a write. Resolve returns
// the target item's id, or a Pad relation reason (not_found, ambiguous).
type RelationResolver interface {
	ResolveRelation(targetCollection, value string) (id string, reason string)
}

// Warnings is Pad's additive write-warnings envelope (ITM-18); daemon
// sends it as api.Warnings.
type Warnings struct {
	UndeclaredFields      []string
	DroppedFields         []string
	NotUnique             []NotUnique
	UnguardedContentWrite bool
	Orphaned              []Orphan
}

// NotUnique reports a carried value dropped because another item holds it.
type NotUnique struct {
	Key     string
	Value   any
	Holder  string
	Message string
}

// Orphan reports stored values a collection update left undeclared.
type Orphan struct {
	Field  string
	Option string
	Items  int
}

// Empty reports whether there is nothing to warn about.
func (w Warnings) Empty() bool {
	return len(w.UndeclaredFields) == 0 && len(w.DroppedFields) == 0 &&
		len(w.NotUnique) == 0 && !w.UnguardedContentWrite && len(w.Orphaned) == 0
}

// FieldWrite is one write of an item's fields: a create, a fields_patch
// merge, or a full fields replace.
type FieldWrite struct {
	Schema Schema
	// Stored is the item's current fields (nil on create).
	Stored map[string]any
	// Patch merges the named keys; a nil or blank value removes the key.
	Patch map[string]any
	// Full replaces the whole blob; it may carry reserved keys only
	// unchanged, except that a note or decision list may gain entries
	// after its stored ones.
	Full map[string]any
	// Create marks an item create: defaults are injected and the result is Patch.
	Create           bool
	RefuseUndeclared bool
	Resolver         RelationResolver
}

// Apply validates the write and returns the fields to store and the
// warnings to report. On a refusal nothing is to be stored.
func (w FieldWrite) Apply() (map[string]any, Warnings, error) {
	var warn Warnings
	if w.Patch != nil && w.Full != nil {
		return nil, warn, BadRequest("fields and fields_patch are mutually exclusive: send one")
	}
	out := map[string]any{}
	written := map[string]any{}
	if w.Full != nil {
		for k, v := range w.Full {
			written[k] = v
		}
		// Reserved keys ride along unchanged; leaving one out would delete it.
		// A note or decision list may grow by entries after its stored ones:
		// that is how Pad's own clients append one (they read the item and
		// write its fields back with the entry added), kept as written.
		for _, k := range ReservedFields() { // fixed order: one refusal, always the same
			sv, stored := w.Stored[k]
			if k == FieldGitHubPR {
				// The pull request link is the one reserved key a full
				// write may set, change or drop, as Pad's server allows:
				// Pad's CLI links (`pad github link`) by writing the
				// fields back with it and unlinks by writing them back
				// without it. A new link is checked as link-pr checks it.
				nv, ok := w.Full[k]
				delete(written, k)
				switch {
				case !ok || nv == nil:
				case stored && EqualJSON(sv, nv):
					out[k] = sv
				default:
					if err := CheckReserved(k, nv); err != nil {
						return nil, warn, err
					}
					out[k] = nv
				}
				continue
			}
			if nv, ok := w.Full[k]; ok && entriesGrow(k, sv, nv) {
				out[k] = nv
				delete(written, k)
				continue
			}
			if !stored {
				continue
			}
			nv, ok := w.Full[k]
			if !ok {
				return nil, warn, Invalid("full fields would delete the reserved key %q: carry it unchanged or use fields_patch", k).With("field", k).With("reason", ReasonReserved)
			}
			if !EqualJSON(sv, nv) {
				return nil, warn, Invalid("field %q is reserved system metadata and cannot be changed through fields", k).With("field", k).With("reason", ReasonReserved)
			}
			out[k] = sv
			delete(written, k)
		}
	} else {
		for k, v := range w.Stored {
			out[k] = v
		}
		for k, v := range w.Patch {
			written[k] = v
		}
	}
	keys := make([]string, 0, len(written))
	for k := range written {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	var issues []*FieldIssue
	var undeclared []string
	for _, k := range keys {
		v := written[k]
		if IsReservedField(k) {
			return nil, warn, Invalid("field %q is reserved system metadata and cannot be set directly; use the note, decide or link-pr actions", k).With("field", k).With("reason", ReasonReserved)
		}
		if !ValidFieldKey(k) {
			return nil, warn, Invalid("field key %q may contain only letters, digits, '_' and '-'", k).With("field", k)
		}
		def, declared := w.Schema.Field(k)
		if !declared {
			undeclared = append(undeclared, k)
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
			continue
		}
		if def.Computed {
			warn.DroppedFields = append(warn.DroppedFields, k)
			continue
		}
		if clears(def, v) {
			if def.Required {
				issues = append(issues, issue(k, ReasonRequired, "field %q is required and cannot be emptied", k))
				continue
			}
			delete(out, k)
			continue
		}
		if is := ValidateValue(def, v); is != nil {
			issues = append(issues, is)
			continue
		}
		rv, is := w.resolve(def, v, w.Stored[k])
		if is != nil {
			issues = append(issues, is)
			continue
		}
		out[k] = rv
	}
	if len(undeclared) > 0 {
		if w.RefuseUndeclared {
			return nil, warn, Invalid("undeclared field keys refused (refuse_undeclared_fields): %s", strings.Join(undeclared, ", ")).
				With("fields", undeclared).With("reason", ReasonUndeclared)
		}
		warn.UndeclaredFields = undeclared
	}
	if err := issuesError(issues); err != nil {
		return nil, warn, err
	}

	if w.Create || w.Full != nil {
		for _, def := range w.Schema.Fields {
			if _, has := out[def.Key]; has || def.Computed {
				continue
			}
			if def.Default != nil && !clears(def, def.Default) { // a blank default is no default
				if is := ValidateValue(def, def.Default); is == nil {
					if rv, is2 := w.resolve(def, def.Default, nil); is2 == nil {
						out[def.Key] = rv
						continue
					}
				}
				if def.Required {
					issues = append(issues, issue(def.Key, ReasonRequired,
						"field %q is required and its schema default %v is not a valid value; set it explicitly", def.Key, def.Default))
					continue
				}
				warn.DroppedFields = append(warn.DroppedFields, def.Key)
				continue
			}
			if def.Required {
				issues = append(issues, issue(def.Key, ReasonRequired, "field %q is required", def.Key))
			}
		}
	}
	if err := issuesError(issues); err != nil {
		return nil, warn, err
	}
	return out, warn, nil
}

// clears reports whether writing v removes the key: null, "", an empty
// list, and for relations a whitespace-only string too.
func clears(def FieldDef, v any) bool {
	if s, ok := v.(string); ok && s != "" && def.Type != TypeRelation {
		return false
	}
	return blank(v)
}

// resolve maps relation values to item ids. A value equal to what is
// stored was not sent by the caller and is never refused.
func (w FieldWrite) resolve(def FieldDef, v, stored any) (any, *FieldIssue) {
	switch def.Type {
	case TypeRelation:
		if stored != nil && EqualJSON(v, stored) {
			return v, nil
		}
		s := strings.TrimSpace(v.(string))
		if def.Collection == "" {
			return nil, issue(def.Key, ReasonTargetMissing, "field %q is a relation with no target collection; declare one in the schema", def.Key)
		}
		if w.Resolver == nil {
			return s, nil
		}
		id, reason := w.Resolver.ResolveRelation(def.Collection, s)
		if reason != "" {
			return nil, relationIssue(def, s, reason, nil)
		}
		return id, nil
	case TypeMultiRelation:
		if stored != nil && EqualJSON(v, stored) {
			return v, nil
		}
		ss, _ := asStrings(v)
		if def.Collection == "" {
			return nil, issue(def.Key, ReasonTargetMissing, "field %q is a multi_relation with no target collection; declare one in the schema", def.Key)
		}
		out := make([]any, 0, len(ss))
		seen := map[string]bool{}
		for i, s := range ss {
			s = strings.TrimSpace(s)
			id := s
			if w.Resolver != nil {
				var reason string
				id, reason = w.Resolver.ResolveRelation(def.Collection, s)
				if reason != "" {
					return nil, relationIssue(def, s, reason, &i)
				}
			}
			if seen[id] {
				is := issue(def.Key, ReasonDuplicateReferent, "field %q element %d (%q) names the same item as an earlier element", def.Key, i, s)
				is.Index = &i
				return nil, is
			}
			seen[id] = true
			out = append(out, id)
		}
		return out, nil
	}
	return v, nil
}

func relationIssue(def FieldDef, value, reason string, index *int) *FieldIssue {
	var is *FieldIssue
	switch reason {
	case ReasonAmbiguous:
		is = issue(def.Key, reason, "field %q value %q matches more than one item in %q by title; use its ref", def.Key, value, def.Collection)
	default:
		is = issue(def.Key, ReasonNotFound, "field %q value %q names no live item in collection %q (give an id, a ref, or an exact title)", def.Key, value, def.Collection)
	}
	is.Index = index
	return is
}

// SplitFieldEntry parses one "key=value" entry (ITM-12): the key may not
// be padded, the value is kept verbatim. Every door calls this.
func SplitFieldEntry(entry string) (key, value string, err error) {
	i := strings.IndexByte(entry, '=')
	if i < 0 {
		return "", "", Invalid("field entry %q has no '=': write key=value", entry).With("entry", entry)
	}
	key, value = entry[:i], entry[i+1:]
	switch {
	case key == "":
		return "", "", Invalid("field entry %q has an empty key: write key=value", entry).With("entry", entry)
	case strings.TrimSpace(key) != key:
		return "", "", Invalid("field entry %q has spaces around its key %q: write %s=value", entry, key, strings.TrimSpace(key)).With("entry", entry)
	}
	return key, value, nil
}

// CoerceEntryValue types a key=value entry's text by the field's
// declaration: numbers stay exact, checkboxes become booleans, multi
// fields split on commas, json parses. Undeclared keys stay text.
func CoerceEntryValue(def *FieldDef, raw string) (any, error) {
	if def == nil {
		return raw, nil
	}
	switch def.Type {
	case TypeNumber:
		if raw == "" {
			return nil, nil
		}
		n := json.Number(strings.TrimSpace(raw))
		if !IsNumber(n) {
			return nil, Invalid("field %q must be a number, got %q", def.Key, raw).With("field", def.Key).With("reason", ReasonWrongType)
		}
		return n, nil
	case TypeCheckbox:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, Invalid("field %q must be true or false, got %q", def.Key, raw).With("field", def.Key).With("reason", ReasonWrongType)
		}
		return b, nil
	case TypeMultiSelect, TypeMultiRelation:
		if raw == "" {
			return []any{}, nil
		}
		parts := strings.Split(raw, ",")
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = strings.TrimSpace(p)
		}
		return out, nil
	case TypeJSON:
		v, err := DecodeJSON([]byte(raw))
		if err != nil {
			return nil, Invalid("field %q must be JSON: %v", def.Key, err).With("field", def.Key).With("reason", ReasonWrongType)
		}
		return v, nil
	}
	return raw, nil
}

// DecodeJSON decodes one JSON value keeping numbers exact (json.Number).
func DecodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// dec.More() would miss a stray ']' or '}': only EOF may follow.
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// MergeFieldSources folds the ways a caller can name field values (the
// fields object, key=value entries, dedicated params like status) into
// one map. Equal duplicates collapse; conflicting ones are refused.
func MergeFieldSources(schema Schema, object map[string]any, entries []string, dedicated map[string]any) (map[string]any, error) {
	out := map[string]any{}
	from := map[string]string{}
	put := func(k string, v any, src string) error {
		if old, ok := out[k]; ok && !EqualJSON(old, v) {
			return Invalid("field %q is given twice with different values (%s and %s): send it once", k, from[k], src).With("field", k)
		}
		out[k] = v
		from[k] = src
		return nil
	}
	for k, v := range object {
		if err := put(k, v, "fields"); err != nil {
			return nil, err
		}
	}
	for _, e := range entries {
		k, raw, err := SplitFieldEntry(e)
		if err != nil {
			return nil, err
		}
		var def *FieldDef
		if d, ok := schema.Field(k); ok {
			def = &d
		}
		v, err := CoerceEntryValue(def, raw)
		if err != nil {
			return nil, err
		}
		if err := put(k, v, "field "+k+"="); err != nil {
			return nil, err
		}
	}
	dk := make([]string, 0, len(dedicated))
	for k := range dedicated {
		dk = append(dk, k)
	}
	sort.Strings(dk)
	for _, k := range dk {
		if err := put(k, dedicated[k], k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CompareNumbers orders two JSON numbers exactly; ok is false when
// either is not a number.
func CompareNumbers(a, b any) (c int, ok bool) {
	ra, rb := ratOf(a), ratOf(b)
	if ra == nil || rb == nil {
		return 0, false
	}
	return ra.Cmp(rb), true
}
