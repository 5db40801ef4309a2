package searchindex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Bleve answers a query of words through its boolean, conjunction and
// term searchers, and scores every match through them to keep the top
// few, a cost per match that dominates a search for a common word
// (docs/PERFORMANCE.md, "Why the code is as it is").
// Most searches, an agent's or a person's, are plain words with keyword
// filters. For those padd walks the segments' postings itself and scores
// each match with Bleve's own formula, operation for operation, so hits,
// scores, order and totals are Bleve's (TestPlainAgreesWithBleve holds
// the two side by side). Anything else (phrases, prefixes, refs,
// exclusions, typo tolerance, other orders) is Bleve's to answer.

// errNotPlain says a search is not one searchPlain answers; Bleve does.
var errNotPlain = errors.New("not a plain-word search")

// plainQuery is a search of words that each analyze to one term, every
// one required in the body and ranked up by the title, under keyword
// filters: what build makes of such a request, in a form padd scores.
type plainQuery struct {
	terms         []string
	must, mustNot []termFilter
}

// maxPlainWords bounds the words of a plain search: Bleve adds up the
// title clauses of a longer one in another order (its heap disjunction),
// which can move a score by its last bit.
const maxPlainWords = 10

// plainOf gives the plain form of a search, or nil if it has none.
func plainOf(r Request, p *Parsed, fuzzy bool) *plainQuery {
	if fuzzy || r.Only != nil || len(p.Words) == 0 || len(p.terms) != len(p.Words) ||
		len(p.Phrases)+len(p.Prefixes)+len(p.Refs)+len(p.Exclude)+len(p.InTitle)+len(p.numRefs) > 0 {
		return nil
	}
	switch r.Sort {
	case "created_at", "updated_at", "title":
		return nil
	}
	if len(p.terms) > maxPlainWords || slices.Contains(p.terms, "") {
		return nil
	}
	must, mustNot := filters(r, p)
	if len(must)+len(p.terms) > stableSortMax {
		return nil
	}
	return &plainQuery{terms: p.terms, must: must, mustNot: mustNot}
}

// stableSortMax is the most clauses Bleve's conjunction sorts the way
// byCount does: sort.Sort sorts up to 12 elements by insertion, which
// keeps clauses of equal counts in their order.
const stableSortMax = 12

// clause is one word's term in one field, with Bleve's statistics and
// weights for it.
type clause struct {
	term    string
	boost   float64
	count   uint64  // live documents holding the term in the field
	idf     float64 // Bleve's computeIDF
	avg     float64 // the field's average length, 0 for TF-IDF
	qweight float64 // boost × idf × query norm
}

// weight is the clause's share of the query norm (TermQueryScorer.Weight).
func (c *clause) weight() float64 {
	sum := c.boost * c.idf
	return sum * sum
}

// score is TermQueryScorer.Score for a match of freq occurrences in a
// field of norm. The expressions are Bleve's, in Bleve's order, so the
// same inputs give the same bits.
func (c *clause) score(freq uint64, norm float64) float64 {
	tf := math.Sqrt(float64(freq))
	var score float64
	if c.avg > 0 {
		fieldLength := 1 / (norm * norm)
		score = c.idf * (tf * search.BM25_k1) /
			(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/c.avg)))
	} else {
		score = tf * norm * c.idf
	}
	if c.qweight != 1.0 {
		score = score * c.qweight
	}
	return score
}

// stats fills in a field's clauses as Bleve's term searchers would for
// an index of docs documents whose field holds card tokens.
func stats(cs []clause, docs uint64, card int) {
	var avg float64
	if docs != 0 || card != 0 {
		avg = math.Ceil(float64(card) / float64(docs))
	}
	for i := range cs {
		c := &cs[i]
		c.avg = avg
		if avg > 0 {
			c.idf = math.Log(1 + (float64(docs)-float64(c.count)+0.5)/(float64(c.count)+0.5))
		} else {
			c.idf = 1.0 + math.Log(float64(docs)/float64(c.count+1.0))
		}
	}
}

