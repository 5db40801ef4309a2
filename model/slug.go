package model

import (
	"strconv"
	"strings"
)

// CanonicalSlug applies Pad's workspace slug rule: lowercase a-z, 0-9
// and single hyphens; apostrophes are dropped and any other character
// becomes a hyphen ("My_WS" -> "my-ws", "café" -> "caf").
func CanonicalSlug(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '\'' || r == '’':
			continue
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		default:
			hyphen = true
		}
	}
	out := b.String()
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-")
	}
	return out
}

// WorkspaceSlug picks the slug for a new workspace: the requested slug,
// else one derived from the name, else "workspace"; canonicalised.
func WorkspaceSlug(requested, name string) string {
	if s := CanonicalSlug(requested); s != "" {
		return s
	}
	if s := CanonicalSlug(name); s != "" {
		return s
	}
	return "workspace"
}

// UniqueSlug returns base when taken says it is free, else base-N for a
// free N. The suffixes are probed by doubling, then halving between the
// last taken and the first free one, so a base that k items share costs
// about 2·log2(k) probes, not k: every item whose title has no ASCII
// letter or digit (日本語) shares "item", and a linear probe made the
// 100,000th such create read 100,000 keys. When the taken suffixes are
// 2..k the answer is base-(k+1), as the linear probe gave; with gaps it
// is some free suffix, not always the lowest.
func UniqueSlug(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	name := func(n int) string { return base + "-" + strconv.Itoa(n) }
	lo, hi := 1, 2 // base-lo is taken (1 stands for base itself)
	for taken(name(hi)) {
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 { // base-lo taken, base-hi free
		mid := lo + (hi-lo)/2
		if taken(name(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return name(hi)
}

// ItemSlug derives an item slug from its title, "item" when nothing usable
// remains. Long titles are cut at a word boundary.
func ItemSlug(title string) string {
	s := CanonicalSlug(title)
	if len(s) > 60 {
		s = s[:60]
		if i := strings.LastIndexByte(s, '-'); i > 20 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	if s == "" {
		return "item"
	}
	return s
}

// DerivePrefix makes a ref prefix from a collection name: one word gives
// its first letters (a plural 's' dropped, at most 5), several words give
// their initials (at most 5).
func DerivePrefix(name string) string {
	words := strings.FieldsFunc(strings.TrimSpace(name), func(r rune) bool {
		return r == ' ' || r == '-' || r == '_'
	})
	var clean []string
	for _, w := range words {
		var b strings.Builder
		for _, r := range strings.ToUpper(w) {
			if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			clean = append(clean, b.String())
		}
	}
	var p string
	switch len(clean) {
	case 0:
		return "ITEM"
	case 1:
		w := clean[0]
		if len(w) > 3 && strings.HasSuffix(w, "S") {
			w = w[:len(w)-1]
		}
		if len(w) > 5 {
			w = w[:5]
		}
		p = w
	default:
		var b strings.Builder
		for _, w := range clean {
			if b.Len() < 5 {
				b.WriteByte(w[0])
			}
		}
		p = b.String()
	}
	// A prefix starts with a letter (ValidPrefix); "2024" would make refs
	// no ParseRef accepts.
	p = strings.TrimLeft(p, "0123456789")
	if p == "" {
		return "ITEM"
	}
	return p
}

// ValidPrefix reports whether p can be a ref prefix: 1-10 uppercase
// letters or digits, starting with a letter.
func ValidPrefix(p string) bool {
	if p == "" || len(p) > 10 || p[0] < 'A' || p[0] > 'Z' {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// CollectionAliases lists the names a collection answers to after its
// exact slug: the singular and plural forms ("task" <-> "tasks") and the
// shorthands people type.
func CollectionAliases(name string) []string {
	n := strings.ToLower(strings.TrimSpace(name))
	var out []string
	switch n {
	case "t":
		out = append(out, "tasks")
	case "i":
		out = append(out, "ideas")
	case "p", "phase", "phases":
		out = append(out, "plans")
	case "d":
		out = append(out, "docs")
	}
	if strings.HasSuffix(n, "s") && len(n) > 1 {
		out = append(out, strings.TrimSuffix(n, "s"))
	} else if n != "" {
		out = append(out, n+"s")
	}
	if n != name && n != "" {
		out = append([]string{n}, out...)
	}
	return out
}

// Ref is an item's human address: PREFIX-N.
type Ref struct {
	Prefix string
	Number int64
}

// String spells the ref: PREFIX-N, or PREFIX-LN for a provisional
// (negative) number.
func (r Ref) String() string {
	if r.Number < 0 {
		return r.Prefix + "-L" + strconv.FormatInt(-r.Number, 10)
	}
	return r.Prefix + "-" + strconv.FormatInt(r.Number, 10)
}

// ParseItemRef reads an item's ref: "TASK-12", or a provisional
// "TASK-L12" (an item made in a workspace linked to a remote Pad, before
// the remote numbered it; Pad's refs are digits after the dash, so none
// can equal it), any case. A provisional ref's Number is negative.
func ParseItemRef(s string) (Ref, bool) {
	if r, ok := ParseRef(s); ok {
		return r, true
	}
	i := strings.LastIndexByte(s, '-')
	if i <= 0 || i+2 >= len(s) || (s[i+1] != 'L' && s[i+1] != 'l') {
		return Ref{}, false
	}
	r, ok := ParseRef(s[:i+1] + s[i+2:])
	if !ok {
		return Ref{}, false
	}
	r.Number = -r.Number
	return r, true
}

// ParseRef splits "TASK-12" (any case) into its prefix and number.
func ParseRef(s string) (Ref, bool) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return Ref{}, false
	}
	// ASCII only: strings.ToUpper would turn 'ſ' into 'S' and 'ı' into 'I'.
	p := asciiUpper(s[:i])
	if !ValidPrefix(p) {
		return Ref{}, false
	}
	num := s[i+1:]
	if len(num) > 18 || num[0] == '0' {
		return Ref{}, false
	}
	for j := 0; j < len(num); j++ { // ParseInt alone would take "+5"
		if num[j] < '0' || num[j] > '9' {
			return Ref{}, false
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return Ref{}, false
	}
	return Ref{Prefix: p, Number: n}, true
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
