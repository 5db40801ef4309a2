package views

import (
	"context"
	"runtime"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// knowledgeBench seeds the shared 100k workspace with what bootstrap and
// context read beyond the bulk items: the whole library, two roles, and
// one task wired like real work (a parent plan, a blocker, a link, a
// decision). It returns the task's ref.
func knowledgeBench(b *testing.B) (*storage.Store, string, string) {
	b.Helper()
	s, ws := benchStore(b)
	for _, cat := range model.ConventionLibrary() {
		for _, c := range cat.Conventions {
			activate(b, s, ws, c.Title)
		}
	}
	for _, cat := range model.PlaybookLibrary() {
		for _, p := range cat.Playbooks {
			activate(b, s, ws, p.Title)
		}
	}
	for _, name := range []string{"Implementer", "Reviewer"} {
		if _, err := s.CreateRole(ws, storage.RoleCreate{Name: name}, user); err != nil {
			b.Fatal(err)
		}
	}
	kids, err := Of(s).Children(ws, "PLAN-1", 2, 0)
	if err != nil || len(kids.Items) < 2 {
		b.Fatalf("fixture plan has no children: %v", err)
	}
	task, blocker := kids.Items[0].Ref, kids.Items[1].Ref
	if _, err := s.AddLink(ws, blocker, task, model.LinkBlocks, user); err != nil && !model.IsCode(err, model.CodeConflict) {
		b.Fatal(err)
	}
	if _, err := s.UpdateItem(ws, task, storage.ItemUpdate{AppendDecision: &storage.Decision{Decision: "Batch the writes", Rationale: "fewer fsyncs"}}, user); err != nil {
		b.Fatal(err)
	}
	// The fixture copy is hundreds of megabytes of garbage: collect it
	// now rather than inside the measured calls.
	runtime.GC()
	return s, ws, task
}

// BenchmarkBootstrap100k is the agent bootstrap of a 100k-item
// workspace. Target: 10 ms.
func BenchmarkBootstrap100k(b *testing.B) {
	s, ws, _ := knowledgeBench(b)
	var lat latencies
	for b.Loop() {
		lat.time(func() {
			bs, err := Of(s).Bootstrap(context.Background(), ws, DashboardParams{})
			if err != nil || len(bs.Conventions) == 0 || len(bs.Dashboard.ActiveItems) != model.BootstrapCap {
				b.Fatalf("%v", err)
			}
		})
	}
	lat.report(b, "ms")
}

// BenchmarkItemContext100k is the work brief of a task in a 100k-item
// workspace, with the implement intent. Target: 5 ms.
func BenchmarkItemContext100k(b *testing.B) {
	s, ws, task := knowledgeBench(b)
	var lat latencies
	for b.Loop() {
		lat.time(func() {
			c, err := Of(s).ItemContext(ws, task, ContextQuery{Intent: "implement", Role: "implementer"})
			if err != nil || len(c.Parents) != 1 || len(c.Conventions) == 0 || len(c.Deps.BlockedBy) == 0 {
				b.Fatalf("%v", err)
			}
		})
	}
	lat.report(b, "ms")
}

// BenchmarkPatch100k is one fsynced two-edit patch of a body in a
// 100k-item workspace.
func BenchmarkPatch100k(b *testing.B) {
	s, ws, task := knowledgeBench(b)
	body := "# Notes\nstate: 0\n"
	if _, err := s.UpdateItem(ws, task, storage.ItemUpdate{Content: &body, Replace: true}, user); err != nil {
		b.Fatal(err)
	}
	var lat latencies
	flip := []model.PatchEdit{{Old: "state: 0", New: "state: 1"}, {Old: "# Notes", New: "# Notes!"}}
	back := []model.PatchEdit{{Old: "state: 1", New: "state: 0"}, {Old: "# Notes!", New: "# Notes"}}
	i := 0
	for b.Loop() {
		edits := flip
		if i%2 == 1 {
			edits = back
		}
		i++
		lat.time(func() {
			if _, err := s.PatchItem(ws, task, storage.PatchRequest{Edits: edits}, user); err != nil {
				b.Fatal(err)
			}
		})
	}
	lat.report(b, "ms")
}
