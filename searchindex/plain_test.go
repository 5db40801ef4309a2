package searchindex

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// padd's own scoring of plain-word searches must give Bleve's answer to
// the same search bit for bit: the same total, the same hits in the same
// order with the same scores, the same facets. It is compared over
// words alone and together, every kind of keyword filter, archived
// items and collections, offsets, two workspaces, and an index of
// several segments with deleted and moved documents in them.
func TestPlainAgreesWithBleve(t *testing.T) {
	f := newFixture(t)
	c := newChurn(t, f, 7)
	// A second workspace whose documents a workspace filter must leave out.
	other, err := f.store.CreateWorkspace(storage.WorkspaceCreate{Name: "Other"}, user)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]storage.ItemCreate, 80)
	for i := range in {
		in[i] = c.newItem()
	}
	if _, err := f.store.CreateItems(other.Slug, in, user, len(in)); err != nil {
		t.Fatal(err)
	}
	ideas, err := views.Of(f.store).GetCollection(f.ws.Slug, "ideas")
	if err != nil {
		t.Fatal(err)
	}

	var queries []string
	for i, a := range c.words {
		queries = append(queries, a, a+" "+c.words[(i+1)%len(c.words)], a+" "+a,
			a+" "+c.words[(i+2)%len(c.words)]+" "+c.words[(i+3)%len(c.words)])
	}
	queries = append(queries, "harbor status:done", "lantern in:tasks", "quartz tag:ui", "meadow priority:high",
		"signal copper status:open,done", "the harbor", "HARBOR Lanterns", "nowhere", "harbor nowhere")
	requests := func(q string) []Request {
		var out []Request
		for _, ws := range [][]string{{f.ws.ID}, {f.ws.ID, other.ID}, nil} {
			base := Request{Query: q, Workspaces: ws}
			out = append(out, base)
			r := base
			r.Limit, r.Offset = 4, 3
			out = append(out, r)
			r = base
			r.IncludeArchived = true
			out = append(out, r)
			r = base
			r.HiddenCollections = []string{ideas.ID}
			r.Statuses = []string{"open", "new"}
			out = append(out, r)
			r = base
			r.Collections, r.Priorities, r.NoFacets = []string{"tasks"}, []string{"low", "high"}, true
			out = append(out, r)
		}
		return out
	}

	matched, skipped := 0, 0 // searches that matched; that scored only title matches
	check := func(round int) {
		t.Helper()
		bi := f.current()
		segs := len(segmentsOf(t, bi))
		if round == 0 && segs < 2 {
			t.Fatalf("the index has %d segments; the test needs several", segs)
		}
		checkCardinality(t, bi)
		for _, q := range queries {
			for _, req := range requests(q) {
				p := Parse(q)
				dropStopwords(p)
				pq := plainOf(req, p, false)
				if pq == nil {
					t.Fatalf("%q is not a plain search", q)
				}
				var scored uint64
				var own, theirs *Result
				// Walking zap's postings (this small index's own way), and
				// with every list decoded into the cache.
				for _, decoded := range []bool{false, true} {
					restore := cacheEveryList(decoded)
					own, theirs = stableRun(t, bi, func() (*Result, error) {
						res, n, err := f.idx.searchPlainScoring(context.Background(), bi, req, pq)
						scored = n
						return res, err
					}, func() (*Result, error) { return f.idx.runCounting(context.Background(), bi, req, p, false, true) })
					restore()
					if d := resultsDiffer(own, theirs); d != "" {
						t.Errorf("round %d (%d segments, decoded postings %v), %q %+v: %s", round, segs, decoded, q, req, d)
					}
				}
				if theirs.Total > 0 {
					matched++
				}
				if scored < own.Total {
					skipped++
				}
			}
		}
	}
	check(0)
	for round := 1; round <= 3; round++ {
		c.mutate(30)
		c.add(20)
		check(round)
	}
	if f.idx.postings.bytes == 0 {
		t.Error("no decoded postings were cached")
	}
	if matched < 500 || skipped < 50 {
		t.Errorf("of the compared searches, %d matched anything and %d scored only title matches; the test needs more", matched, skipped)
	}
	t.Logf("%d searches matched, %d scored only title matches", matched, skipped)
}

// Searches that are not plain words go to Bleve.
func TestPlainOf(t *testing.T) {
	for q, want := range map[string]bool{
		"harbor":             true,
		"harbor lantern":     true,
		"harbor status:done": true,
		`"harbor lantern"`:   false,
		"harb*":              false,
		"TASK-4":             false,
		"harbor -lantern":    false,
		"the":                false, // no words left
		"e-mail":             false, // two terms
		strings.Repeat("harbor ", maxPlainWords+1):                                    false,
		strings.Repeat("harbor ", maxPlainWords) + "status:open tag:ui priority:high": false, // more clauses than Bleve sorts stably
	} {
		p := Parse(q)
		dropStopwords(p)
		if got := plainOf(Request{Query: q}, p, false) != nil; got != want {
			t.Errorf("%q: plain %v, want %v", q, got, want)
		}
	}
	p := Parse("harbor")
	dropStopwords(p)
	if plainOf(Request{Sort: "updated_at"}, p, false) != nil || plainOf(Request{}, p, true) != nil ||
		plainOf(Request{Only: []string{"x"}}, p, false) != nil {
		t.Error("a sorted, fuzzy or restricted search is plain")
	}
}

