package searchindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A cursor over a decoded list lands where a walk would: on the first
// document at or after each target, targets rising as a search's matches
// do, sparse or dense, past the end included.
func TestDecodedCursorSeeks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := r.IntN(300)
		set := map[uint32]bool{}
		for len(set) < n {
			set[uint32(r.IntN(2000))] = true
		}
		d := &decodedPostings{}
		for doc := range set {
			d.docs = append(d.docs, doc)
		}
		slices.Sort(d.docs)
		for i, doc := range d.docs {
			d.freqs = append(d.freqs, doc+1)
			d.norms = append(d.norms, float32(i))
		}
		c := cursor{dec: d}
		target := uint64(0)
		for target < 2100 {
			target += uint64(1 + r.IntN(1+r.IntN(200)))
			if err := c.advance(target); err != nil {
				t.Fatal(err)
			}
			i, _ := slices.BinarySearch(d.docs, uint32(min(target, 1<<32-1)))
			switch {
			case i == len(d.docs):
				if !c.done {
					t.Fatalf("round %d: advance(%d) stopped at %d; the list ends before", round, target, c.at)
				}
			case c.done || c.at != uint64(d.docs[i]) || c.freq != uint64(d.freqs[i]) || c.norm != float64(d.norms[i]):
				t.Fatalf("round %d: advance(%d) at %d (done %v), want %d", round, target, c.at, c.done, d.docs[i])
			}
		}
	}
}

// The decoded postings stay within their budget: when the next list
// would not fit, the cache starts over.
func TestDecodedPostingsStayWithinBudget(t *testing.T) {
	f := newFixture(t)
	c := newChurn(t, f, 11)
	defer cacheEveryList(true)()
	budget := cacheMaxBytes
	cacheMaxBytes = 12 * 40 // a few short lists
	defer func() { cacheMaxBytes = budget }()
	seen := 0
	for round := range 3 {
		for _, w := range c.words {
			f.search(w)
			f.search(w + " " + c.words[(round+1)%len(c.words)])
			f.idx.postings.mu.Lock()
			bytes, lists := f.idx.postings.bytes, 0
			for _, m := range f.idx.postings.segs {
				for _, d := range m {
					lists++
					if bytes < d.bytes() {
						t.Errorf("accounted %d bytes, yet holds a list of %d", bytes, d.bytes())
					}
				}
			}
			f.idx.postings.mu.Unlock()
			if bytes > cacheMaxBytes {
				t.Fatalf("the cache holds %d bytes, over its %d", bytes, cacheMaxBytes)
			}
			seen = max(seen, lists)
		}
		c.add(30)
	}
	if seen == 0 {
		t.Fatal("nothing was ever cached")
	}
}