// byCount is the order Bleve's conjunction and disjunction searchers put
// their clauses in (fewest matches first; sort.Sort is an insertion sort,
// so stable, for the dozen clauses a query has), which is the order they
// add up weights and scores in.
func byCount(cs []clause) []int {
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[a].count, cs[b].count) })
	return order
}

// plainHit is a match kept for the page.
type plainHit struct {
	score float64
	seg   int
	num   uint64
}

// worse orders the kept hits: lower score, then later in the index
// (Bleve breaks ties by match order, which is index order).
func (a plainHit) worse(b plainHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.seg != b.seg {
		return a.seg > b.seg
	}
	return a.num > b.num
}

// segMatches is one segment's part of a plain search.
type segMatches struct {
	all    *roaring.Bitmap // documents matching every word and filter
	titled *roaring.Bitmap // those with a word in the title
	body   []segment.PostingsList
	title  []segment.PostingsList
	// bodyDec and titleDec hold the lists' decoded copies, where cached.
	bodyDec, titleDec []*decodedPostings
}

// decoded fills in m's decoded lists from the index's cache.
func (x *Index) decoded(m *segMatches, ss *scorch.SegmentSnapshot, bodyDict, titleDict segment.TermDictionary, q *plainQuery) error {
	k := len(q.terms)
	m.bodyDec, m.titleDec = make([]*decodedPostings, k), make([]*decodedPostings, k)
	if ss.Segment().Count() < cacheMinSegmentDocs {
		return nil // walked: no need to count its lists
	}
	var err error
	for i, t := range q.terms {
		if m.bodyDec[i], err = x.postings.lookup(ss.Segment(), bodyDict, "body", t, m.body[i].Count()); err != nil {
			return err
		}
		if m.titleDec[i], err = x.postings.lookup(ss.Segment(), titleDict, "title", t, m.title[i].Count()); err != nil {
			return err
		}
	}
	return nil
}

// matchSegment finds a segment's matches from its postings bitmaps.
func matchSegment(ss *scorch.SegmentSnapshot, bodyDict, titleDict segment.TermDictionary, q *plainQuery) (segMatches, error) {
	m := segMatches{body: make([]segment.PostingsList, len(q.terms)), title: make([]segment.PostingsList, len(q.terms))}
	skip, allow, err := segmentFilters(ss, q)
	if err != nil {
		return m, err
	}
	m.all = allow
	titles := roaring.New()
	for i, t := range q.terms {
		if m.body[i], err = bodyDict.PostingsList([]byte(t), skip, nil); err != nil {
			return m, fmt.Errorf("search: %w", err)
		}
		if m.title[i], err = titleDict.PostingsList([]byte(t), skip, nil); err != nil {
			return m, fmt.Errorf("search: %w", err)
		}
		bm := listBitmap(m.body[i])
		if m.all == nil {
			m.all = bm.Clone()
		} else {
			m.all.And(bm)
		}
		titles.Or(listBitmap(m.title[i]))
	}
	m.titled = roaring.And(m.all, titles)
	return m, nil
}

// listBitmap gives the documents of a postings list, except its
// exceptions. The bitmap may be the segment's own: it must not change.
func listBitmap(pl segment.PostingsList) *roaring.Bitmap {
	it := pl.Iterator(false, false, false, nil)
	if o, ok := it.(segment.OptimizablePostingsIterator); ok {
		if n, ok := o.DocNum1Hit(); ok {
			return roaring.BitmapOf(uint32(n))
		}
		if bm := o.ActualBitmap(); bm != nil {
			return bm
		}
	}
	bm := roaring.New()
	for {
		p, err := it.Next()
		if err != nil || p == nil {
			return bm
		}
		bm.Add(uint32(p.Number()))
	}
}

// plainScorer scores documents and keeps the page's best.
type plainScorer struct {
	body, title           []clause
	bodyOrder, titleOrder []int
	keep                  int
	top                   []plainHit // a heap whose root is the worst kept hit

	bodyCur, titleCur []cursor
	bodyScore         []float64
}

