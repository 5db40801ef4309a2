package searchindex

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/bench"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// hostileQueries are the queries of issue 24 that took the machine: a
// word too long for a typo automaton, tokens that split into a thousand
// short terms, a pasted stack trace, and prefixes that match much of
// the vocabulary.
func hostileQueries() map[string]string {
	var trace strings.Builder
	for i := range 40 {
		trace.WriteString("\tat com.example.service.handler.RequestDispatcher.dispatch(RequestDispatcher.java:")
		trace.WriteString(strings.Repeat("1", 1+i%3))
		trace.WriteString(")\n")
	}
	// Queries just inside the bounds: as many terms as a query takes,
	// each as long as typo tolerance allows or as a word may be, none of
	// them in the index (so the typo-tolerant search runs too).
	r := rand.New(rand.NewPCG(24, 24))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	var typos, longest, short []string
	for range MaxTerms {
		typos = append(typos, word(maxFuzzyChars))
		longest = append(longest, word(model.LimitQuery.Max/MaxTerms-1))
		short = append(short, word(8))
	}
	return map[string]string{
		"32 typo words":    strings.Join(typos, " "),
		"32 long words":    strings.Join(longest, " "),
		"32 short words":   strings.Join(short, " "),
		"32 in a phrase":   `"` + strings.Join(short, " ") + `"`,
		"8 prefixes":       "a* s* t* c* r* p* d* m*",
		"32 prefixes":      strings.Repeat("a* ", 32),
		"x~ x16":           strings.Repeat("x~", 16),
		"one word at most": word(MaxTermChars),
		"long-word":        strings.Repeat("a", 3000),
		"x~ x1000":         strings.Repeat("x~", 1000),
		"x- x3000":         strings.Repeat("x-", 3000),
		"stack-trace":      trace.String()[:1273],
		"prefixes":         "a* b* c* d* e* f* s* t* r* p*",
		"many-words":       strings.Repeat("harbor lanterns quartz ", 40),
	}
}

// BenchmarkHostileQueries10k times each hostile query on a generated
// 10k-item workspace and reports its allocation.
func BenchmarkHostileQueries10k(b *testing.B) {
	st, ws, dir := benchStore(b, 10_000)
	idx, stop := runIndex(b, st, dir, ws)
	defer stop()
	for name, q := range hostileQueries() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var worst time.Duration
			for b.Loop() {
				start := time.Now()
				_, err := idx.Search(context.Background(), Request{Query: q, Workspaces: []string{ws}, Limit: 20})
				worst = max(worst, time.Since(start))
				if err != nil {
					b.Logf("%s: %v", name, err)
				}
			}
			b.ReportMetric(float64(worst)/1e6, "worst-ms")
		})
	}
}

// hostileFixture is a fixture holding n generated items, indexed.
func hostileFixture(t testing.TB, n int) *fixture {
	f := newFixture(t)
	gen := bench.Workspace(7, n)
	in := make([]storage.ItemCreate, len(gen))
	for i, it := range gen {
		in[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
	}
	if _, err := f.store.CreateItems(f.ws.Slug, in, user, n); err != nil {
		t.Fatal(err)
	}
	f.current()
	return f
}

// maxQueryAlloc bounds what one search may allocate, in bytes: the
// issue's goal for the extra memory of any query.
const maxQueryAlloc = 50 << 20

// boundedSearch runs one search and fails t if it allocated more than
// maxQueryAlloc, took longer than limit, or failed other than by a
// coded refusal of the query. It returns the refusal, if any.
func boundedSearch(t *testing.T, f *fixture, q string, limit time.Duration) *model.Error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := f.idx.Search(context.Background(), Request{Query: q, Workspaces: []string{f.ws.ID}, Limit: 20})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxQueryAlloc {
		t.Errorf("%q allocated %d MB; a search may allocate %d MB", model.Excerpt(q), alloc>>20, maxQueryAlloc>>20)
	}
	if took > limit {
		t.Errorf("%q took %s; a search answers within %s", model.Excerpt(q), took, limit)
	}
	if err == nil {
		return nil
	}
	e, ok := model.AsError(err)
	if !ok || e.Code != model.CodeValidation || e.Details["field"] != "q" {
		t.Fatalf("%q: %v, want a validation_error on q or an answer", model.Excerpt(q), err)
	}
	if len(e.Message) > 400 {
		t.Errorf("%q: the refusal is %d bytes long: it echoes the query", model.Excerpt(q), len(e.Message))
	}
	return e
}

// Each of the queries is refused with a coded validation_error
// naming its bound, or answered, within the bounds of time and memory.
// The time allowed is generous (a busy machine); the benchmark above
// measures it.
func TestHostileQueriesAreBounded(t *testing.T) {
	f := hostileFixture(t, 1000)
	refused := map[string]string{"long-word": "", "x- x3000": "", "x~ x1000": "too_many_terms",
		"stack-trace": "too_many_terms", "many-words": "too_many_terms", "32 prefixes": "too_many_prefixes", "prefixes": "too_many_prefixes"}
	for name, q := range hostileQueries() {
		t.Run(name, func(t *testing.T) {
			e := boundedSearch(t, f, q, 10*time.Second)
			reason, want := refused[name]
			switch {
			case !want && e != nil:
				t.Errorf("refused: %v", e)
			case want && e == nil:
				t.Errorf("answered; want it refused (%s)", reason)
			case want && e.Details["limit"] == nil:
				t.Errorf("the refusal names no limit: %v", e.Details)
			case want && reason != "" && e.Details["reason"] != reason:
				t.Errorf("refused for %v, want %s", e.Details["reason"], reason)
			}
		})
	}
	t.Run("word too long", func(t *testing.T) {
		e := boundedSearch(t, f, strings.Repeat("b", MaxTermChars+1), 10*time.Second)
		if e == nil || e.Details["reason"] != "word_too_long" {
			t.Errorf("got %v, want word_too_long", e)
		}
	})
}

// A search whose context is done stops, whether it was done before it
// began or goes while it runs.
func TestSearchStopsWithItsContext(t *testing.T) {
	f := hostileFixture(t, 200)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, q := range []string{"meeting", "meeting status:open", "a* s*", "meetnig"} {
		if _, err := f.idx.Search(ctx, Request{Query: q, Workspaces: []string{f.ws.ID}}); !errors.Is(err, context.Canceled) {
			t.Errorf("%q with a cancelled context: %v, want context.Canceled", q, err)
		}
	}
}

// Whatever the query, a search on a small workspace answers or refuses
// it with a coded validation_error, within the bounds of time and
// memory. The time allowed is generous: the machine may be busy.
func FuzzSearchIsBounded(f *testing.F) {
	for _, q := range hostileQueries() {
		f.Add(q)
	}
	for _, q := range []string{"meeting", "\"meetnig notes\" -bug tag:ui", "in:tasks status:open rel*", "TASK-12 x~y~z",
		"ü~ß-ç", strings.Repeat("\"", 300), "支払い 新しいパスワード -二重", strings.Repeat("支", 200), "\"결제 오류\" 재*"} {
		f.Add(q)
	}
	fx := hostileFixture(f, 300)
	f.Fuzz(func(t *testing.T, q string) {
		boundedSearch(t, fx, q, 10*time.Second)
	})
}
