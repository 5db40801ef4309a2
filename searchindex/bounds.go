package searchindex

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search/searcher"
	"github.com/padd/padd/model"
)

// A query is bounded before it runs, so that no one request can take the
// machine: a long word builds a typo automaton Bleve gives up on, and
// every term, prefix and typo-tolerant word is a clause whose cost grows
// with what it matches. A query over a bound is refused with a coded
// validation_error that names the bound (details: field "q", reason,
// limit); the bounds that do not refuse degrade as their comments say.
// The query's own length is model.LimitQuery.
const (
	// MaxTerms bounds the terms a query searches for (model's, which
	// says what counts).
	MaxTerms = model.MaxQueryTerms
	// MaxTermChars bounds one term (a word as the index holds it) and
	// one prefix, in characters.
	MaxTermChars = 100
	// MaxExpansions bounds the words of the index one prefix* or one
	// typo-tolerant word stands for. A prefix that matches more is
	// refused; a typo-tolerant search that would is not run, and the
	// answer is the exact search's (no hits).
	MaxExpansions = 1024
	// MaxPrefixes bounds the prefix* words of a query: each stands for
	// up to MaxExpansions words in every text field.
	MaxPrefixes = 8
	// maxFuzzyChars is the longest term the typo-tolerant search
	// tolerates a typo in; a longer one must match exactly.
	maxFuzzyChars = 20
	// maxFuzzyWords is how many of a query's words (the first ones) the
	// typo-tolerant search tolerates a typo in; the others must match
	// exactly. Each such word is an automaton and a disjunction of the
	// words it stands for.
	maxFuzzyWords = 8
)

func init() {
	// searchindex is the only package that runs Bleve queries: a prefix
	// or typo expansion over this many words fails with Bleve's
	// TooManyClauses rather than building a searcher per word.
	searcher.DisjunctionMaxClauseCount = MaxExpansions
}

// tooManyClauses reports whether err is Bleve's refusal of an expansion
// over MaxExpansions.
func tooManyClauses(err error) bool {
	return err != nil && strings.Contains(err.Error(), "TooManyClauses")
}

// queryRefusal is a query's refusal: a validation_error on q, as one
// over model.LimitQuery is, with the bound's reason and limit.
func queryRefusal(reason string, limit int, format string, args ...any) error {
	return model.Invalid(format, args...).With("field", "q").With("reason", reason).With("limit", limit)
}

// checkBounds refuses a parsed query over MaxTerms or MaxTermChars. It
// runs after dropStopwords, on the terms the index would look up.
func checkBounds(p *Parsed) error {
	terms := 0
	count := func(text string) error {
		for _, tok := range queryAn.Analyze([]byte(text)) {
			if n := utf8.RuneCount(tok.Term); n > MaxTermChars {
				return queryRefusal("word_too_long", MaxTermChars,
					"the search word %q is %d characters long; a search word is at most %d", model.Excerpt(string(tok.Term)), n, MaxTermChars)
			}
			terms++
		}
		return nil
	}
	for _, group := range [][]string{p.Words, p.Phrases, p.Exclude, p.InTitle} {
		for _, w := range group {
			if err := count(w); err != nil {
				return err
			}
		}
	}
	for _, pre := range p.Prefixes {
		if n := utf8.RuneCountInString(pre); n > MaxTermChars {
			return queryRefusal("word_too_long", MaxTermChars,
				"the prefix %q is %d characters long; a search word is at most %d", model.Excerpt(pre)+"*", n, MaxTermChars)
		}
	}
	if len(p.Prefixes) > MaxPrefixes {
		return queryRefusal("too_many_prefixes", MaxPrefixes,
			"the query has %d prefix* words; a search takes at most %d", len(p.Prefixes), MaxPrefixes)
	}
	terms += len(p.Prefixes) + len(p.Refs)
	for _, vs := range p.Filters {
		terms += len(vs)
	}
	if terms > MaxTerms {
		return queryRefusal("too_many_terms", MaxTerms,
			"the query has %d search terms; a search takes at most %d: keep the words that set what you look for apart", terms, MaxTerms)
	}
	return nil
}

// refuseUnsupported refuses what the language does not have, rather
// than search it as words: a name:value whose name is no filter (Pad's
// users type FTS5's column filters), and OR.
func refuseUnsupported(p *Parsed) error {
	if c := strings.ToLower(p.Unknown); c == "content:" || c == "body:" {
		return queryRefusal("unknown_filter", 0,
			"%q is not a search filter in padd: a plain word already searches the content (and the title, comments and tags); title: keeps a word to the title", p.Unknown)
	}
	if p.Unknown != "" {
		return queryRefusal("unknown_filter", 0,
			"%q is not a search filter; the filters are %s (put text with a colon in \"quotes\" to search it as words)", p.Unknown, FilterNames)
	}
	if p.Or {
		return queryRefusal("unsupported_operator", 0,
			"padd's search has no OR: every word must match; search for each alternative on its own")
	}
	return nil
}

// expansionRefusal turns Bleve's refusal of a prefix that matches too
// many words into a coded one.
func expansionRefusal(p *Parsed) error {
	return queryRefusal("too_many_expansions", MaxExpansions,
		"a prefix in the query (%s) matches more than %d words; give more of the word before the *", model.Excerpt(strings.Join(p.Prefixes, "* ")+"*"), MaxExpansions)
}
