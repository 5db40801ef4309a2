package searchindex

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/padd/padd/model"
)

// heapPeak samples the heap in use while fn runs and answers the
// highest figure above the heap in use before it (after a GC).
func heapPeak(fn func()) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

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
	used := heapPeak(func() {
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

// The largest legal item of distinct words (the worst case for the
// dictionary and the postings) is indexed within the figure
// docs/RELIABILITY.md states; its last word is found.
func TestLargestItemIndexedInBoundedMemory(t *testing.T) {
	f := newFixture(t)
	f.create("tasks", "First", "", nil)
	f.search("first")
	r := rand.New(rand.NewPCG(44, 44))
	t.Logf("seed 44")
	var b strings.Builder
	var last string
	for b.Len() < model.LimitContent.Max-20 {
		w := make([]byte, 3+r.IntN(9))
		for i := range w {
			w[i] = byte('a' + r.IntN(26))
		}
		last = string(w)
		b.Write(w)
		b.WriteByte(' ')
	}
	const bound = 512 << 20 // generous: docs/RELIABILITY.md has the figure measured
	var v string
	used := heapPeak(func() {
		v = f.create("tasks", "Many words", b.String(), nil).ID
		f.caughtUp(f.ws.ID)
	})
	t.Logf("heap in use grew by at most %d MiB indexing %d KiB of distinct words", used>>20, b.Len()>>10)
	if used > bound {
		t.Fatalf("indexing the largest legal item took %d MiB of heap; the bound is %d MiB", used>>20, bound>>20)
	}
	wantHits(t, "its last word", f.search(last), v)
}
