package searchindex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/padd/padd/model"
)

// Request is one search.
type Request struct {
	Query string
	// Workspaces are the workspace ids in scope (at least one).
	Workspaces []string
	// Collections restricts to these collection slugs (already resolved).
	Collections []string
	Statuses    []string
	Priorities  []string
	// HiddenCollections are archived collection ids, left out unless
	// IncludeArchived.
	HiddenCollections []string
	IncludeArchived   bool
	// Only restricts hits to these item ids (nil: no restriction).
	Only   []string
	Limit  int
	Offset int
	Sort   string // relevance (default), created_at, updated_at, title
	Desc   bool   // for the non-relevance sorts
	// NoFacets skips the collection and status counts: they cost more
	// than the rest of a query on a large workspace, and a caller that
	// shows only hits (a list's ?search=, an agent) has no use for them.
	NoFacets bool
}

// pageSize is how many hits a page holds: Limit, or 50.
func (r Request) pageSize() int {
	if r.Limit <= 0 {
		return 50
	}
	return r.Limit
}

// Hit is one result; Snippet (snippet.go) cuts its excerpt.
type Hit struct {
	ID        string
	Workspace string
	Score     float64
}

// Result is a page of hits with totals and facets.
type Result struct {
	Hits        []Hit
	Total       uint64
	Collections map[string]int
	Statuses    map[string]int
	// Fuzzy is true when nothing matched exactly and these hits tolerate
	// a typo.
	Fuzzy bool
}

// resolveRefs finds, for each ref of the query, the ref its item carries
// now, so an old ref (after a move, or a provisional one after the
// remote numbered the item) finds the item as the ref lookups do. It
// reads at most one item per ref and workspace: a query holds few refs
// (checkBounds).
func (x *Index) resolveRefs(workspaces []string, p *Parsed) {
	for _, ref := range p.Refs {
		for _, ws := range workspaces {
			v, err := x.views.GetItem(ws, ref)
			if err != nil || v.Ref == ref || slices.Contains(p.refAlts[ref], v.Ref) {
				continue
			}
			if p.refAlts == nil {
				p.refAlts = map[string][]string{}
			}
			p.refAlts[ref] = append(p.refAlts[ref], v.Ref)
		}
	}
}

// maxNumberDigits bounds the numbers looked up as item numbers.
const maxNumberDigits = 9

// resolveNumbers names, for each bare number of the query (12, not 012),
// the ref of the item numbered so in each workspace searched, so the
// number finds that item as its ref would (pad-inventory SRC-01: refs
// and numbers are looked up exactly). A number is a workspace's, so it
// reads at most one item per number and workspace (a query holds few
// words: checkBounds).
func (x *Index) resolveNumbers(workspaces []string, p *Parsed) {
	for _, w := range p.Words {
		if len(w) > maxNumberDigits || w[0] == '0' || strings.Trim(w, "0123456789") != "" {
			continue
		}
		if _, done := p.numRefs[w]; done {
			continue
		}
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			continue
		}
		for _, ws := range workspaces {
			if ref, err := x.views.ItemRefByNumber(ws, n); err == nil && ref != "" {
				if p.numRefs == nil {
					p.numRefs = map[string][]string{}
				}
				p.numRefs[w] = append(p.numRefs[w], ref)
			}
		}
	}
}

