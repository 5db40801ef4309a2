package searchindex

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// Text is analyzed as Bleve's English analyzer does (possessives,
// lower case, stop words, Porter stems), except for Chinese, Japanese
// and Korean, which do not separate words by spaces (or, in Korean,
// attach particles to them). The Unicode tokenizer cuts Han and kana text
// into single characters, and a search for 支払い then matched every item
// holding い. Runs of those scripts become overlapping bigrams instead
// (支払い: 支払 払い), as Bleve's cjk analyzer does:
//
//   - the index holds each run's single characters and its bigrams
//     (indexAnalyzer), so a one-character word is found too;
//   - a query word becomes its bigrams (queryAnalyzer), searched as a
//     phrase (cjkWord), so it matches where the characters stand
//     together, in that order.
//
// Latin and other scripts pass the CJK filter untouched, so their terms
// are the English analyzer's.
const (
	indexAnalyzer = "padd_text"
	queryAnalyzer = "padd_query"
	indexCJK      = "padd_cjk_index"
	queryCJK      = "padd_cjk_query"
)

// register adds the analyzers to Bleve's registry, where an index finds
// them by name; it runs once, before indexAn and queryAn are made.
func register() {
	must(registry.RegisterTokenFilter(cutTermFilter, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return cutTerm{}, nil
	}))
	for name, unigrams := range map[string]bool{indexCJK: true, queryCJK: false} {
		must(registry.RegisterTokenFilter(name, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
			return cjkFilter{width: cjk.NewCJKWidthFilter(), bigrams: cjk.NewCJKBigramFilter(unigrams)}, nil
		}))
	}
	must(registry.RegisterAnalyzer(indexAnalyzer, func(_ map[string]any, c *registry.Cache) (analysis.Analyzer, error) {
		return textAnalyzer(c, indexCJK, cutTermFilter)
	}))
	must(registry.RegisterAnalyzer(queryAnalyzer, func(_ map[string]any, c *registry.Cache) (analysis.Analyzer, error) {
		return textAnalyzer(c, queryCJK)
	}))
}

// textAnalyzer is the English analyzer with the named CJK filter, after
// the filters first names (the index's cuts long words first). The CJK
// filter renumbers positions, so it runs before the stop words are
// dropped: a phrase keeps their gaps.
func textAnalyzer(c *registry.Cache, cjkName string, first ...string) (analysis.Analyzer, error) {
	tok, err := c.TokenizerNamed(unicodetok.Name)
	if err != nil {
		return nil, err
	}
	var filters []analysis.TokenFilter
	for _, name := range append(first, en.PossessiveName, lowercase.Name, cjkName, en.StopName, porter.Name) {
		f, err := c.TokenFilterNamed(name)
		if err != nil {
			return nil, err
		}
		filters = append(filters, f)
	}
	return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, nil
}

func must(err error) {
	if err != nil {
		panic("searchindex: " + err.Error())
	}
}

// cjkFilter folds full-width Latin and half-width katakana to their
// usual forms (Bleve's cjk_width: ＡＰＩ is api), marks tokens of Hangul
// alone as ideographic so they are cut too (결제가, "the payment" with
// its particle, holds 결제), and cuts the ideographic runs into bigrams
// (Bleve's cjk_bigram). Tokens of ASCII alone, most of them, are only
// looked at, and a stream without ideographic tokens is left as it is.
type cjkFilter struct {
	width   analysis.TokenFilter
	bigrams analysis.TokenFilter
}

func (f cjkFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	ideographic := false
	for i, t := range in {
		if !ascii(t.Term) {
			// The bigram filter counts a bad byte as the three of U+FFFD,
			// and its offsets would run past the text; the width filter
			// makes the bad byte that U+FFFD, so validity is judged on
			// the text as written.
			valid := utf8.Valid(t.Term)
			// The full- and half-width forms are U+FF01-U+FF9F: 0xEF 0xBC
			// to 0xBE in UTF-8.
			if bytes.IndexByte(t.Term, 0xEF) >= 0 {
				f.width.Filter(in[i : i+1])
			}
			if t.Type == analysis.AlphaNumeric && allHangul(t.Term) {
				t.Type = analysis.Ideographic
			}
			if t.Type == analysis.Ideographic && !valid {
				t.Type = analysis.AlphaNumeric
			}
		}
		ideographic = ideographic || t.Type == analysis.Ideographic
	}
	if !ideographic {
		return in
	}
	return f.bigrams.Filter(in)
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func allHangul(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if !unicode.Is(unicode.Hangul, r) {
			return false
		}
		b = b[n:]
	}
	return true
}

// cjkWord reports whether a query word holds Han, kana or Hangul: its
// terms are bigrams, matched as a phrase and never typo-tolerant.
func cjkWord(w string) bool {
	for _, r := range w {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// indexAn and queryAn are the two analyzers, for analysis outside an
// index (queries, snippets).
var indexAn, queryAn = func() (analysis.Analyzer, analysis.Analyzer) {
	register()
	c := registry.NewCache()
	ia, err := c.AnalyzerNamed(indexAnalyzer)
	must(err)
	qa, err := c.AnalyzerNamed(queryAnalyzer)
	must(err)
	return ia, qa
}()
