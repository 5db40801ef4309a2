package views

import (
	"context"
	"testing"

	"github.com/padd/padd/model"
)

// The graph and the role board on the 100k workspace: the graph stops
// at its node bound, the board is refused by its count before any item
// is read.

func BenchmarkGraph100k(b *testing.B) {
	s, ws := benchStore(b)
	var lat latencies
	for b.Loop() {
		lat.time(func() {
			g, err := Of(s).Graph(context.Background(), ws, GraphQuery{})
			if err != nil || !g.Truncated || len(g.Nodes) != MaxGraphNodes {
				b.Fatalf("%v: %d nodes, truncated %v", err, len(g.Nodes), g.Truncated)
			}
		})
	}
	lat.report(b, "ms")
}

func BenchmarkRoleBoard100k(b *testing.B) {
	s, ws := benchStore(b)
	var lat latencies
	for b.Loop() {
		lat.time(func() {
			_, err := Of(s).RoleBoard(context.Background(), ws, "")
			if e, ok := model.AsError(err); !ok || e.Code != model.CodeTooLarge {
				b.Fatalf("board: %v", err)
			}
		})
	}
	lat.report(b, "ms")
}
