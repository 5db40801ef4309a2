package daemon

import (
	"net/http"
	"strconv"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/views"
)

func (s *Server) graphRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/graph", s.graph)
}

// graph answers the workspace's items and their edges, open ones only
// unless ?include_terminal=true, or with ?focus=<ref> the item's
// neighbourhood within ?depth= hops (2; clamped to 1..5, as Pad does).
// Its bounds are views.MaxGraphNodes and views.MaxGraphEdges, and
// Pad's 200 nodes for a focus; past them the answer says truncated.
func (s *Server) graph(w http.ResponseWriter, r *http.Request) error {
	q := views.GraphQuery{IncludeTerminal: r.URL.Query().Get("include_terminal") == "true",
		Focus: r.URL.Query().Get("focus"), Depth: views.DefaultGraphDepth}
	if d := r.URL.Query().Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil {
			return model.BadRequest("depth must be a whole number of hops, got %q", model.Excerpt(d)).With("param", "depth")
		}
		q.Depth = n
	}
	g, err := s.views.Graph(r.Context(), r.PathValue("ws"), q)
	if err != nil {
		return err
	}
	out := api.Graph{Nodes: make([]api.GraphNode, 0, len(g.Nodes)), Edges: make([]api.GraphEdge, 0, len(g.Edges)), Truncated: g.Truncated}
	for _, n := range g.Nodes {
		out.Nodes = append(out.Nodes, api.GraphNode(n))
	}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, api.GraphEdge(e))
	}
	writeJSON(w, 200, out)
	return nil
}
