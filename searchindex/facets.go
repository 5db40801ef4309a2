package searchindex

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Bleve counts a terms facet by reading each match's doc values, a cost
// per match that was most of a faceted search for common words
// (docs/PERFORMANCE.md, "Why the code is as it is"). A scorch segment never
// changes once written, so its
// documents' facet terms can be read once, from the facet field's few
// postings lists, into an array of small ordinals; a search then counts
// a match with one array load. New segments (a batch, a merge) get their
// table at the first search that sees them.

// facetField is the field both counts come from (see doc.Facet).
const facetField = "facet"

// errFacetTable says a search's reader cannot be counted from tables
// (not a scorch snapshot, a document with more than one facet term, a
// segment with too many terms); the search is asked again with Bleve
// counting.
var errFacetTable = errors.New("facet counts cannot come from segment tables")

// segFacets is one segment's facet term of each document.
type segFacets struct {
	terms []string // ordinal-1 → term
	// ord[n] is document n's term ordinal, 0 for none. Two bytes: a
	// workspace has a few dozen (collection, status) pairs, and a
	// segment with more than 65,535 is counted by Bleve.
	ord []uint16
}

// facetTables caches segFacets by segment, for as long as the segment
// is in the index's newest snapshots.
type facetTables struct {
	mu   sync.Mutex
	segs map[segment.Segment]*segFacets
}

// pruneSlack is how many tables of segments the current snapshot no
// longer holds are kept before they are dropped: a search still running
// on an older snapshot may want them, and rebuilding one is cheap.
const pruneSlack = 16

// forSnapshot returns the table of each of snap's segments, in order,
// building the missing ones.
func (t *facetTables) forSnapshot(snap *scorch.IndexSnapshot) ([]*segFacets, error) {
	ss := snap.Segments()
	out := make([]*segFacets, len(ss))
	var missing []int
	t.mu.Lock()
	for i, s := range ss {
		if sf := t.segs[s.Segment()]; sf != nil {
			out[i] = sf
		} else {
			missing = append(missing, i)
		}
	}
	t.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	// Built without the lock: a large merged segment's table takes a
	// while, and other searches need not wait for it.
	for _, i := range missing {
		sf, err := buildSegFacets(ss[i].Segment())
		if err != nil {
			return nil, err
		}
		out[i] = sf
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.segs == nil {
		t.segs = map[segment.Segment]*segFacets{}
	}
	for _, i := range missing {
		if sf := t.segs[ss[i].Segment()]; sf != nil {
			out[i] = sf
		} else {
			t.segs[ss[i].Segment()] = out[i]
		}
	}
	if len(t.segs) > len(ss)+pruneSlack {
		live := make(map[segment.Segment]bool, len(ss))
		for _, s := range ss {
			live[s.Segment()] = true
		}
		for seg := range t.segs {
			if !live[seg] {
				delete(t.segs, seg)
			}
		}
	}
	return out, nil
}

// reset forgets every table (the index they came from is closed).
func (t *facetTables) reset() {
	t.mu.Lock()
	t.segs = nil
	t.mu.Unlock()
}

// buildSegFacets reads a segment's facet terms from the field's postings
// lists, which cover deleted documents too: a deleted document never
// matches, so its entry is never read.
func buildSegFacets(seg segment.Segment) (*segFacets, error) {
	sf := &segFacets{ord: make([]uint16, seg.Count())}
	dict, err := seg.Dictionary(facetField)
	if err != nil {
		return nil, fmt.Errorf("facet dictionary: %w", err)
	}
	it := dict.AutomatonIterator(nil, nil, nil)
	var pl segment.PostingsList
	var pi segment.PostingsIterator
	for {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("facet terms: %w", err)
		}
		if e == nil {
			break
		}
		if len(sf.terms) == math.MaxUint16 {
			return nil, errFacetTable
		}
		sf.terms = append(sf.terms, e.Term)
		ord := uint16(len(sf.terms))
		if pl, err = dict.PostingsList([]byte(e.Term), nil, pl); err != nil {
			return nil, fmt.Errorf("facet postings: %w", err)
		}
		pi = pl.Iterator(false, false, false, pi)
		for {
			p, err := pi.Next()
			if err != nil {
				return nil, fmt.Errorf("facet postings: %w", err)
			}
			if p == nil {
				break
			}
			n := p.Number()
			if n >= uint64(len(sf.ord)) || sf.ord[n] != 0 {
				return nil, errFacetTable
			}
			sf.ord[n] = ord
		}
	}
	return sf, nil
}