// scoreDocs scores docs, matches of segment s, keeping the best.
func (sc *plainScorer) scoreDocs(ctx context.Context, s int, m segMatches, docs *roaring.Bitmap) error {
	if docs.IsEmpty() {
		return nil
	}
	k := len(sc.body)
	if sc.bodyCur == nil {
		sc.bodyCur, sc.titleCur, sc.bodyScore = make([]cursor, k), make([]cursor, k), make([]float64, k)
	}
	for i := range k {
		sc.bodyCur[i].reset(m.body[i], m.bodyDec[i])
		sc.titleCur[i].reset(m.title[i], m.titleDec[i])
	}
	seen := 0
	for it := docs.Iterator(); it.HasNext(); {
		n := uint64(it.Next())
		if seen++; seen%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for i := range k {
			c := &sc.bodyCur[i]
			if err := c.advance(n); err != nil {
				return err
			}
			if c.done || c.at != n {
				return fmt.Errorf("search: document %d of a segment matches %q but its postings disagree", n, sc.body[i].term)
			}
			sc.bodyScore[i] = sc.body[i].score(c.freq, c.norm)
		}
		var must float64
		for _, i := range sc.bodyOrder {
			must += sc.bodyScore[i]
		}
		var should float64
		matched := 0
		for _, i := range sc.titleOrder {
			c := &sc.titleCur[i]
			if err := c.advance(n); err != nil {
				return err
			}
			if !c.done && c.at == n {
				should += sc.title[i].score(c.freq, c.norm)
				matched++
			}
		}
		score := must
		if matched > 0 {
			// Bleve's conjunction of the required score and the title
			// disjunction's, scaled by the share of words it matched.
			coord := float64(matched) / float64(k)
			score = 0
			score += must
			score += should * coord
		}
		h := plainHit{score: score, seg: s, num: n}
		switch {
		case len(sc.top) < sc.keep:
			sc.top = append(sc.top, h)
			siftUp(sc.top, len(sc.top)-1)
		case sc.top[0].worse(h):
			sc.top[0] = h
			siftDown(sc.top, 0)
		}
	}
	return nil
}

// searchPlain answers a plain search from the postings of bi's current
// snapshot; errNotPlain means Bleve must.
func (x *Index) searchPlain(ctx context.Context, bi bleve.Index, r Request, q *plainQuery) (*Result, error) {
	res, _, err := x.searchPlainScoring(ctx, bi, r, q)
	return res, err
}

