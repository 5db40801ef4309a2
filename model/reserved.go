package model

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Reserved metadata as an export carries it (pad-inventory IMP-01,
// ITM-14). No write door sets a reserved key: the system writes them
// (a note, a decision, a library activation, a PR link); a full fields
// write may only add notes and decisions after the stored ones, as
// Pad's own clients append them (entriesGrow). A workspace
// import takes them back as what they are, the system's metadata, apart
// from the field write that refuses them; these are the shapes it
// accepts, so that a bundle cannot slip anything else in under their
// names.

// SplitReserved returns fields without the reserved keys, and the
// reserved values apart, each checked (CheckReserved). A null reserved
// value is kept as nil: a removal in a patch, nothing in a create.
// fields itself is not changed.
func SplitReserved(fields map[string]any) (plain, reserved map[string]any, err error) {
	plain = fields
	for _, k := range ReservedFields() { // fixed order: one refusal, always the same
		v, ok := fields[k]
		if !ok {
			continue
		}
		if reserved == nil {
			plain = make(map[string]any, len(fields))
			for fk, fv := range fields {
				if !IsReservedField(fk) {
					plain[fk] = fv
				}
			}
		}
		if v != nil {
			if err := CheckReserved(k, v); err != nil {
				return nil, nil, err
			}
		}
		if reserved == nil {
			reserved = map[string]any{}
		}
		reserved[k] = v
	}
	return plain, reserved, nil
}

// CheckReserved checks one reserved key's value:
//   - implementation_notes: a list of entries, each an object with a
//     non-empty summary (details, id, created_at, created_by, agent ...);
//   - decision_log: a list of entries, each with a non-empty decision;
//   - convention: a non-empty object (category, trigger, surfaces,
//     enforcement, commands) of strings and lists of strings;
//   - github_pr: an object with a positive whole number and an absolute
//     http(s) url (title, state, branch, repo, updated_at ...).
//
// An entry's members are strings, numbers, booleans or null, and a
// convention's lists hold strings, so nothing nests; each string is
// held to the limit of its kind (a note's or decision's text to the
// comment limit, the rest to a field value's).
func CheckReserved(key string, v any) error {
	switch key {
	case FieldImplementationNotes:
		return checkEntries(key, v, "summary")
	case FieldDecisionLog:
		return checkEntries(key, v, "decision")
	case FieldConvention:
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			return reservedShape(key, "is not a non-empty object")
		}
		for _, mk := range sortedKeys(m) {
			if err := checkScalar(key, mk, m[mk], LimitFieldValue, true); err != nil {
				return err
			}
		}
		return nil
	case FieldGitHubPR:
		m, ok := v.(map[string]any)
		if !ok {
			return reservedShape(key, "is not an object")
		}
		if n, ok := wholeNumber(m["number"]); !ok || n <= 0 {
			return reservedShape(key, "has no positive whole number")
		}
		u, _ := m["url"].(string)
		if p, err := url.Parse(u); err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
			return reservedShape(key, "has no absolute http(s) url")
		}
		for _, mk := range sortedKeys(m) {
			if err := checkScalar(key, mk, m[mk], LimitFieldValue, false); err != nil {
				return err
			}
		}
		return nil
	}
	return Invalid("field %q is not reserved metadata", key).With("field", key)
}

// PullRequestLink is a pull request an item is linked to (ITM-17), as
// the caller supplies it: padd fetches nothing from GitHub.
type PullRequestLink struct {
	Number                                     int64
	URL, Title, State, Branch, Repo, UpdatedAt string
}

// Value is the link as the reserved github_pr holds it: number and url,
// and each optional member that is given. CheckReserved checks it.
func (p PullRequestLink) Value() map[string]any {
	v := map[string]any{"number": json.Number(strconv.FormatInt(p.Number, 10)), "url": p.URL}
	for k, s := range map[string]string{"title": p.Title, "state": p.State, "branch": p.Branch, "repo": p.Repo, "updated_at": p.UpdatedAt} {
		if s != "" {
			v[k] = s
		}
	}
	return v
}