// facetCount counts one search's matches by facet term. Its handler
// wraps Bleve's top-N handler, so hits, order and total are Bleve's own.
type facetCount struct {
	tables *facetTables
	failed bool // the handler could not count; the search must be redone

	segs   []*segFacets
	starts []uint64 // global number of each segment's first document
	counts [][]int  // per segment, per ordinal (0: no term)
	cur    int      // the segment of the last match
	lo, hi uint64   // its global number range
}

// handler is a search.MakeDocumentMatchHandler.
func (c *facetCount) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	inner, loadID, err := collector.MakeTopNDocumentMatchHandler(sctx)
	if err != nil {
		return nil, false, err
	}
	snap, ok := sctx.IndexReader.(*scorch.IndexSnapshot)
	if !ok {
		c.failed = true
		return nil, false, errFacetTable
	}
	if err := c.prepare(snap); err != nil {
		c.failed = errors.Is(err, errFacetTable)
		return nil, false, err
	}
	return func(d *search.DocumentMatch) error {
		if d != nil {
			// Before inner: it may hand d back to the pool.
			if err := c.add(d.IndexInternalID.Value()); err != nil {
				return err
			}
		}
		return inner(d)
	}, loadID, nil
}

// prepare readies the count for a search of snap.
func (c *facetCount) prepare(snap *scorch.IndexSnapshot) error {
	segs, err := c.tables.forSnapshot(snap)
	if err != nil {
		return err
	}
	c.segs = segs
	c.starts = make([]uint64, len(segs))
	c.counts = make([][]int, len(segs))
	var running uint64
	for i, sf := range segs {
		// The snapshot numbers documents the same way: each segment's
		// documents, deleted ones included, after the previous segment's.
		c.starts[i] = running
		running += uint64(len(sf.ord))
		c.counts[i] = make([]int, len(sf.terms)+1)
	}
	c.cur, c.lo, c.hi = -1, 1, 0
	return nil
}

// addLocal counts document num of the snapshot's segment seg.
func (c *facetCount) addLocal(seg int, num uint64) {
	c.counts[seg][c.segs[seg].ord[num]]++
}

// add counts the document of global number num.
func (c *facetCount) add(num uint64) error {
	if num < c.lo || num >= c.hi {
		i := sort.Search(len(c.starts), func(i int) bool { return c.starts[i] > num }) - 1
		if i < 0 || num-c.starts[i] >= uint64(len(c.segs[i].ord)) {
			return fmt.Errorf("search hit %d is outside the snapshot's segments", num)
		}
		c.cur, c.lo, c.hi = i, c.starts[i], c.starts[i]+uint64(len(c.segs[i].ord))
	}
	c.counts[c.cur][c.segs[c.cur].ord[num-c.lo]]++
	return nil
}

// terms gives what Bleve's terms facet of size limit would: the terms
// with their counts, most frequent first, ties by term, at most limit.
func (c *facetCount) terms(limit int) []*search.TermFacet {
	byTerm := map[string]int{}
	for i, sf := range c.segs {
		for o, n := range c.counts[i][1:] {
			if n > 0 {
				byTerm[sf.terms[o]] += n
			}
		}
	}
	out := make([]*search.TermFacet, 0, len(byTerm))
	for t, n := range byTerm {
		out = append(out, &search.TermFacet{Term: t, Count: n})
	}
	slices.SortFunc(out, func(a, b *search.TermFacet) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return cmp.Compare(a.Term, b.Term)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
