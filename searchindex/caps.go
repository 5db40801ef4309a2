package searchindex

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/padd/padd/storage"
)

// What one document costs the index is bounded by what it is given, not
// by what the item holds (docs/RELIABILITY.md, "The search index costs
// what it is given"): Bleve keeps each term whole in its dictionary, its
// postings and every merge of them, so one long word (a pasted blob) is
// as costly as the whole of it, again and again.
const (
	// MaxIndexedTermChars is where a word is cut before it reaches Bleve:
	// its first MaxTermChars characters are indexed (as search engines
	// do), the longest word a query may ask for, so every word a query
	// can hold finds what it found before.
	MaxIndexedTermChars = MaxTermChars
	// MaxIndexedBodyBytes bounds the text indexed for one item (its
	// title, content, comments, text fields and tags, in that order): a
	// longer body is indexed up to there, so the tail of a 2 MiB content
	// past it, or the comments after such a content, are not searched.
	// One batch holds at most this much text, or one document.
	MaxIndexedBodyBytes = 2 << 20
)

// cutTermFilter is the token filter that cuts a word to
// MaxIndexedTermChars, in place (no copy of a long word is made). It is
// the index analyzer's first filter; a query word past MaxTermChars is
// refused before analysis instead.
const cutTermFilter = "padd_cut_term"

type cutTerm struct{}

func (cutTerm) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, tok := range in {
		tok.Term = cutRunes(tok.Term, MaxIndexedTermChars)
	}
	return in
}

// cutRunes is b's first n characters (all of b when it is shorter).
func cutRunes(b []byte, n int) []byte {
	if len(b) <= n { // bytes bound characters from above
		return b
	}
	for i := range b {
		if utf8.RuneStart(b[i]) {
			if n == 0 {
				return b[:i]
			}
			n--
		}
	}
	return b
}

// indexedBytes is about how much of d's text is indexed (its title,
// content and comments; fields and tags are small), for sizing batches.
func indexedBytes(d storage.IndexDoc) int {
	if d.Gone || d.Item == nil {
		return 0
	}
	n := len(d.Item.Title) + len(d.Item.Content)
	for _, c := range d.Comments {
		n += len(c)
	}
	return min(n, MaxIndexedBodyBytes)
}

// cutBody is s cut to MaxIndexedBodyBytes, at a character's start.
func cutBody(s string) string {
	if len(s) <= MaxIndexedBodyBytes {
		return s
	}
	i := MaxIndexedBodyBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
