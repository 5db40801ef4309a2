package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limit is the most characters one kind of user-supplied string may
// hold. Storage checks every write's user text against these
// (storage.CheckInput), whatever the door (REST, padctl, MCP, sync,
// mirror files, bundles), and padd's handlers check them before a write
// or a search starts: a string over its limit is refused with a 400
// validation_error naming the limit (details: field, limit, length),
// never stored, and never echoed back whole.
//
// The bounds keep every string well inside what storage can hold: tags,
// field keys and field values are parts of the list index's keys, and a
// bbolt key holds at most 32,768 bytes (4 bytes a character at worst).
type Limit struct {
	// Name is the member the limit is for, as the refusal names it.
	Name string
	// Max is the most characters (Unicode code points) allowed.
	Max int
	// Of says what the string is, for the docs.
	Of string
}

// The limits, one per kind of string.
var (
	LimitTitle       = Limit{"title", 1_000, "an item's title"}
	LimitContent     = Limit{"content", 2 << 20, "an item's body (the 2 MiB request body bounds it first)"}
	LimitTag         = Limit{"tag", 100, "one tag"}
	LimitFieldKey    = Limit{"field key", 64, "a field's key (letters, digits, '_' and '-')"}
	LimitFieldValue  = Limit{"field value", 4_000, "one field value (each element of a list value)"}
	LimitSlug        = Limit{"slug", 100, "a workspace, collection or role slug given by hand"}
	LimitName        = Limit{"name", 200, "a workspace's, collection's or role's name"}
	LimitPrefix      = Limit{"prefix", 20, "a collection's ref prefix"}
	LimitIcon        = Limit{"icon", 100, "a collection's or role's icon"}
	LimitDescription = Limit{"description", 10_000, "a workspace's, collection's or role's description"}
	LimitComment     = Limit{"comment", 100_000, "a comment's body, a change summary, a note or a decision"}
	LimitSchema      = Limit{"fields", 100_000, "a collection's fields, in the field DSL"}
	LimitQuery       = Limit{"q", MaxQueryChars, "a search query"}
	LimitMatchText   = Limit{"text", 10_000, "the text a playbook match is asked about"}
	LimitEmoji       = Limit{"emoji", 32, "a comment reaction's emoji (no control characters)"}
	LimitViewConfig  = Limit{"config", 64_000, "a saved view's config, as compact JSON text"}
	LimitContextText = Limit{"context value", 2_000, "one string of a workspace's context"}
	limitsTable      = []Limit{LimitTitle, LimitContent, LimitTag, LimitFieldKey, LimitFieldValue, LimitSlug, LimitName, LimitPrefix, LimitIcon, LimitDescription, LimitComment, LimitSchema, LimitQuery, LimitMatchText, LimitEmoji, LimitViewConfig, LimitContextText}
)

// MaxQueryChars is LimitQuery's maximum.
const MaxQueryChars = 2_000

// MaxQueryTerms bounds the terms one search looks for (words, each term
// of a word like "x-y", the words of phrases and exclusions, prefixes,
// refs and field:value filters); searchindex refuses a query over it.
const MaxQueryTerms = 32

// Limits is the table of limits, for docs and tests.
func Limits() []Limit { return append([]Limit(nil), limitsTable...) }

// Check refuses s when it is longer than the limit.
func (l Limit) Check(s string) error {
	if len(s) <= l.Max { // bytes bound characters from above
		return nil
	}
	if n := utf8.RuneCountInString(s); n > l.Max {
		return Invalid("%s is %d characters long; the most it may be is %d (it starts %q)", l.Name, n, l.Max, Excerpt(s)).
			With("field", l.Name).With("limit", l.Max).With("length", n)
	}
	return nil
}

// CheckPtr checks *s when s is not nil.
func (l Limit) CheckPtr(s *string) error {
	if s == nil {
		return nil
	}
	return l.Check(*s)
}

// CheckEach checks every string of ss.
func (l Limit) CheckEach(ss []string) error {
	for _, s := range ss {
		if err := l.Check(s); err != nil {
			return err
		}
	}
	return nil
}

// CheckFields checks a field map's keys and values: a string or number
// value against LimitFieldValue, a list value element by element, and a
// value that nests (an object, a list inside a list: Pad keeps a key its
// schema does not declare as it is) by its JSON text, so that neither
// its size nor its depth is unbounded. Reserved keys' values are
// CheckReserved's. Keys are checked in order, so the same map always
// gives the same refusal.
func CheckFields(fields map[string]any) error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := LimitFieldKey.Check(k); err != nil {
			return err
		}
		v := fields[k]
		if !IsReservedField(k) {
			if err := checkNested(k, v); err != nil {
				return err
			}
		}
		if err := checkFieldValue(k, v); err != nil {
			return err
		}
	}
	return nil
}

// checkNested holds a value that nests (an object, or a list holding a
// list or an object) to LimitFieldValue as JSON text.
func checkNested(key string, v any) error {
	switch v := v.(type) {
	case map[string]any:
	case []any:
		if !slices.ContainsFunc(v, func(e any) bool {
			switch e.(type) {
			case map[string]any, []any:
				return true
			}
			return false
		}) {
			return nil
		}
	default:
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Invalid("field %q holds a value that is not JSON: %v", Excerpt(key), err).With("field", LimitFieldValue.Name).With("key", Excerpt(key))
	}
	if err := LimitFieldValue.Check(strings.TrimSuffix(b.String(), "\n")); err != nil {
		e, _ := AsError(err)
		return e.With("key", Excerpt(key))
	}
	return nil
}

func checkFieldValue(key string, v any) error {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case json.Number:
		s = string(v)
	case fmt.Stringer:
		s = v.String()
	case []any:
		for _, e := range v {
			if err := checkFieldValue(key, e); err != nil {
				return err
			}
		}
		return nil
	case []string:
		for _, e := range v {
			if err := checkFieldValue(key, e); err != nil {
				return err
			}
		}
		return nil
	default:
		return nil
	}
	if err := LimitFieldValue.Check(s); err != nil {
		e, _ := AsError(err)
		return e.With("key", Excerpt(key))
	}
	return nil
}

// FirstError is the first non-nil of errs.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Excerpt is s as a refusal may quote it: its first 40 characters, and
// "…" when there was more.
func Excerpt(s string) string {
	n := 0
	for i := range s {
		if n == 40 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
