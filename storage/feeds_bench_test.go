package storage

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// benchLog opens a store (NoSync: setup speed only) holding one
// workspace whose change log has at least n entries: 50 items, then
// rounds of bulk updates spread over them.
func benchLog(b *testing.B, n int) (*Store, string) {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "padd.db"), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	ws := mustWorkspace(b, s, "Bench").Slug
	const items = 50
	for i := range items {
		if _, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: "item " + strconv.Itoa(i),
			Content: "a body of moderate length\nwith two lines"}, user); err != nil {
			b.Fatal(err)
		}
	}
	for round := 0; ; round++ {
		head, err := rd(s).Head(ws)
		if err != nil {
			b.Fatal(err)
		}
		if head >= int64(n) {
			return s, ws
		}
		ops := make([]BulkOp, items)
		for i := range ops {
			ops[i] = BulkOp{Ref: "TASK-" + strconv.Itoa(i+1), Update: &ItemUpdate{
				FieldsPatch: map[string]any{"priority": []string{"low", "high"}[round%2]}, SortOrder: ptrTo(int64(round))}}
		}
		if _, err := s.BulkApply(ws, ops, user); err != nil {
			b.Fatal(err)
		}
	}
}

// reportPerOp adds the time per read as ms, the unit of the target.
func reportPerOp(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/read")
}

func BenchmarkChangesSince1000(b *testing.B) {
	s, ws := benchLog(b, 20000)
	head, _ := rd(s).Head(ws)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		after := int64(i*997) % (head - 1000)
		page, _, err := rd(s).ChangesSince(context.Background(), ws, after, 1000)
		if err != nil || len(page) != 1000 {
			b.Fatalf("%d entries, %v", len(page), err)
		}
	}
	reportPerOp(b)
}

func BenchmarkJournalSince1000(b *testing.B) {
	s, _ := benchLog(b, 20000)
	head, _ := rd(s).GlobalHead()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		after := int64(i*997) % (head - 1000)
		page, _, err := rd(s).JournalSince(context.Background(), after, 1000)
		if err != nil || len(page) != 1000 {
			b.Fatalf("%d entries, %v", len(page), err)
		}
	}
	reportPerOp(b)
}

// BenchmarkItemsChangedSince1000 walks 1,000 entries (50 items changed
// 20 times each) into one deduplicated page.
func BenchmarkItemsChangedSince1000(b *testing.B) {
	s, ws := benchLog(b, 20000)
	head, _ := rd(s).Head(ws)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := rd(s).ItemsChangedSince(context.Background(), ws, head-1000, 0)
		if err != nil || len(res.Changes) != 50 {
			b.Fatalf("%d rows, %v", len(res.Changes), err)
		}
	}
	reportPerOp(b)
}

func BenchmarkChangesByTimeSearch(b *testing.B) {
	s, ws := benchLog(b, 20000)
	now := time.Now().Add(time.Hour).UnixMilli() // after every write: the search finds nothing
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := rd(s).ChangesByTime(context.Background(), ws, now, "", 0); err != nil {
			b.Fatal(err)
		}
	}
	reportPerOp(b)
}
