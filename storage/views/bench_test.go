package views

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/bench"
	"github.com/padd/padd/storage"
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
func creates(items []bench.Item, ids []string) []storage.ItemCreate {
	out := make([]storage.ItemCreate, len(items))
	for i, it := range items {
		out[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
		if it.Parent >= 0 && it.Parent < len(ids) {
			out[i].Parent = ids[it.Parent]
		}
	}
	return out
}

// buildFixture creates the 100k workspace in dir and reports how long the
// bulk load took.
func buildFixture(dir string) (string, time.Duration, error) {
	s, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{})
	if err != nil {
		return "", 0, err
	}
	defer s.Close()
	ws, err := s.CreateWorkspace(storage.WorkspaceCreate{Name: "Bench 100k"}, user)
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
func benchStore(b *testing.B) (*storage.Store, string) {
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
	s, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, fixtureWS
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