// Search answers a query. While the index is being rebuilt it returns
// *ErrRebuilding rather than partial answers.
func (x *Index) Search(ctx context.Context, r Request) (res *Result, err error) {
	x.use.RLock()
	defer x.use.RUnlock()
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, x.damaged(fmt.Sprintf("a search panicked: %v", p))
		}
	}()
	x.mu.Lock()
	bi, state, done, total, ferr := x.bi, x.state, x.done, x.total, x.err
	x.mu.Unlock()
	switch {
	case state == StateRebuilding:
		return nil, &ErrRebuilding{Done: done, Total: total}
	case state == StateFailed || bi == nil:
		return nil, fmt.Errorf("search index is unavailable (%v); padd retries on its own, `padctl index rebuild` retries now", ferr)
	}
	if err := model.LimitQuery.Check(r.Query); err != nil {
		return nil, err
	}
	// A search whose client has gone, or whose deadline has passed, does
	// not start; Bleve's collector and searchPlain's loops check the
	// context as they go.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := Parse(r.Query)
	if err := refuseUnsupported(p); err != nil {
		return nil, err
	}
	x.resolveRefs(r.Workspaces, p)
	x.resolveNumbers(r.Workspaces, p)
	dropStopwords(p)
	if p.Empty() && strings.TrimSpace(r.Query) != "" && len(r.Collections)+len(r.Statuses)+len(r.Priorities)+len(r.Only) == 0 {
		// Text that says nothing (punctuation, operators, stop words)
		// and no filter beside it: answering every item would answer
		// something else than was asked. An empty query is the caller's
		// way to list by filters alone.
		return nil, queryRefusal("no_words", 0,
			"the query %q has no word to search for (only punctuation, operators or words too common to index); give a word, a \"phrase\", a prefix*, a ref or a filter such as status:open", model.Excerpt(r.Query))
	}
	if err := checkBounds(p); err != nil {
		return nil, err
	}
	if x.coversAll(r.Workspaces) {
		// Every document belongs to a workspace in scope: a filter on the
		// workspace would walk every document's posting for nothing.
		r.Workspaces = nil
	}
	res, err = x.run(ctx, bi, r, p, false)
	if tooManyClauses(err) {
		return nil, expansionRefusal(p)
	}
	if err != nil || res.Total > 0 || !slices.ContainsFunc(p.fuzz, func(f int) bool { return f > 0 }) {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fz, err := x.run(ctx, bi, r, p, true)
	if tooManyClauses(err) {
		// A typo-tolerant word that stands for too many others: the
		// answer is the exact search's.
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	fz.Fuzzy = fz.Total > 0
	return fz, nil
}

// maxFacetPairs bounds the (collection, status) pairs a search counts;
// a workspace has a few dozen at most.
const maxFacetPairs = 10000

func (x *Index) run(ctx context.Context, bi bleve.Index, r Request, p *Parsed, fuzzy bool) (*Result, error) {
	if q := plainOf(r, p, fuzzy); q != nil {
		res, err := x.searchPlain(ctx, bi, r, q)
		if !errors.Is(err, errNotPlain) {
			return res, err
		}
	}
	res, err := x.runCounting(ctx, bi, r, p, fuzzy, true)
	if errors.Is(err, errFacetTable) {
		x.log.Warn("search facets counted by Bleve", "reason", err)
		return x.runCounting(ctx, bi, r, p, fuzzy, false)
	}
	return res, err
}

// runCounting runs one query; ownFacets counts the facets from the
// segment tables (facets.go) rather than by Bleve.
func (x *Index) runCounting(ctx context.Context, bi bleve.Index, r Request, p *Parsed, fuzzy, ownFacets bool) (*Result, error) {
	q := build(r, p, fuzzy)
	size := r.pageSize()
	sr := bleve.NewSearchRequestOptions(q, size, r.Offset, false)
	sr.Fields = []string{"workspace"}
	switch r.Sort {
	case "created_at", "updated_at", "title":
		field := map[string]string{"created_at": "created", "updated_at": "updated", "title": "title_sort"}[r.Sort]
		if r.Desc {
			field = "-" + field
		}
		sr.SortBy([]string{field, "_id"})
	default:
		// Score alone: a tie-break on _id would cost an id lookup for
		// every match, the slowest part of a query after facets.
		sr.SortBy([]string{"-_score"})
	}
	var fc *facetCount
	switch {
	case r.NoFacets:
	case ownFacets:
		fc = &facetCount{tables: &x.facets}
		ctx = context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(fc.handler))
	default:
		// Every (collection, status) pair the matches hold: a handful.
		sr.AddFacet(facetField, bleve.NewFacetRequest(facetField, maxFacetPairs))
	}
	out, err := bi.SearchInContext(ctx, sr)
	if err != nil {
		if fc != nil && fc.failed {
			return nil, fmt.Errorf("search: %w", errFacetTable)
		}
		return nil, fmt.Errorf("search: %w", err)
	}
	res := &Result{Total: out.Total, Collections: map[string]int{}, Statuses: map[string]int{}}
	for _, h := range out.Hits {
		ws, _ := h.Fields["workspace"].(string)
		score := h.Score
		if math.IsNaN(score) || math.IsInf(score, 0) {
			// A query of filters alone (every word a stop word) scores with
			// zero weights, which Bleve's query norm turns into NaN.
			score = 0
		}
		res.Hits = append(res.Hits, Hit{ID: h.ID, Workspace: ws, Score: score})
	}
	var terms []*search.TermFacet
	if fc != nil {
		terms = fc.terms(maxFacetPairs)
	} else if f := out.Facets[facetField]; f != nil && f.Terms != nil {
		terms = f.Terms.Terms()
	}
	addFacets(res, terms)
	return res, nil
}

