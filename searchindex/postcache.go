package searchindex

import (
	"fmt"
	"math"
	"sync"

	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Scoring a match needs the word's frequency and the field's norm in that
// document. zap finds them by walking every posting before it in its
// chunk, two varints each: under load that walk was a large part of a
// search's CPU, for words in thousands of documents (docs/PERFORMANCE.md,
// "Why the code is as it is"). A segment never
// changes, so the postings of a word searched in a large segment are
// decoded once into arrays, and a match's entry is found by a search in
// them. Small segments (recent writes) keep walking: their lists are
// short and they come and go.

// Cache thresholds; variables so that tests can send every list through
// the cache.
var (
	cacheMinSegmentDocs uint64 = 4096 // segments with fewer documents are walked
	cacheMinPostings    uint64 = 256  // so are lists with fewer postings
	cacheMaxBytes              = 32 << 20
)

// decodedPostings is one postings list, deleted documents included, in
// document order.
type decodedPostings struct {
	docs  []uint32
	freqs []uint32
	norms []float32 // zap's norm is a float32 widened: exact
}

func (d *decodedPostings) bytes() int { return 12 * len(d.docs) }

// postingsCache holds decoded lists by segment, for as long as the segment
// is in the index's newest snapshots (pruned as the facet tables are).
type postingsCache struct {
	mu    sync.Mutex
	segs  map[segment.Segment]map[string]*decodedPostings // field + "\x00" + term
	bytes int
}

// lookup returns the decoded list of term in field of seg, decoding it on
// first use; nil when the list is not worth caching or does not fit.
func (c *postingsCache) lookup(seg segment.Segment, dict segment.TermDictionary, field, term string, count uint64) (*decodedPostings, error) {
	if seg.Count() < cacheMinSegmentDocs || count < cacheMinPostings {
		return nil, nil
	}
	key := field + "\x00" + term
	c.mu.Lock()
	d := c.segs[seg][key]
	c.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := decodePostings(dict, term)
	if err != nil || d == nil {
		return nil, err
	}
	if d.bytes() > cacheMaxBytes {
		return d, nil // this search's only
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if have := c.segs[seg][key]; have != nil {
		return have, nil // decoded meanwhile by another search
	}
	if c.bytes+d.bytes() > cacheMaxBytes {
		// Full: start over rather than keep the words of long ago.
		c.segs, c.bytes = nil, 0
	}
	if c.segs == nil {
		c.segs = map[segment.Segment]map[string]*decodedPostings{}
	}
	if c.segs[seg] == nil {
		c.segs[seg] = map[string]*decodedPostings{}
	}
	c.segs[seg][key] = d
	c.bytes += d.bytes()
	return d, nil
}

// retain drops the lists of segments no longer in live, once more than
// pruneSlack of them have gathered.
func (c *postingsCache) retain(live []segment.Segment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.segs) <= len(live)+pruneSlack {
		return
	}
	keep := make(map[segment.Segment]bool, len(live))
	for _, s := range live {
		keep[s] = true
	}
	for s, m := range c.segs {
		if !keep[s] {
			for _, d := range m {
				c.bytes -= d.bytes()
			}
			delete(c.segs, s)
		}
	}
}

func (c *postingsCache) reset() {
	c.mu.Lock()
	c.segs, c.bytes = nil, 0
	c.mu.Unlock()
}

// decodePostings reads a whole list; nil when a frequency does not fit
// the arrays (never in practice: the list is then walked).
func decodePostings(dict segment.TermDictionary, term string) (*decodedPostings, error) {
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("search postings: %w", err)
	}
	n := pl.Count()
	d := &decodedPostings{docs: make([]uint32, 0, n), freqs: make([]uint32, 0, n), norms: make([]float32, 0, n)}
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("search postings: %w", err)
		}
		if p == nil {
			return d, nil
		}
		if p.Number() > math.MaxUint32 || p.Frequency() > math.MaxUint32 {
			return nil, nil
		}
		d.docs = append(d.docs, uint32(p.Number()))
		d.freqs = append(d.freqs, uint32(p.Frequency()))
		d.norms = append(d.norms, float32(p.Norm()))
	}
}

// seek moves a cursor over a decoded list to the first document at or
// after n, galloping from where it is: matches come in document order,
// a few (title matches) or most of the list.
func (c *cursor) seek(n uint64) {
	docs := c.dec.docs
	lo, step := c.pos, 1
	hi := lo
	for hi < len(docs) && uint64(docs[hi]) < n {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(docs))
	for lo < hi { // first index in [lo, hi) at or after n
		mid := int(uint(lo+hi) >> 1)
		if uint64(docs[mid]) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	c.pos = lo
	if lo == len(docs) {
		c.done = true
		return
	}
	c.positioned, c.at, c.freq, c.norm = true, uint64(docs[lo]), uint64(c.dec.freqs[lo]), float64(c.dec.norms[lo])
}
