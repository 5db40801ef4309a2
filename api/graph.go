package api

import "time"

// GraphNode is an item of GET /workspaces/{ws}/graph, keyed by ref.
type GraphNode struct {
	ID         string    `json:"id"`
	Ref        string    `json:"ref"`
	Title      string    `json:"title"`
	Collection string    `json:"collection"`
	Status     string    `json:"status,omitempty"`
	IsTerminal bool      `json:"is_terminal"`
	ChildCount int       `json:"child_count"`
	UpdatedAt  time.Time `json:"updated_at"`
	Role       string    `json:"role,omitempty"`
}

// GraphEdge joins two nodes by ref: "parent" runs from the child to its
// parent; a link runs from its source to its target (blocks: source
// blocks target).
type GraphEdge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Type   string `json:"type"`
}

// Graph is the workspace graph or one item's neighbourhood. Truncated
// says a bound stopped it (docs/PAD-CLI.md, the graph's bounds).
type Graph struct {
	Nodes     []GraphNode `json:"nodes"`
	Edges     []GraphEdge `json:"edges"`
	Truncated bool        `json:"truncated,omitempty"`
}
