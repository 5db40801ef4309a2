package searchindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/padd/padd/internal/procstat"
	"github.com/padd/padd/model"
)

// A 2 MiB content of one word (the largest legal item's body as one
// token) is indexed in bounded memory: the token is cut to MaxTermChars
// before Bleve sees it, so no term, dictionary entry or term vector
// grows with it.
func TestLongWordIndexedInBoundedMemory(t *testing.T) {
	f := newFixture(t)
	f.create("tasks", "First", "", nil)
	f.search("first")
	word := "x" + strings.Repeat("y", model.LimitContent.Max-1)
	const bound = 64 << 20 // generous: the word alone is 2 MiB, uncut it took several hundred MiB
	var v string
	used := procstat.HeapPeak(func() {
		v = f.create("tasks", "Long word", word, nil).ID
		f.caughtUp(f.ws.ID)
	})
	t.Logf("heap in use grew by at most %d MiB indexing a %d MiB word", used>>20, len(word)>>20)
	if used > bound {
		t.Fatalf("indexing a %d MiB word took %d MiB of heap; the bound is %d MiB", len(word)>>20, used>>20, bound>>20)
	}
	wantHits(t, "title", f.search("long"), v)
	wantHits(t, "the word's first characters", f.search(word[:MaxIndexedTermChars]), v)
	wantHits(t, "a prefix of the word", f.search("xyyy*"), v)
}

// Three of the largest items of distinct words (the worst case for the
// dictionary and the postings), written while the index was stopped so
// that one catch-up meets them all, are indexed within the figure
// docs/RELIABILITY.md states: a batch holds at most MaxIndexedBodyBytes
// of text, so the cost is about one item's (and Bleve's merges), not
// three at once. Each one's last word is found.
func TestLargestItemsIndexedInBoundedMemory(t *testing.T) {
	if raceOn {
		t.Skip("minutes under the race detector: make test runs it without -race (go test -run IndexedInBoundedMemory ./searchindex)")
	}
	f := newFixture(t)
	f.create("tasks", "First", "", nil)
	f.search("first")
	f.stop()
	r := rand.New(rand.NewPCG(44, 44))
	t.Logf("seed 44")
	last := map[string]string{}
	for i := range 3 {
		var b strings.Builder
		for b.Len() < model.LimitContent.Max-64 {
			w := make([]byte, 3+r.IntN(9))
			for i := range w {
				w[i] = byte('a' + r.IntN(26))
			}
			b.Write(w)
			b.WriteByte(' ')
		}
		end := fmt.Sprintf("endword%c", 'a'+i) // a word no other item holds
		b.WriteString(end)
		last[f.create("tasks", fmt.Sprintf("Many words %d", i), b.String(), nil).ID] = end
	}
	const bound = 512 << 20 // generous: docs/RELIABILITY.md has the figure measured
	used := procstat.HeapPeak(func() {
		f.start()
		f.caughtUp(f.ws.ID)
	})
	t.Logf("heap in use grew by at most %d MiB indexing three items of 2 MiB of distinct words", used>>20)
	if used > bound {
		t.Fatalf("indexing three of the largest legal items took %d MiB of heap; the bound is %d MiB", used>>20, bound>>20)
	}
	for id, w := range last {
		wantHits(t, "its last word", f.search(w), id)
	}
}
