package searchindex

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
)

// The facet counts from segment tables must be Bleve's own, on an index
// of several segments whose documents were updated, moved and archived
// after their first segment was counted (a stale table would show).
func TestFacetTablesAgreeWithBleve(t *testing.T) {
	f := newFixture(t)
	c := newChurn(t, f, 3)
	words := c.words
	queries := append([]string{"", "collection:tasks", "harbor lantern", "quartz -meadow", "signal status:done"}, words...)
	check := func(round int) {
		t.Helper()
		bi := f.current()
		segs := len(segmentsOf(t, bi))
		t.Logf("round %d: %d segments", round, segs)
		if round == 0 && segs < 2 {
			t.Fatalf("the index has %d segments; the test needs several", segs)
		}
		for _, q := range queries {
			for _, archived := range []bool{false, true} {
				req := Request{Query: q, Workspaces: []string{f.ws.ID}, Limit: 7, IncludeArchived: archived}
				p := Parse(q)
				dropStopwords(p)
				own, theirs := stableRun(t, bi,
					func() (*Result, error) { return f.idx.runCounting(context.Background(), bi, req, p, false, true) },
					func() (*Result, error) { return f.idx.runCounting(context.Background(), bi, req, p, false, false) })
				what := fmt.Sprintf("round %d (%d segments), %q archived=%v", round, segs, q, archived)
				if d := resultsDiffer(own, theirs); d != "" {
					t.Errorf("%s: %s", what, d)
				}
				if theirs.Total > 0 && len(theirs.Collections) == 0 {
					t.Errorf("%s: no facets counted", what)
				}
			}
		}
	}

	check(0)
	for round := 1; round <= 3; round++ {
		c.mutate(25)
		c.add(20)
		check(round)
	}
}

// churn fills a fixture's workspace with items of a few words from a
// small vocabulary, in several segments, and changes them the ways that
// leave stale data behind in an index: status updates, deletions, moves
// between collections, new titles.
type churn struct {
	t     testing.TB
	f     *fixture
	r     *rand.Rand
	words []string
	items []*storage.ItemView
}

var taskStatuses = []string{"open", "in-progress", "done"}

func newChurn(t testing.TB, f *fixture, seed uint64) *churn {
	c := &churn{t: t, f: f, r: rand.New(rand.NewPCG(seed, seed+1)),
		words: []string{"harbor", "lantern", "quartz", "meadow", "signal", "copper"}}
	// Chunks indexed one after another land in separate segments.
	for range 6 {
		c.add(60)
		f.search("harbor")
	}
	return c
}

func (c *churn) text() string {
	var b []string
	for range 2 + c.r.IntN(3) {
		b = append(b, c.words[c.r.IntN(len(c.words))])
	}
	return strings.Join(b, " ")
}

func (c *churn) newItem() storage.ItemCreate {
	switch coll := []string{"tasks", "tasks", "ideas", "docs", "plans"}[c.r.IntN(5)]; coll {
	case "tasks":
		return storage.ItemCreate{Collection: coll, Title: c.text(), Content: c.text(),
			Fields: map[string]any{"status": taskStatuses[c.r.IntN(3)], "priority": []string{"low", "medium", "high"}[c.r.IntN(3)]},
			Tags:   []string{[]string{"ops", "ui"}[c.r.IntN(2)]}}
	case "plans":
		return storage.ItemCreate{Collection: coll, Title: c.text(), Content: c.text(), Fields: map[string]any{"status": "active"}}
	default:
		return storage.ItemCreate{Collection: coll, Title: c.text(), Content: c.text()}
	}
}

// add creates n items in one bulk load.
func (c *churn) add(n int) {
	c.t.Helper()
	in := make([]storage.ItemCreate, n)
	for i := range in {
		in[i] = c.newItem()
	}
	made, err := c.f.store.CreateItems(c.f.ws.Slug, in, user, n)
	if err != nil {
		c.t.Fatal(err)
	}
	c.items = append(c.items, made...)
}

// mutate changes n random items.
func (c *churn) mutate(n int) {
	c.t.Helper()
	f := c.f
	for range n {
		i := c.r.IntN(len(c.items))
		it := c.items[i]
		var err error
		switch op := c.r.IntN(4); {
		case op == 0 && it.Collection.Slug == "tasks":
			_, err = f.store.UpdateItem(f.ws.Slug, it.Ref, storage.ItemUpdate{
				FieldsPatch: map[string]any{"status": taskStatuses[c.r.IntN(3)]}}, user)
		case op == 1:
			_, err = f.store.DeleteItem(f.ws.Slug, it.Ref, user)
		case op == 2 && it.Collection.Slug == "tasks":
			var moved *storage.ItemResult
			moved, err = f.store.MoveItem(f.ws.Slug, it.Ref, storage.MoveInput{Target: "ideas", Fields: map[string]any{"status": "new"}}, user)
			if err == nil {
				c.items[i] = moved.Item
			}
		default:
			title := c.text()
			_, err = f.store.UpdateItem(f.ws.Slug, it.Ref, storage.ItemUpdate{Title: &title}, user)
		}
		if err != nil && !strings.Contains(err.Error(), "archived") && !strings.Contains(err.Error(), "deleted") {
			c.t.Fatalf("%s: %v", it.Ref, err)
		}
	}
}

// segmentsOf lists the segments of bi's current snapshot. Merges run in
// the background and move scores and tie order (deleted documents leave
// the statistics), so two searches are compared only when no merge came
// between them.
func segmentsOf(t *testing.T, bi bleve.Index) []segment.Segment {
	t.Helper()
	var out []segment.Segment
	withSnapshot(t, bi, func(snap *scorch.IndexSnapshot) {
		for _, s := range snap.Segments() {
			out = append(out, s.Segment())
		}
	})
	return out
}

// withSnapshot runs fn on bi's current snapshot.
func withSnapshot(t *testing.T, bi bleve.Index, fn func(*scorch.IndexSnapshot)) {
	t.Helper()
	adv, err := bi.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	fn(rd.(*scorch.IndexSnapshot))
}

// stableRun runs two searches, again until no merge came between them,
// and returns their results.
func stableRun(t *testing.T, bi bleve.Index, a, b func() (*Result, error)) (ra, rb *Result) {
	t.Helper()
	testwait.Until(t, "two searches with no merge between them", func() bool {
		before := segmentsOf(t, bi)
		var err error
		if ra, err = a(); err != nil {
			t.Fatal(err)
		}
		if rb, err = b(); err != nil {
			t.Fatal(err)
		}
		return slices.Equal(before, segmentsOf(t, bi))
	})
	return ra, rb
}

// resultsDiffer says how a search's result differs from Bleve's, or "".
func resultsDiffer(own, bleve *Result) string {
	if own.Total != bleve.Total || fmt.Sprint(own.Hits) != fmt.Sprint(bleve.Hits) {
		return fmt.Sprintf("hits\nown   %d %v\nBleve %d %v", own.Total, own.Hits, bleve.Total, bleve.Hits)
	}
	if !maps.Equal(own.Collections, bleve.Collections) || !maps.Equal(own.Statuses, bleve.Statuses) {
		return fmt.Sprintf("facets %v %v, Bleve %v %v", own.Collections, own.Statuses, bleve.Collections, bleve.Statuses)
	}
	return ""
}
