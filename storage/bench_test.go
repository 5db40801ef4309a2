package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/bench"
	"github.com/padd/padd/internal/leakcheck"
	"github.com/padd/padd/model"
	"go.uber.org/goleak"
)

// The 100k-item benchmarks share one generated workspace, built once per
// `go test -bench` run (the build itself is BenchmarkBulkLoad100k's
// subject) and then copied per benchmark so writes do not pile up.

const benchItems = 100_000

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
	fixtureWS   string
)

// creates turns generated items into creates, parents named by the ids
// of the plans created before them.
func creates(items []bench.Item, ids []string) []ItemCreate {
	out := make([]ItemCreate, len(items))
	for i, it := range items {
		out[i] = ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
		if it.Parent >= 0 && it.Parent < len(ids) {
			out[i].Parent = ids[it.Parent]
		}
	}
	return out
}

// buildFixture creates the 100k workspace in dir and reports how long the
// bulk load took.
func buildFixture(dir string) (string, time.Duration, error) {
	s, err := Open(filepath.Join(dir, "padd.db"), Options{})
	if err != nil {
		return "", 0, err
	}
	defer s.Close()
	ws, err := s.CreateWorkspace(WorkspaceCreate{Name: "Bench 100k"}, user)
	if err != nil {
		return "", 0, err
	}
	gen := bench.Workspace(1, benchItems)
	nplans := 0
	for nplans < len(gen) && gen[nplans].Collection == "plans" {
		nplans++
	}
	start := time.Now()
	plans, err := s.CreateItems(ws.Slug, creates(gen[:nplans], nil), user, 0)
	if err != nil {
		return "", 0, err
	}
	ids := make([]string, len(plans))
	for i, p := range plans {
		ids[i] = p.ID
	}
	if _, err := s.CreateItems(ws.Slug, creates(gen[nplans:], ids), user, 0); err != nil {
		return "", 0, err
	}
	return ws.Slug, time.Since(start), nil
}

// benchStore opens a private copy of the 100k fixture.
func benchStore(b *testing.B) (*Store, string) {
	b.Helper()
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "padd-bench-")
		if fixtureErr == nil {
			fixtureWS, _, fixtureErr = buildFixture(fixtureDir)
		}
	})
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	dir := b.TempDir()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "padd.db"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "padd.db"), data, 0o600); err != nil {
		b.Fatal(err)
	}
	s, err := Open(filepath.Join(dir, "padd.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, fixtureWS
}

// TestMain removes the benchmarks' fixture after the run, and fails the
// tests if a goroutine they started is still running after them.
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if fixtureDir != "" {
			os.RemoveAll(fixtureDir)
		}
		os.Exit(code)
	}))
}

// latencies records per-op durations and reports the median and p99,
// the numbers the targets are stated in.
type latencies []time.Duration

func (l *latencies) time(fn func()) {
	t := time.Now()
	fn()
	*l = append(*l, time.Since(t))
}

func (l latencies) report(b *testing.B, unit string) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	div := float64(time.Microsecond)
	if unit == "ms" {
		div = float64(time.Millisecond)
	}
	b.ReportMetric(float64(l[len(l)/2])/div, "p50-"+unit)
	b.ReportMetric(float64(l[len(l)*99/100])/div, "p99-"+unit)
}

// BenchmarkBulkLoad100k loads 100k items (CreateItems' default chunk
// per transaction, fsync on) into a fresh store. Run with -benchtime=1x.
func BenchmarkBulkLoad100k(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		_, took, err := buildFixture(dir)
		if err != nil {
			b.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(dir, "padd.db"))
		b.ReportMetric(took.Seconds(), "s/100k")
		b.ReportMetric(float64(fi.Size())/1e6, "MB-db/100k")
	}
}

// BenchmarkCreate100k creates one item per op in a 100k workspace, each
// its own fsynced transaction.
func BenchmarkCreate100k(b *testing.B) {
	s, ws := benchStore(b)
	var lat latencies
	i := 0
	for b.Loop() {
		i++
		lat.time(func() {
			if _, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: fmt.Sprintf("bench create %d", i),
				Content: "created by the benchmark", Fields: map[string]any{"priority": "high"}}, user); err != nil {
				b.Fatal(err)
			}
		})
	}
	lat.report(b, "ms")
}

func BenchmarkGetByRef100k(b *testing.B) {
	s, ws := benchStore(b)
	r := rand.New(rand.NewPCG(2, 3))
	var lat latencies
	for b.Loop() {
		ref := fmt.Sprintf("TASK-%d", 1+r.IntN(benchItems))
		lat.time(func() {
			if _, err := rd(s).GetItem(ws, ref); err != nil && !model.IsNotFound(err) {
				b.Fatal(err)
			}
		})
	}
	lat.report(b, "us")
}

// BenchmarkListFilteredPage100k lists the first 50 open high-priority
// tasks (Pad's default order) with bodies.
func BenchmarkListFilteredPage100k(b *testing.B) {
	s, ws := benchStore(b)
	var lat latencies
	for b.Loop() {
		lat.time(func() {
			res, err := rd(s).ListItems(context.Background(), ws, ListParams{Collection: "tasks", Limit: 50, WithContent: true,
				Fields: map[string][]string{"status": {"open", "in-progress"}, "priority": {"high"}}})
			if err != nil || len(res.Items) != 50 {
				b.Fatalf("%v %v", len(res.Items), err)
			}
		})
	}
	lat.report(b, "ms")
}

// BenchmarkListNonTerminalPage100k is `pad item list`'s default: open
// work across the workspace, a page of 50.
func BenchmarkListNonTerminalPage100k(b *testing.B) {
	s, ws := benchStore(b)
	var lat latencies
	for b.Loop() {
		lat.time(func() {
			res, err := rd(s).ListItems(context.Background(), ws, ListParams{Limit: 50, NonTerminal: true, WithContent: true})
			if err != nil || len(res.Items) != 50 {
				b.Fatalf("%v %v", len(res.Items), err)
			}
		})
	}
	lat.report(b, "ms")
}

// BenchmarkListSorted100k lists done tasks (about a third of 65k) in an
// explicit order, a page of 10: updated_at comes from the index keys,
// title from the summaries; neither decodes the matches.
func BenchmarkListSorted100k(b *testing.B) {
	s, ws := benchStore(b)
	for _, sortBy := range []string{"updated_at:desc", "title"} {
		b.Run(sortBy, func(b *testing.B) {
			var lat latencies
			for b.Loop() {
				lat.time(func() {
					res, err := rd(s).ListItems(context.Background(), ws, ListParams{Collection: "tasks", Limit: 10, Sort: sortBy,
						Fields: map[string][]string{"status": {"done"}}})
					if err != nil || len(res.Items) != 10 {
						b.Fatalf("%v %v", len(res.Items), err)
					}
				})
			}
			lat.report(b, "ms")
		})
	}
}

// BenchmarkListSortedAll100k sorts every task (half the workspace) by a
// key no index holds: each is read, the first page kept.
func BenchmarkListSortedAll100k(b *testing.B) {
	s, ws := benchStore(b)
	for _, sortBy := range []string{"priority", "title", "created_at:asc"} {
		b.Run(sortBy, func(b *testing.B) {
			var lat latencies
			for b.Loop() {
				lat.time(func() {
					res, err := rd(s).ListItems(context.Background(), ws, ListParams{Collection: "tasks", Limit: 50, Sort: sortBy})
					if err != nil || len(res.Items) != 50 {
						b.Fatalf("%v %v", len(res.Items), err)
					}
				})
			}
			lat.report(b, "ms")
		})
	}
}