// searchPlainScoring is searchPlain that also says how many matches it
// scored.
func (x *Index) searchPlainScoring(ctx context.Context, bi bleve.Index, r Request, q *plainQuery) (*Result, uint64, error) {
	adv, err := bi.Advanced()
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	rd, err := adv.Reader()
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	defer rd.Close()
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok {
		return nil, 0, errNotPlain
	}
	var fc *facetCount
	if !r.NoFacets {
		fc = &facetCount{tables: &x.facets}
		if err := fc.prepare(snap); err != nil {
			if errors.Is(err, errFacetTable) {
				return nil, 0, errNotPlain
			}
			return nil, 0, fmt.Errorf("search facets: %w", err)
		}
	}

	segs := snap.Segments()
	k := len(q.terms)
	body, title := make([]clause, k), make([]clause, k)
	for i, t := range q.terms {
		body[i] = clause{term: t, boost: boostBody}
		title[i] = clause{term: t, boost: boostTitle}
	}
	// Bleve's statistics: live documents, and documents per term with
	// deleted ones left out (archived ones stay in).
	bodyDict := make([]segment.TermDictionary, len(segs))
	titleDict := make([]segment.TermDictionary, len(segs))
	var pl segment.PostingsList
	for s, ss := range segs {
		if bodyDict[s], err = ss.Segment().Dictionary("body"); err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		if titleDict[s], err = ss.Segment().Dictionary("title"); err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		for i := range k {
			if pl, err = bodyDict[s].PostingsList([]byte(body[i].term), ss.Deleted(), pl); err != nil {
				return nil, 0, fmt.Errorf("search: %w", err)
			}
			body[i].count += pl.Count()
			if pl, err = titleDict[s].PostingsList([]byte(title[i].term), ss.Deleted(), pl); err != nil {
				return nil, 0, fmt.Errorf("search: %w", err)
			}
			title[i].count += pl.Count()
		}
	}
	docs, err := snap.DocCount()
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	// A field's cardinality is Bleve's sum of the segments' dictionary
	// sizes (IndexSnapshot.FieldCardinality), which it would compute
	// through a dictionary iterator per segment, once per snapshot: about
	// every search under load, as each write makes a new one.
	stats(body, docs, cardinality(bodyDict))
	stats(title, docs, cardinality(titleDict))
	bodyOrder, titleOrder := byCount(body), byCount(title)
	// The boolean searcher's query norm: the required clauses' weights
	// (the filters weigh 0), then the title clauses'.
	var mustW, shouldW float64
	for _, i := range bodyOrder {
		mustW += body[i].weight()
	}
	for _, i := range titleOrder {
		shouldW += title[i].weight()
	}
	sumOfSquaredWeights := 0.0
	sumOfSquaredWeights += mustW
	sumOfSquaredWeights += shouldW
	queryNorm := 1.0 / math.Sqrt(sumOfSquaredWeights)
	for i := range k {
		body[i].qweight = body[i].boost * body[i].idf * queryNorm
		title[i].qweight = title[i].boost * title[i].idf * queryNorm
	}

	// A document whose title holds none of the words scores its body
	// clauses alone, each under idf × k1 × weight (BM25 saturates), so
	// when the page fills with title matches that all score above that,
	// the other matches need not be scored at all: usually a word is in
	// a few titles and many bodies.
	noTitle := 0.0
	for _, i := range bodyOrder {
		if body[i].avg <= 0 {
			noTitle = math.Inf(1) // TF-IDF does not saturate
			break
		}
		noTitle += body[i].idf * search.BM25_k1 * body[i].qweight
	}
	noTitle *= 1 + 1e-9 // rounding

	sc := &plainScorer{body: body, title: title, bodyOrder: bodyOrder, titleOrder: titleOrder,
		keep: r.pageSize() + max(r.Offset, 0)}
	matches := make([]segMatches, len(segs))
	var total, titled uint64
	for s, ss := range segs {
		m, err := matchSegment(ss, bodyDict[s], titleDict[s], q)
		if err != nil {
			return nil, 0, err
		}
		if err := x.decoded(&m, ss, bodyDict[s], titleDict[s], q); err != nil {
			return nil, 0, err
		}
		matches[s] = m
		total += m.all.GetCardinality()
		if fc != nil {
			for it := m.all.Iterator(); it.HasNext(); {
				fc.addLocal(s, uint64(it.Next()))
			}
		}
		if err := sc.scoreDocs(ctx, s, m, m.titled); err != nil {
			return nil, 0, err
		}
		titled += m.titled.GetCardinality()
	}
	scored := titled
	if titled < total && !(len(sc.top) == sc.keep && sc.top[0].score > noTitle) {
		sc.top, scored = sc.top[:0], total
		for s, m := range matches {
			if err := sc.scoreDocs(ctx, s, m, m.all); err != nil {
				return nil, 0, err
			}
		}
	}
	top := sc.top
	live := make([]segment.Segment, len(segs))
	for s, ss := range segs {
		live[s] = ss.Segment()
	}
	x.postings.retain(live)

	res := &Result{Total: total, Collections: map[string]int{}, Statuses: map[string]int{}}
	slices.SortFunc(top, func(a, b plainHit) int {
		switch {
		case b.worse(a):
			return -1
		case a.worse(b):
			return 1
		}
		return 0
	})
	if r.Offset > 0 {
		top = top[min(r.Offset, len(top)):]
	}
	for _, h := range top {
		ss := segs[h.seg]
		id, err := ss.DocID(h.num)
		if err != nil {
			return nil, 0, fmt.Errorf("search hit: %w", err)
		}
		var ws string
		err = ss.VisitDocument(h.num, func(field string, _ byte, value []byte, _ []uint64) bool {
			if field == "workspace" {
				ws = string(value)
				return false
			}
			return true
		})
		if err != nil {
			return nil, 0, fmt.Errorf("search hit: %w", err)
		}
		res.Hits = append(res.Hits, Hit{ID: string(id), Workspace: ws, Score: h.score})
	}
	if fc != nil {
		addFacets(res, fc.terms(maxFacetPairs))
	}
	return res, scored, nil
}

