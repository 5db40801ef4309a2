package searchindex

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/padd/padd/storage"
)

// The facet counts from segment tables must be Bleve's own, on an index
// of several segments whose documents were updated, moved and archived
// after their first segment was counted (a stale table would show).
func TestFacetTablesAgreeWithBleve(t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"harbor", "lantern", "quartz", "meadow", "signal", "copper"}
	text := func() string {
		var b []string
		for range 2 + r.IntN(3) {
			b = append(b, words[r.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	taskStatuses := []string{"open", "in-progress", "done"}
	newItem := func() storage.ItemCreate {
		switch c := []string{"tasks", "tasks", "ideas", "docs", "plans"}[r.IntN(5)]; c {
		case "tasks":
			return storage.ItemCreate{Collection: c, Title: text(), Content: text(),
				Fields: map[string]any{"status": taskStatuses[r.IntN(3)]}}
		case "plans":
			return storage.ItemCreate{Collection: c, Title: text(), Content: text(), Fields: map[string]any{"status": "active"}}
		default:
			return storage.ItemCreate{Collection: c, Title: text(), Content: text()}
		}
	}
	var items []*storage.ItemView
	addItems := func(n int) {
		in := make([]storage.ItemCreate, n)
		for i := range in {
			in[i] = newItem()
		}
		made, err := f.store.CreateItems(f.ws.Slug, in, user, n)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, made...)
	}
	// Chunks indexed one after another land in separate segments.
	for range 6 {
		addItems(60)
		f.search("harbor")
	}

	queries := append([]string{"", "collection:tasks", "harbor lantern", "quartz -meadow", "signal status:done"}, words...)
	check := func(round int) {
		t.Helper()
		f.search("") // wait for the index to reach the head
		f.idx.mu.Lock()
		bi := f.idx.bi
		f.idx.mu.Unlock()
		// Merges run in the background and move scores and tie order
		// (deleted documents leave the statistics), so the two searches
		// are compared only when no merge came between them.
		snapshot := func() []segment.Segment {
			adv, err := bi.Advanced()
			if err != nil {
				t.Fatal(err)
			}
			rd, err := adv.Reader()
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var out []segment.Segment
			for _, s := range rd.(*scorch.IndexSnapshot).Segments() {
				out = append(out, s.Segment())
			}
			return out
		}
		segs := len(snapshot())
		t.Logf("round %d: %d segments", round, segs)
		if round == 0 && segs < 2 {
			t.Fatalf("the index has %d segments; the test needs several", segs)
		}
		for _, q := range queries {
			for _, archived := range []bool{false, true} {
				req := Request{Query: q, Workspaces: []string{f.ws.ID}, Limit: 7, IncludeArchived: archived}
				p := Parse(q)
				dropStopwords(bi, p)
				var own, theirs *Result
				for attempt := 0; ; attempt++ {
					before := snapshot()
					var err error
					if own, err = f.idx.runCounting(context.Background(), bi, req, p, false, true); err != nil {
						t.Fatalf("round %d %q: %v", round, q, err)
					}
					if theirs, err = f.idx.runCounting(context.Background(), bi, req, p, false, false); err != nil {
						t.Fatal(err)
					}
					if slices.Equal(before, snapshot()) {
						break
					}
					if attempt == 100 {
						t.Fatal("the index kept merging")
					}
					time.Sleep(20 * time.Millisecond)
				}
				what := fmt.Sprintf("round %d (%d segments), %q archived=%v", round, segs, q, archived)
				if own.Total != theirs.Total || fmt.Sprint(own.Hits) != fmt.Sprint(theirs.Hits) {
					t.Errorf("%s: hits %d %v, Bleve %d %v", what, own.Total, own.Hits, theirs.Total, theirs.Hits)
				}
				if !maps.Equal(own.Collections, theirs.Collections) || !maps.Equal(own.Statuses, theirs.Statuses) {
					t.Errorf("%s: facets %v %v, Bleve %v %v", what, own.Collections, own.Statuses, theirs.Collections, theirs.Statuses)
				}
				if theirs.Total > 0 && len(theirs.Collections) == 0 {
					t.Errorf("%s: no facets counted", what)
				}
			}
		}
	}

	check(0)
	for round := 1; round <= 3; round++ {
		for range 25 {
			it := items[r.IntN(len(items))]
			var err error
			switch op := r.IntN(4); {
			case op == 0 && it.Collection.Slug == "tasks":
				_, err = f.store.UpdateItem(f.ws.Slug, it.Ref, storage.ItemUpdate{
					FieldsPatch: map[string]any{"status": taskStatuses[r.IntN(3)]}}, user)
			case op == 1:
				_, err = f.store.DeleteItem(f.ws.Slug, it.Ref, user)
			case op == 2 && it.Collection.Slug == "tasks":
				_, err = f.store.MoveItem(f.ws.Slug, it.Ref, storage.MoveInput{Target: "ideas", Fields: map[string]any{"status": "new"}}, user)
			default:
				title := text()
				_, err = f.store.UpdateItem(f.ws.Slug, it.Ref, storage.ItemUpdate{Title: &title}, user)
			}
			if err != nil && !strings.Contains(err.Error(), "archived") && !strings.Contains(err.Error(), "deleted") {
				t.Fatalf("round %d: %s: %v", round, it.Ref, err)
			}
		}
		addItems(20)
		check(round)
	}
}