// checkEntries checks a list of note or decision entries, each needing
// the text member need.
func checkEntries(key string, v any, need string) error {
	list, ok := v.([]any)
	if !ok {
		return reservedShape(key, "is not a list of entries")
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return reservedShape(key, fmt.Sprintf("entry %d is not an object", i)).With("index", i)
		}
		if s, _ := m[need].(string); strings.TrimSpace(s) == "" {
			return reservedShape(key, fmt.Sprintf("entry %d has no %s", i, need)).With("index", i)
		}
		for _, mk := range sortedKeys(m) {
			if err := checkScalar(key, mk, m[mk], LimitComment, false); err != nil {
				if e, ok := AsError(err); ok {
					return e.With("index", i)
				}
				return err
			}
		}
	}
	return nil
}

// checkScalar checks one member of a reserved object: a string within
// lim, a number, a boolean or null, or with lists a list of such
// strings.
func checkScalar(key, member string, v any, lim Limit, lists bool) error {
	switch x := v.(type) {
	case nil, bool, json.Number, float64:
		return nil
	case string:
		if err := lim.Check(x); err != nil {
			e, _ := AsError(err)
			return e.With("key", key).With("member", Excerpt(member))
		}
		return nil
	case []any:
		if lists && allStrings(x) {
			for _, el := range x {
				if err := checkScalar(key, member, el, lim, false); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return reservedShape(key, fmt.Sprintf("member %q is not a plain value", Excerpt(member)))
}

func allStrings(l []any) bool {
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// wholeNumber reads a JSON number that is a whole number.
func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	}
	return 0, false
}

func reservedShape(key, what string) *Error {
	return Invalid("reserved metadata %q %s", key, what).With("field", key).With("reason", ReasonWrongType)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Implementation notes and decisions are lists that only grow: an entry
// is written once (padd's append; Pad's own clients read the item and
// write its fields back with the entry added) and never edited. These
// read the two lists as such, for a write that appends through the
// fields and for the sync engine's merge and push.

// IsEntryList reports whether key is one of the lists that only grow:
// implementation_notes or decision_log.
func IsEntryList(key string) bool {
	return key == FieldImplementationNotes || key == FieldDecisionLog
}

// EntryLists are those keys in a fixed order.
func EntryLists() []string { return []string{FieldDecisionLog, FieldImplementationNotes} }

// Entries reads a list of entries as it is stored: absent (nil) is an
// empty list; ok is false for anything but a list.
func Entries(v any) (list []any, ok bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []any:
		return x, true
	}
	return nil, false
}

// EntriesAdded says how list x grew from list base (either may be
// absent). extends: x holds every entry of base, in order, at its
// start (entries compared as JSON), and added is the rest of x.
// Otherwise added is every entry of x that base lacks, each entry of
// base standing for one of x's; a value that is not a list adds nothing
// and extends nothing.
func EntriesAdded(base, x any) (added []any, extends bool) {
	bl, ok1 := Entries(base)
	xl, ok2 := Entries(x)
	if !ok1 || !ok2 {
		return nil, false
	}
	extends = len(xl) >= len(bl)
	for i := 0; extends && i < len(bl); i++ {
		extends = EqualJSON(bl[i], xl[i])
	}
	if extends {
		return xl[len(bl):], true
	}
	used := make([]bool, len(bl))
	for _, e := range xl {
		found := false
		for i, be := range bl {
			if !used[i] && EqualJSON(be, e) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			added = append(added, e)
		}
	}
	return added, false
}

// SameEntry reports whether a and b, entries of key's list, are one
// entry written twice: the same id, or the same words (a note's summary
// and details, a decision's decision and rationale). A server that
// appends an entry gives it an id and a time of its own, so the copy it
// keeps of an entry sent to it shares only the words.
func SameEntry(key string, a, b any) bool {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	if id, _ := am["id"].(string); id != "" && id == bm["id"] {
		return true
	}
	text, more := "summary", "details"
	if key == FieldDecisionLog {
		text, more = "decision", "rationale"
	}
	s, _ := am[text].(string)
	return s != "" && s == bm[text] && entryString(am[more]) == entryString(bm[more])
}

// entryString is an optional text member of an entry: absent and null
// are "".
func entryString(v any) string {
	s, _ := v.(string)
	return s
}

// entriesGrow reports whether v, written over stored for entry list key,
// appends valid entries and changes nothing else: the way Pad's own
// clients add a note or a decision (a write of the whole fields).
func entriesGrow(key string, stored, v any) bool {
	added, extends := EntriesAdded(stored, v)
	return IsEntryList(key) && extends && len(added) > 0 && CheckReserved(key, added) == nil
}