// addFacets adds facet terms' counts to a result's collection and
// status counts.
func addFacets(res *Result, terms []*search.TermFacet) {
	for _, t := range terms {
		coll, status, _ := strings.Cut(t.Term, facetSep)
		res.Collections[coll] += t.Count
		if status != "" {
			res.Statuses[status] += t.Count
		}
	}
}

// termFilter keeps the documents whose field holds any of terms.
type termFilter struct {
	field string
	terms []string
}

// archivedTerm is how Bleve indexes a true boolean field.
const archivedTerm = "T"

// filters gives a request's keyword filters: a hit matches each of must
// and none of mustNot. They select; they do not rank.
func filters(r Request, p *Parsed) (must, mustNot []termFilter) {
	if r.Workspaces != nil {
		must = append(must, termFilter{"workspace", r.Workspaces})
	}
	if len(r.Collections) > 0 {
		must = append(must, termFilter{"collection", r.Collections})
	}
	if len(r.Statuses) > 0 {
		must = append(must, termFilter{"status", r.Statuses})
	}
	if len(r.Priorities) > 0 {
		must = append(must, termFilter{"priority", r.Priorities})
	}
	for f, vs := range p.Filters {
		if f == "collection" {
			// Both "task" and "tasks" name the Tasks collection.
			var alts []string
			for _, v := range vs {
				alts = append(alts, collectionAlts(v)...)
			}
			vs = alts
		}
		must = append(must, termFilter{f, vs})
	}
	if !r.IncludeArchived {
		mustNot = append(mustNot, termFilter{"archived", []string{archivedTerm}})
		if len(r.HiddenCollections) > 0 {
			mustNot = append(mustNot, termFilter{"collection_id", r.HiddenCollections})
		}
	}
	return must, mustNot
}

