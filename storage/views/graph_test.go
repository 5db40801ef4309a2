package views

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func graphOf(t *testing.T, s *storage.Store, ws string, q GraphQuery) (*Graph, map[string]GraphNode, string) {
	t.Helper()
	g, err := Of(s).Graph(context.Background(), ws, q)
	if err != nil {
		t.Fatalf("graph %+v: %v", q, err)
	}
	nodes := map[string]GraphNode{}
	for _, n := range g.Nodes {
		nodes[n.Ref] = n
	}
	var edges []string
	for _, e := range g.Edges {
		edges = append(edges, e.Source+">"+e.Target+":"+e.Type)
	}
	sort.Strings(edges)
	return g, nodes, strings.Join(edges, " ")
}

// The graph shows open items and the edges among them, counts children
// it would show, takes terminal ones when asked, and a focus is the
// item's neighbourhood (the item itself even when done).
func TestGraph(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Graph").Slug
	plan := mustCreate(t, s, ws, "plans", "Plan", nil)
	a := mustCreate(t, s, ws, "tasks", "A", nil)
	b := mustCreate(t, s, ws, "tasks", "B", map[string]any{"status": "done"})
	c := mustCreate(t, s, ws, "tasks", "C", nil)
	far := mustCreate(t, s, ws, "tasks", "Far", nil)
	for _, ref := range []string{a.Ref, b.Ref} {
		if _, err := s.UpdateItem(ws, ref, storage.ItemUpdate{Parent: &plan.Ref}, user); err != nil {
			t.Fatal(err)
		}
	}
	impl := mustCreate(t, s, ws, "tasks", "Impl", nil)
	if _, err := s.AddLink(ws, impl.Ref, plan.Ref, model.LinkImplements, user); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{a.Ref, c.Ref}, {c.Ref, far.Ref}} {
		if _, err := s.AddLink(ws, l[0], l[1], model.LinkBlocks, user); err != nil {
			t.Fatal(err)
		}
	}

	g, nodes, edges := graphOf(t, s, ws, GraphQuery{})
	if len(g.Nodes) != 5 || nodes[b.Ref].Ref != "" || nodes[plan.Ref].ChildCount != 2 || g.Truncated {
		t.Errorf("open graph nodes = %+v", g.Nodes)
	}
	if want := a.Ref + ">" + plan.Ref + ":parent " + a.Ref + ">" + c.Ref + ":blocks " + c.Ref + ">" + far.Ref + ":blocks " +
		impl.Ref + ">" + plan.Ref + ":implements"; edges != want {
		t.Errorf("edges = %s, want %s", edges, want)
	}
	if n := nodes[a.Ref]; n.Status != "open" || n.Collection != "tasks" || n.IsTerminal || n.ID != a.ID {
		t.Errorf("node = %+v", n)
	}

	_, nodes, edges = graphOf(t, s, ws, GraphQuery{IncludeTerminal: true})
	if len(nodes) != 6 || !nodes[b.Ref].IsTerminal || nodes[plan.Ref].ChildCount != 3 || !strings.Contains(edges, b.Ref+">"+plan.Ref+":parent") {
		t.Errorf("with terminal = %v %s", nodes, edges)
	}

	_, nodes, _ = graphOf(t, s, ws, GraphQuery{Focus: a.Ref, Depth: 1})
	if len(nodes) != 3 || nodes[plan.Ref].Ref == "" || nodes[c.Ref].Ref == "" {
		t.Errorf("focus depth 1 = %v", nodes)
	}
	_, nodes, _ = graphOf(t, s, ws, GraphQuery{Focus: a.Ref, Depth: 2})
	if len(nodes) != 5 || nodes[far.Ref].Ref == "" || nodes[impl.Ref].Ref == "" {
		t.Errorf("focus depth 2 = %v", nodes)
	}
	_, nodes, _ = graphOf(t, s, ws, GraphQuery{Focus: b.Ref})
	if nodes[b.Ref].Ref == "" || !nodes[b.Ref].IsTerminal {
		t.Errorf("a done focus is shown: %v", nodes)
	}

	if _, err := s.DeleteItem(ws, far.Ref, user); err != nil {
		t.Fatal(err)
	}
	_, err := Of(s).Graph(context.Background(), ws, GraphQuery{Focus: far.Ref})
	wantCode(t, err, model.CodeNotFound)
	_, err = Of(s).Graph(context.Background(), ws, GraphQuery{Focus: "TASK-999"})
	wantCode(t, err, model.CodeNotFound)
}

// A workspace larger than the graph's node bound answers the bound's
// worth of nodes, the most recently updated, and says truncated.
func TestGraphBounded(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Big").Slug
	in := make([]storage.ItemCreate, MaxGraphNodes+25)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("T%d", i)}
	}
	if _, err := s.CreateItems(ws, in, user, 0); err != nil {
		t.Fatal(err)
	}
	g, _, _ := graphOf(t, s, ws, GraphQuery{})
	if len(g.Nodes) != MaxGraphNodes || !g.Truncated {
		t.Fatalf("nodes = %d truncated = %v", len(g.Nodes), g.Truncated)
	}
}