// cardinality is a field's cardinality as Bleve's snapshot has it from
// the field's dictionary in each segment.
func cardinality(dicts []segment.TermDictionary) int {
	n := 0
	for _, d := range dicts {
		n += d.Cardinality()
	}
	return n
}

// cursor walks one postings list of a segment, or its decoded copy.
type cursor struct {
	it         segment.PostingsIterator
	dec        *decodedPostings // when set, it is not used
	pos        int              // in dec
	positioned bool             // at is a document of the list
	done       bool             // the list has no more documents
	at         uint64
	freq       uint64
	norm       float64
}

func (c *cursor) reset(pl segment.PostingsList, dec *decodedPostings) {
	if dec != nil {
		*c = cursor{it: c.it, dec: dec}
		return
	}
	*c = cursor{it: pl.Iterator(true, true, false, c.it)}
}

func (c *cursor) take(p segment.Posting, err error) error {
	if err != nil {
		return fmt.Errorf("search postings: %w", err)
	}
	if p == nil {
		c.done = true
		return nil
	}
	c.positioned, c.at, c.freq, c.norm = true, p.Number(), p.Frequency(), p.Norm()
	return nil
}

// advance moves to the first document at or after n.
func (c *cursor) advance(n uint64) error {
	if c.done || (c.positioned && c.at >= n) {
		return nil
	}
	if c.dec != nil {
		c.seek(n)
		return nil
	}
	return c.take(c.it.Advance(n))
}

// segmentFilters gives the documents of one segment a search must skip
// (deleted, or matching a mustNot filter) and, when it has must filters,
// the only ones it may match.
func segmentFilters(ss *scorch.SegmentSnapshot, q *plainQuery) (skip, allow *roaring.Bitmap, err error) {
	skip = ss.Deleted()
	for _, f := range q.mustNot {
		bm, err := filterBitmap(ss, f)
		if err != nil {
			return nil, nil, err
		}
		if !bm.IsEmpty() {
			if skip != nil {
				bm.Or(skip)
			}
			skip = bm
		}
	}
	for _, f := range q.must {
		bm, err := filterBitmap(ss, f)
		if err != nil {
			return nil, nil, err
		}
		if allow == nil {
			allow = bm
		} else {
			allow.And(bm)
		}
	}
	return skip, allow, nil
}

// orIntoer is a zap postings list that can add its documents to a bitmap.
type orIntoer interface{ OrInto(*roaring.Bitmap) }

// filterBitmap gives the documents of a segment whose field holds any
// of f's terms, deleted ones included.
func filterBitmap(ss *scorch.SegmentSnapshot, f termFilter) (*roaring.Bitmap, error) {
	dict, err := ss.Segment().Dictionary(f.field)
	if err != nil {
		return nil, fmt.Errorf("search filter %s: %w", f.field, err)
	}
	bm := roaring.New()
	var pl segment.PostingsList
	for _, t := range f.terms {
		if pl, err = dict.PostingsList([]byte(t), nil, pl); err != nil {
			return nil, fmt.Errorf("search filter %s: %w", f.field, err)
		}
		o, ok := pl.(orIntoer)
		if !ok {
			return nil, errNotPlain
		}
		o.OrInto(bm)
	}
	return bm, nil
}

func siftUp(h []plainHit, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h[i].worse(h[parent]) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func siftDown(h []plainHit, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].worse(h[worst]) {
			worst = l
		}
		if r < len(h) && h[r].worse(h[worst]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