// build turns a parsed query and the request's filters into one Bleve
// query: every word must match somewhere (title weighs most), phrases
// match as phrases, refs find their item first, exclusions exclude.
func build(r Request, p *Parsed, fuzzy bool) query.Query {
	mustF, mustNotF := filters(r, p)
	var must []query.Query
	for _, f := range mustF {
		must = append(must, anyTerm(f.field, f.terms))
	}
	if r.Only != nil {
		must = append(must, bleve.NewDocIDQuery(r.Only))
	}
	var should []query.Query
	for i, w := range p.Words {
		term, fuzz := "", 0
		if i < len(p.terms) && !fuzzy {
			term = p.terms[i]
		}
		if i < len(p.fuzz) && fuzzy {
			fuzz = p.fuzz[i]
		}
		match := wordMatch("body", boostBody, w, term, fuzz)
		if refs := p.numRefs[w]; len(refs) > 0 {
			alts := []query.Query{match}
			for _, r := range refs {
				t := bleve.NewTermQuery(r)
				t.SetField("ref")
				t.SetBoost(boostRef)
				alts = append(alts, t)
			}
			match = bleve.NewDisjunctionQuery(alts...)
		}
		must = append(must, match)
		should = append(should, wordMatch("title", boostTitle, w, term, fuzz))
	}
	for _, ph := range p.Phrases {
		must = append(must, phraseQuery(ph))
	}
	for _, w := range p.InTitle {
		must = append(must, inField("title", boostTitle, w))
	}
	for _, pre := range p.Prefixes {
		must = append(must, prefixQuery(pre))
	}
	for _, ref := range p.Refs {
		var alts []query.Query
		for _, r := range append([]string{ref}, p.refAlts[ref]...) {
			t := bleve.NewTermQuery(r)
			t.SetField("ref")
			t.SetBoost(boostRef)
			alts = append(alts, t, phraseQuery(r))
		}
		must = append(must, bleve.NewDisjunctionQuery(alts...))
	}
	var mustNot []query.Query
	for _, ex := range p.Exclude {
		if strings.Contains(ex, " ") {
			mustNot = append(mustNot, phraseQuery(ex))
		} else {
			mustNot = append(mustNot, wordMatch("body", boostBody, ex, "", 0))
		}
	}
	for _, f := range mustNotF {
		mustNot = append(mustNot, anyTerm(f.field, f.terms))
	}
	if len(must) == 0 {
		must = append(must, bleve.NewMatchAllQuery())
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(must...)
	if len(should) > 0 {
		bq.AddShould(should...) // optional: ranks title matches first
	}
	if len(mustNot) > 0 {
		bq.AddMustNot(mustNot...)
	}
	return bq
}

func anyTerm(field string, values []string) query.Query {
	qs := make([]query.Query, 0, len(values))
	for _, v := range values {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		t.SetBoost(0) // filters do not rank
		qs = append(qs, t)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// wordMatch matches a word in field: its analyzed term when known, else
// Bleve's match query (which analyzes it, and tolerates fuzz typos), or,
// for a word of Chinese, Japanese or Korean, its bigrams as a phrase.
func wordMatch(field string, boost float64, w, term string, fuzz int) query.Query {
	if term != "" {
		t := bleve.NewTermQuery(term)
		t.SetField(field)
		t.SetBoost(boost)
		return t
	}
	if cjkWord(w) {
		return matchPhrase(field, boost, w)
	}
	m := bleve.NewMatchQuery(w)
	m.Analyzer = queryAnalyzer
	m.SetField(field)
	m.SetBoost(boost)
	if fuzz > 0 {
		m.SetFuzziness(fuzz)
	}
	return m
}

// fuzziness is how many typos a word of n characters tolerates.
func fuzziness(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// inField matches a word, or a phrase, in one text field.
func inField(field string, boost float64, w string) query.Query {
	if strings.ContainsFunc(strings.TrimSpace(w), unicode.IsSpace) {
		return matchPhrase(field, boost, w)
	}
	return wordMatch(field, boost, w, "", 0)
}

func phraseQuery(ph string) query.Query {
	var qs []query.Query
	for _, f := range textFields {
		qs = append(qs, matchPhrase(f.name, f.boost, ph))
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// matchPhrase matches text as a phrase in field. The query analyzer cuts
// Chinese, Japanese and Korean into bigrams only (the index holds single
// characters too), so the phrase is one term per position.
func matchPhrase(field string, boost float64, text string) query.Query {
	m := bleve.NewMatchPhraseQuery(text)
	m.Analyzer = queryAnalyzer
	m.SetField(field)
	m.SetBoost(boost)
	return m
}

func prefixQuery(pre string) query.Query {
	var qs []query.Query
	for _, f := range textFields {
		m := bleve.NewPrefixQuery(pre)
		m.SetField(f.name)
		m.SetBoost(f.boost)
		qs = append(qs, m)
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// collectionAlts gives a collection name with its alias spellings
// ("task" and "tasks" both name Tasks).
func collectionAlts(v string) []string {
	v = strings.ToLower(v)
	return append([]string{v}, model.CollectionAliases(v)...)
}

// dropStopwords removes words the text analyzer throws away ("the",
// "on", "out"): required as words they would match nothing.
func dropStopwords(p *Parsed) {
	keep := p.Words[:0]
	p.terms, p.fuzz = p.terms[:0], p.fuzz[:0]
	for _, w := range p.Words {
		toks := queryAn.Analyze([]byte(w))
		if len(toks) == 0 {
			continue
		}
		keep = append(keep, w)
		term := ""
		if len(toks) == 1 {
			term = string(toks[0].Term)
		}
		p.terms = append(p.terms, term)
		fuzz := 0
		if len(p.fuzz) < maxFuzzyWords && !cjkWord(w) {
			fuzz = wordFuzziness(w, toks)
		}
		p.fuzz = append(p.fuzz, fuzz)
	}
	p.Words = keep
}

// wordFuzziness is how many typos the typo-tolerant search allows in
// word w of terms toks: by the word's length, but no more than its
// shortest term tolerates (one match query has one fuzziness for all its
// terms, and "x-x-x" must not make each x stand for every short word),
// and none when a term is longer than maxFuzzyChars.
func wordFuzziness(w string, toks analysis.TokenStream) int {
	f := fuzziness(utf8.RuneCountInString(w))
	for _, t := range toks {
		n := utf8.RuneCount(t.Term)
		if n > maxFuzzyChars {
			return 0
		}
		if len(toks) > 1 {
			f = min(f, fuzziness(n))
		}
	}
	return f
}

// coversAll reports whether ws names every workspace the index has ever
// held documents for since it opened (its watermarks), so no document of
// another workspace can match.
func (x *Index) coversAll(ws []string) bool {
	in := map[string]bool{}
	for _, w := range ws {
		in[w] = true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for w := range x.wm {
		if !in[w] {
			return false
		}
	}
	return len(x.wm) > 0
}