// A match without the words in its title can still outrank title matches
// (a short body that repeats the word, against long titles and bodies
// that hold it once), and then every match must be scored: the bound
// that lets a search score title matches alone must not be too low.
func TestPlainScoresBodyMatchesThatCanWin(t *testing.T) {
	f := newFixture(t)
	filler := func(n int) string { return strings.Repeat("meadow lantern copper ", n/3) }
	var in []storage.ItemCreate
	for i := range 30 {
		in = append(in, storage.ItemCreate{Collection: "docs",
			Title: "zephyr " + filler(3*i), Content: filler(300)})
	}
	for i := range 300 { // zephyr is rare
		in = append(in, storage.ItemCreate{Collection: "docs", Title: fmt.Sprintf("filler %d", i), Content: filler(300)})
	}
	in = append(in, storage.ItemCreate{Collection: "docs", Title: "note", Content: "zephyr zephyr zephyr"})
	made, err := f.store.CreateItems(f.ws.Slug, in, user, len(in))
	if err != nil {
		t.Fatal(err)
	}
	bodyOnly := made[len(made)-1].ID
	bi := f.current()
	req := Request{Query: "zephyr", Workspaces: []string{f.ws.ID}, Limit: 20}
	p := Parse(req.Query)
	dropStopwords(p)
	theirs, err := f.idx.runCounting(context.Background(), bi, req, p, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(theirs.Hits, func(h Hit) bool { return h.ID == bodyOnly }) {
		t.Fatalf("Bleve does not rank the short body in the top 20: the test shows nothing; hits %v", theirs.Hits)
	}
	own, scored, err := f.idx.searchPlainScoring(context.Background(), bi, req, plainOf(req, p, false))
	if err != nil {
		t.Fatal(err)
	}
	if scored != own.Total {
		t.Errorf("scored %d of %d matches: a body-only match that can win was skipped", scored, own.Total)
	}
	if d := resultsDiffer(own, theirs); d != "" {
		t.Error(d)
	}
}

// Whatever query the fuzzer makes, a search padd scores itself answers
// as Bleve does, under the filters, archive and paging the second
// argument's bits pick.
func FuzzPlainAgreesWithBleve(f *testing.F) {
	for _, q := range []string{"harbor", "harbor lantern", "quartz status:done", "meadow in:tasks tag:ui",
		"Signal copper priority:high", "the harbor", "harbors LANTERN lantern"} {
		f.Add(q, uint8(0))
		f.Add(q, uint8(0xff))
	}
	fx := newFixture(f)
	newChurn(f, fx, 11)
	bi := fx.current()
	f.Fuzz(func(t *testing.T, q string, bits uint8) {
		req := Request{Query: q, Workspaces: []string{fx.ws.ID}, Limit: 1 + int(bits%8), Offset: int(bits>>3) % 4,
			IncludeArchived: bits&0x20 != 0, NoFacets: bits&0x40 != 0}
		if bits&0x80 != 0 {
			req.Statuses = []string{"open", "done"}
		}
		p := Parse(q)
		dropStopwords(p)
		pq := plainOf(req, p, false)
		if pq == nil {
			return
		}
		own, theirs := stableRun(t, bi,
			func() (*Result, error) { return fx.idx.searchPlain(context.Background(), bi, req, pq) },
			func() (*Result, error) { return fx.idx.runCounting(context.Background(), bi, req, p, false, true) })
		if d := resultsDiffer(own, theirs); d != "" {
			t.Errorf("%q %+v: %s", q, req, d)
		}
	})
}

// cacheEveryList, when on, sends every postings list of every segment
// through the decoded postings cache; the returned func restores the
// thresholds.
func cacheEveryList(on bool) (restore func()) {
	docs, postings := cacheMinSegmentDocs, cacheMinPostings
	if on {
		cacheMinSegmentDocs, cacheMinPostings = 0, 0
	}
	return func() { cacheMinSegmentDocs, cacheMinPostings = docs, postings }
}

// checkCardinality: the fields' cardinalities, which BM25's average
// length comes from, are Bleve's.
func checkCardinality(t *testing.T, bi bleve.Index) {
	t.Helper()
	withSnapshot(t, bi, func(snap *scorch.IndexSnapshot) {
		for _, field := range []string{"body", "title"} {
			var dicts []segment.TermDictionary
			for _, ss := range snap.Segments() {
				d, err := ss.Segment().Dictionary(field)
				if err != nil {
					t.Fatal(err)
				}
				dicts = append(dicts, d)
			}
			want, err := snap.FieldCardinality(field)
			if err != nil {
				t.Fatal(err)
			}
			if got := cardinality(dicts); got != want {
				t.Errorf("%s: cardinality %d over %d segments, Bleve's %d", field, got, len(dicts), want)
			}
		}
	})
}
