package views

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// readProbe is what a test's context carries to Options.ReadCheck: how
// many looks the read took at it, and whether the first look cancels it.
type readProbe struct {
	looks  atomic.Int32
	cancel context.CancelFunc // called at the first look, when set
}

type readProbeKey struct{}

func probeHook(ctx context.Context) {
	p, ok := ctx.Value(readProbeKey{}).(*readProbe)
	if !ok {
		return
	}
	if p.looks.Add(1) == 1 && p.cancel != nil {
		p.cancel()
	}
}

// longReadFixture is a workspace large enough that every long read
// walks several checkEvery's worth of rows: tasks in progress (stalled
// a month later, and the in-progress tier of next), open ones, and done
// ones (completions in the activity feed), all by an agent.
func longReadFixture(t *testing.T, n int) (*storage.Store, string, time.Time) {
	t.Helper()
	s, clk := openTestWith(t, storage.Options{NoSync: true, ReadCheck: probeHook})
	ws := mustWorkspace(t, s, "Long").Slug
	in := make([]storage.ItemCreate, n)
	for i := range in {
		status := []string{"in-progress", "open", "open"}[i%3]
		in[i] = storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("task %04d", i), Content: "body",
			Fields: map[string]any{"status": status, "priority": "medium"}}
	}
	made, err := s.CreateItems(ws, in, agent, 0)
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	var ops []storage.BulkOp
	for i, it := range made {
		if i%3 == 2 {
			ops = append(ops, storage.BulkOp{Ref: it.Ref, Update: &storage.ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}})
		}
	}
	if _, err := s.BulkApply(ws, ops, agent); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	return s, ws, clk.now()
}

// longRead is one read that walks a workspace; its answer is nil when it
// gave none.
type longRead struct {
	name string
	read func(ctx context.Context) (any, error)
}

func longReads(s *storage.Store, ws string, now time.Time) []longRead {
	later := now.Add(30 * 24 * time.Hour) // every task in progress has stalled
	ans := func(v any, err error) (any, error) { return v, err }
	return []longRead{
		{"list in index order", func(ctx context.Context) (any, error) {
			return ans(Of(s).ListItems(ctx, ws, storage.ListParams{Limit: 5000}))
		}},
		{"list by updated_at", func(ctx context.Context) (any, error) {
			return ans(Of(s).ListItems(ctx, ws, storage.ListParams{Limit: 5000, Sort: "updated_at:asc"}))
		}},
		{"list sorted by title", func(ctx context.Context) (any, error) {
			return ans(Of(s).ListItems(ctx, ws, storage.ListParams{Limit: 10, Sort: "title"}))
		}},
		{"list filtered", func(ctx context.Context) (any, error) {
			return ans(Of(s).ListItems(ctx, ws, storage.ListParams{Limit: 5000, NonTerminal: true, Fields: map[string][]string{"priority": {"medium"}}}))
		}},
		{"items index", func(ctx context.Context) (any, error) { return ans(Of(s).ItemsIndex(ctx, ws, "", true)) }},
		{"items changed since", func(ctx context.Context) (any, error) { return ans(Of(s).ItemsChangedSince(ctx, ws, 0, 0)) }},
		{"changes by time", func(ctx context.Context) (any, error) { return ans(Of(s).ChangesByTime(ctx, ws, 0, "", 0)) }},
		{"changes since", func(ctx context.Context) (any, error) {
			chs, _, err := Of(s).ChangesSince(ctx, ws, 0, storage.MaxChangesLimit)
			return chs, err
		}},
		{"journal since", func(ctx context.Context) (any, error) {
			es, _, err := Of(s).JournalSince(ctx, 0, storage.MaxChangesLimit)
			return es, err
		}},
		{"activity", func(ctx context.Context) (any, error) {
			// Every entry is the agent's: the walk reads the whole feed.
			return ans(Of(s).ListActivity(ctx, ws, ActivityQuery{Actor: model.ActorUser}))
		}},
		{"scan items", func(ctx context.Context) (any, error) {
			docs, _, err := Of(s).ScanItems(ctx, ws, "", 5000)
			return docs, err
		}},
		{"stale", func(ctx context.Context) (any, error) { return ans(Of(s).Stale(ctx, ws, StaleParams{Now: later})) }},
		{"dashboard", func(ctx context.Context) (any, error) {
			return ans(Of(s).Dashboard(ctx, ws, DashboardParams{Now: later}))
		}},
		{"bootstrap", func(ctx context.Context) (any, error) {
			return ans(Of(s).Bootstrap(ctx, ws, DashboardParams{Now: later}))
		}},
		{"next", func(ctx context.Context) (any, error) {
			return ans(Of(s).Next(ctx, ws, NextParams{Now: now, Limit: 5000}))
		}},
		{"standup", func(ctx context.Context) (any, error) { return ans(Of(s).Standup(ctx, ws, StandupParams{Now: now})) }},
		{"changelog", func(ctx context.Context) (any, error) {
			return ans(Of(s).Changelog(ctx, ws, ChangelogParams{Now: now}))
		}},
		{"report", func(ctx context.Context) (any, error) { return ans(Of(s).Report(ctx, ws, ReportParams{Now: now})) }},
		{"catch-up", func(ctx context.Context) (any, error) {
			return ans(Of(s).CatchUp(ctx, ws, CatchUpParams{Now: now, Caller: user}))
		}},
	}
}

// isNil says an answer is none at all: a nil pointer or slice.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return rv.IsNil()
	}
	return false
}

// A long read stops at its next look at its context once the context
// ends, and answers the context's error and nothing else; a context
// already ended reads nothing.
func TestLongReadsStopWithTheirContext(t *testing.T) {
	s, ws, now := longReadFixture(t, 2400)
	for _, lr := range longReads(s, ws, now) {
		t.Run(lr.name, func(t *testing.T) {
			// Untroubled, the read walks past its first look and answers.
			live := &readProbe{}
			v, err := lr.read(context.WithValue(context.Background(), readProbeKey{}, live))
			if err != nil || isNil(v) {
				t.Fatalf("with a live context: %v, answer %v", err, v)
			}
			if live.looks.Load() < 2 {
				t.Fatalf("the read looked at its context %d times: it walks fewer than %d rows, or does not look as it walks",
					live.looks.Load(), 2*records.CheckEvery)
			}

			// Canceled at its first look (as a client that leaves mid-read).
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			mid := &readProbe{cancel: cancel}
			v, err = lr.read(context.WithValue(ctx, readProbeKey{}, mid))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("canceled mid-read: err %v, want context.Canceled", err)
			}
			if !isNil(v) {
				t.Errorf("canceled mid-read: a partial answer %+v", v)
			}
			if n := mid.looks.Load(); n != 1 {
				t.Errorf("canceled at its first look, the read looked %d times: it went on walking", n)
			}

			// Ended before the read: canceled, or past its deadline.
			for _, ended := range []func() (context.Context, error){
				func() (context.Context, error) {
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					return ctx, context.Canceled
				},
				func() (context.Context, error) {
					ctx, cancel := context.WithDeadline(context.Background(), now.Add(-time.Hour))
					t.Cleanup(cancel)
					return ctx, context.DeadlineExceeded
				},
			} {
				ctx, want := ended()
				before := &readProbe{}
				v, err := lr.read(context.WithValue(ctx, readProbeKey{}, before))
				if !errors.Is(err, want) || !isNil(v) {
					t.Errorf("a context ended before the read (%v): err %v, answer %v", want, err, v)
				}
				if n := before.looks.Load(); n != 0 {
					t.Errorf("a context ended before the read: the read walked (%d looks)", n)
				}
			}
		})
	}
}
