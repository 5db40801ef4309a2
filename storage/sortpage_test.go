package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// pageByUpdated must page exactly as pageSorted does, in both directions,
// with pinned items, ties within a second, filters, offsets and archived
// items in scope.
func TestPageByUpdatedMatchesFullSort(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Sorted")
	r := rand.New(rand.NewPCG(7, 8))
	statuses := []string{"open", "in-progress", "done"}
	var refs []string
	for i := range 300 {
		if r.IntN(3) == 0 {
			clk.advance(time.Second) // others share a second: ties on updated_at
		}
		coll := "tasks"
		fields := map[string]any{"status": statuses[r.IntN(3)]}
		if i%4 == 0 {
			coll, fields = "ideas", nil
		}
		res, err := s.CreateItem(ws.Slug, ItemCreate{Collection: coll, Title: fmt.Sprintf("item %d", i), Fields: fields, Pinned: r.IntN(8) == 0}, user)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, res.Item.Ref)
	}
	for range 60 { // touch some again, out of creation order
		clk.advance(time.Duration(r.IntN(2)) * time.Second)
		ref := refs[r.IntN(len(refs))]
		if _, err := s.UpdateItem(ws.Slug, ref, ItemUpdate{Title: ptrTo("touched " + ref)}, user); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range refs[:10] {
		if _, err := s.DeleteItem(ws.Slug, ref, user); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(res *ListResult) []string {
		var out []string
		for _, it := range res.Items {
			out = append(out, it.ID)
		}
		return out
	}
	queries := []ListParams{
		{}, {Collection: "tasks"}, {Collection: "tasks", Fields: map[string][]string{"status": {"open", "done"}}},
		{IncludeArchived: true}, {Collection: "ideas", IncludeArchived: true},
	}
	for _, q := range queries {
		for _, sort := range []string{"updated_at", "updated_at:desc", "updated_at:asc"} {
			for _, page := range [][2]int{{0, 10}, {7, 25}, {0, 1000}, {290, 20}, {400, 5}} {
				q := q
				q.Sort, q.Offset, q.Limit = sort, page[0], page[1]
				records.ByUpdatedFromIndex = true
				fast, err := rd(s).ListItems(context.Background(), ws.Slug, q)
				records.ByUpdatedFromIndex = false
				slow, err2 := rd(s).ListItems(context.Background(), ws.Slug, q)
				records.ByUpdatedFromIndex = true
				if err != nil || err2 != nil {
					t.Fatalf("%+v: %v / %v", q, err, err2)
				}
				if !slices.Equal(ids(fast), ids(slow)) || fast.HasMore != slow.HasMore || fast.NextOffset != slow.NextOffset {
					t.Fatalf("%+v: from the index %v (more %v, next %d), full sort %v (more %v, next %d)",
						q, ids(fast), fast.HasMore, fast.NextOffset, ids(slow), slow.HasMore, slow.NextOffset)
				}
			}
		}
	}
}

// firstRows must give exactly the first n of a full sort, ties and all,
// whether it sorts everything or keeps a heap.
func TestFirstRowsMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []records.SortPart{{Key: "priority"}, {Key: "title", Desc: true}}
	prios := []any{nil, "high", "low", "medium", 2.0, 10.0}
	for trial := range 200 {
		rows := make([]*records.SortRow, 1+r.IntN(400))
		for i := range rows {
			id := make([]byte, 16)
			for j := range id {
				id[j] = byte(r.IntN(256))
			}
			rows[i] = &records.SortRow{ID: id, Low: fmt.Sprintf("t%d", r.IntN(5)), LowDone: true,
				Item: &model.Item{Fields: map[string]any{"priority": prios[r.IntN(len(prios))]}}}
		}
		less := func(a, b *records.SortRow) bool { return records.RowLess(parts, a, b) }
		want := slices.Clone(rows)
		slices.SortFunc(want, func(a, b *records.SortRow) int {
			if less(a, b) {
				return -1
			}
			if less(b, a) {
				return 1
			}
			return 0
		})
		n := 1 + r.IntN(len(rows))
		if trial%2 == 0 {
			n = 1 + r.IntN(max(1, len(rows)/5))
		}
		got := records.FirstRows(slices.Clone(rows), n, less)
		if len(got) < n {
			t.Fatalf("trial %d: %d rows for the first %d of %d", trial, len(got), n, len(rows))
		}
		for i := range n {
			if got[i] != want[i] {
				t.Fatalf("trial %d: row %d of the first %d of %d differs from a full sort", trial, i, n, len(rows))
			}
		}
	}
}
