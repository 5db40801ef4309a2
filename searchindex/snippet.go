package searchindex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippets are cut from the item's text at answer time rather than
// highlighted by Bleve: the index then stores no bodies and no term
// vectors, which makes it smaller and indexing faster
// (docs/PERFORMANCE.md, "Why the code is as it is"), and the text cut is the
// item's current text.

const (
	snippetBefore = 60  // characters of context before the first match
	snippetLen    = 200 // characters in a snippet
)

// queryTerms are the analyzed terms and raw prefixes a snippet marks.
type queryTerms struct {
	terms    map[string]bool
	prefixes []string
}

func termsOf(q string) queryTerms {
	p := Parse(q)
	qt := queryTerms{terms: map[string]bool{}, prefixes: p.Prefixes}
	texts := append(append([]string{}, p.Words...), p.Phrases...)
	texts = append(append(texts, p.Refs...), p.InTitle...)
	for _, t := range texts {
		for _, tok := range queryAn.Analyze([]byte(t)) {
			qt.terms[string(tok.Term)] = true
		}
	}
	return qt
}

// Snippet returns about 200 characters of text around the first place a
// query matches, matches wrapped in <mark>, or "" when nothing matches.
func Snippet(text, query string) string {
	return NewSnippeter(query).Snippet(text)
}

// Snippeter cuts the snippets of one query's hits; the query is parsed
// and analyzed once, not once per hit.
type Snippeter struct{ qt queryTerms }

func NewSnippeter(query string) Snippeter { return Snippeter{termsOf(query)} }

// Snippet is the package's Snippet for this query.
func (s Snippeter) Snippet(text string) string { return s.qt.snippet(text) }

func (qt queryTerms) snippet(text string) string {
	if text == "" || (len(qt.terms) == 0 && len(qt.prefixes) == 0) {
		return ""
	}
	f := qt.finder(text)
	first := f.firstMatch()
	if first < 0 {
		return ""
	}
	start := wordStart(text, max(0, first-snippetBefore))
	end := wordEnd(text, min(len(text), start+snippetLen))
	hits := f.matches(start, end)
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	at := start
	for _, h := range hits {
		if h[0] < start || h[1] > end {
			continue
		}
		b.WriteString(flatten(text[at:h[0]]))
		b.WriteString("<mark>" + text[h[0]:h[1]] + "</mark>")
		at = h[1]
	}
	b.WriteString(flatten(text[at:end]))
	if end < len(text) {
		b.WriteString("…")
	}
	return strings.TrimSpace(b.String())
}

// finder finds a query's matches in one text. A long body is not
// analyzed whole for one 200-byte snippet: a cheap look for the terms'
// text (its "probes") finds the places a match can be, and only the
// words around each are analyzed. A probe is a term less its last letter
// (stemming changes word ends: "studies" is "studi"), lower-cased, or a
// query prefix.
type finder struct {
	qt     queryTerms
	text   string
	lower  string // text lower-cased, "" if that moved byte offsets
	probes []string
}

func (qt queryTerms) finder(text string) finder {
	f := finder{qt: qt, text: text}
	lower := strings.ToLower(text)
	if len(lower) != len(text) || strings.IndexByte(text, 0xEF) >= 0 {
		// Lower-casing moved byte offsets (some non-ASCII letters), or
		// the text may hold full- or half-width forms (U+FF01-U+FF9F,
		// lead byte 0xEF), which the analyzer folds (ＡＰＩ is api) where
		// no probe finds them: the text is analyzed a chunk at a time
		// instead.
		return f
	}
	f.lower = lower
	for t := range qt.terms {
		if len(t) > 2 {
			t = t[:len(t)-1] // "fly" is "fli"
		}
		f.probes = append(f.probes, t)
	}
	f.probes = append(f.probes, qt.prefixes...)
	return f
}

// firstMatch returns where the first token matching the query starts, or
// -1.
func (f finder) firstMatch() int {
	if f.lower == "" {
		return f.qt.firstMatchFrom(f.text, 0)
	}
	if hits := f.scan(0, len(f.text), true); len(hits) > 0 {
		return hits[0][0]
	}
	return -1
}

// matches returns the spans of text[from:to] that match the query; from
// and to are word boundaries.
func (f finder) matches(from, to int) [][2]int {
	if f.lower == "" {
		return f.qt.matches(f.text, from, to)
	}
	return f.scan(from, to, false)
}

// scan analyzes the words of text[from:to] where a probe occurs, in
// order, and returns their matches: only the first word's that has any
// if first.
func (f finder) scan(from, to int, first bool) [][2]int {
	lower := f.lower[:to]
	// next[i] is where probe i next occurs at or after the current
	// position (-1: nowhere), so each probe scans the text once.
	next := make([]int, len(f.probes))
	for i, p := range f.probes {
		if next[i] = strings.Index(lower[from:], p); next[i] >= 0 {
			next[i] += from
		}
	}
	var hits [][2]int
	for at := from; ; {
		pos, plen := -1, 0
		for i, p := range f.probes {
			if next[i] >= 0 && next[i] < at {
				if j := strings.Index(lower[at:], p); j >= 0 {
					next[i] = at + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (pos < 0 || next[i] < pos) {
				pos, plen = next[i], len(p)
			}
		}
		if pos < 0 {
			return hits
		}
		wfrom, wto := max(from, wordStart(f.text, pos)), min(to, wordEnd(f.text, pos+plen))
		if h := f.qt.matches(f.text, wfrom, wto); len(h) > 0 {
			hits = append(hits, h...)
			if first {
				return hits
			}
		}
		// Go on after these words, so no byte is analyzed twice (a long
		// run without spaces is one "word").
		at = max(pos+1, wto)
	}
}

// firstMatchFrom analyzes text a chunk at a time from byte at until the
// first match.
func (qt queryTerms) firstMatchFrom(text string, at int) int {
	for at = wordStart(text, at); at < len(text); {
		end := wordEnd(text, min(len(text), at+1024))
		if hits := qt.matches(text, at, end); len(hits) > 0 {
			return hits[0][0]
		}
		at = end
	}
	return -1
}

// matches returns the spans of text[from:to] that match the query.
func (qt queryTerms) matches(text string, from, to int) [][2]int {
	var hits [][2]int
	for _, tok := range indexAn.Analyze([]byte(text[from:to])) {
		s, e := from+tok.Start, from+tok.End
		if !qt.terms[string(tok.Term)] && !qt.prefixed(strings.ToLower(text[s:e])) {
			continue
		}
		// Bigrams overlap (支払い: 支払 払い): one mark covers both.
		if n := len(hits); n > 0 && s < hits[n-1][1] {
			hits[n-1][1] = max(hits[n-1][1], e)
			continue
		}
		hits = append(hits, [2]int{s, e})
	}
	return hits
}

func (qt queryTerms) prefixed(word string) bool {
	for _, p := range qt.prefixes {
		if strings.HasPrefix(word, p) {
			return true
		}
	}
	return false
}

// wordStart moves i back to the start of the word it is in.
func wordStart(s string, i int) int {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsSpace(r) {
			break
		}
		i -= n
	}
	return i
}

// wordEnd moves i forward to the end of the word it is in.
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// flatten keeps a snippet on one line: every run of white space
// (newlines included) becomes one space.
func flatten(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}
