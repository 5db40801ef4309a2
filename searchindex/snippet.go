package searchindex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// Snippets are cut from the item's text at answer time rather than
// highlighted by Bleve: the index then stores no bodies and no term
// vectors, which makes it half the size and indexing much faster, and
// the text cut is the item's current text.

const (
	snippetBefore = 60  // characters of context before the first match
	snippetLen    = 200 // characters in a snippet
)

var enAnalyzer = func() analysis.Analyzer {
	a, err := registry.NewCache().AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		panic("searchindex: english analyzer: " + err.Error())
	}
	return a
}()

// queryTerms are the analyzed terms and raw prefixes a snippet marks.
type queryTerms struct {
	terms    map[string]bool
	prefixes []string
}

func termsOf(q string) queryTerms {
	p := Parse(q)
	qt := queryTerms{terms: map[string]bool{}, prefixes: p.Prefixes}
	texts := append(append([]string{}, p.Words...), p.Phrases...)
	texts = append(texts, p.Refs...)
	for _, t := range texts {
		for _, tok := range enAnalyzer.Analyze([]byte(t)) {
			qt.terms[string(tok.Term)] = true
		}
	}
	return qt
}

// Snippet returns about 200 characters of text around the first place a
// query matches, matches wrapped in <mark>, or "" when nothing matches.
func Snippet(text, query string) string {
	return termsOf(query).snippet(text)
}

func (qt queryTerms) snippet(text string) string {
	if text == "" || (len(qt.terms) == 0 && len(qt.prefixes) == 0) {
		return ""
	}
	// Analyze a chunk at a time until the first match, then only the
	// snippet's window: a long body is not analyzed whole for 200 bytes.
	// A cheap look for the terms' text first says where to start, or
	// that there is nothing to find (a hit on the title alone).
	from, ok := qt.firstCandidate(text)
	if !ok {
		return ""
	}
	first := -1
	for at := wordStart(text, from); at < len(text) && first < 0; {
		end := wordEnd(text, min(len(text), at+1024))
		if hits := qt.matches(text, at, end); len(hits) > 0 {
			first = hits[0][0]
		}
		at = end
	}
	if first < 0 {
		return ""
	}
	start := wordStart(text, max(0, first-snippetBefore))
	end := wordEnd(text, min(len(text), start+snippetLen))
	hits := qt.matches(text, start, end)
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

// firstCandidate finds where the earliest query term could start: the
// first place its text (a stem, so a prefix of the word, less its last
// letter to allow for stemming's changes) appears, case-insensitively.
// ok is false when no term can occur at all. Non-ASCII text, whose
// lower-casing can move byte offsets, starts from the beginning.
func (qt queryTerms) firstCandidate(text string) (int, bool) {
	lower := strings.ToLower(text)
	first := -1
	look := func(probe string) {
		if i := strings.Index(lower, probe); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	for t := range qt.terms {
		if len(t) > 3 {
			t = t[:len(t)-1]
		}
		look(t)
	}
	for _, p := range qt.prefixes {
		look(p)
	}
	switch {
	case first < 0:
		return 0, false
	case len(lower) != len(text):
		return 0, true
	}
	return first, true
}

// matches returns the spans of text[from:to] that match the query.
func (qt queryTerms) matches(text string, from, to int) [][2]int {
	var hits [][2]int
	for _, tok := range enAnalyzer.Analyze([]byte(text[from:to])) {
		s, e := from+tok.Start, from+tok.End
		if qt.terms[string(tok.Term)] || qt.prefixed(strings.ToLower(text[s:e])) {
			hits = append(hits, [2]int{s, e})
		}
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
