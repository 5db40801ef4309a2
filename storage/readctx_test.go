package storage

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
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
func longReadFixture(t *testing.T, n int) (*Store, string, time.Time) {
	t.Helper()
	s, clk := openTestWith(t, Options{NoSync: true, ReadCheck: probeHook})
	ws := mustWorkspace(t, s, "Long").Slug
	in := make([]ItemCreate, n)
	for i := range in {
		status := []string{"in-progress", "open", "open"}[i%3]
		in[i] = ItemCreate{Collection: "tasks", Title: fmt.Sprintf("task %04d", i), Content: "body",
			Fields: map[string]any{"status": status, "priority": "medium"}}
	}
	made, err := s.CreateItems(ws, in, agent, 0)
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	var ops []BulkOp
	for i, it := range made {
		if i%3 == 2 {
			ops = append(ops, BulkOp{Ref: it.Ref, Update: &ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}})
		}
	}
	if _, err := s.BulkApply(ws, ops, agent); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	return s, ws, clk.now()
}

// A short read never looks at its context (nor pays for the look): a
// page smaller than checkEvery rows is read whole even when the context
// ends during it.
func TestShortReadIsNotStopped(t *testing.T) {
	s, ws, _ := longReadFixture(t, 30)
	p := &readProbe{}
	res, err := rd(s).ListItems(context.WithValue(context.Background(), readProbeKey{}, p), ws, ListParams{Limit: 20})
	if err != nil || len(res.Items) != 20 || p.looks.Load() != 0 {
		t.Fatalf("a page of 20: %v, %d looks", err, p.looks.Load())
	}
}
