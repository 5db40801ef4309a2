package views

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The workspace graph (Pad's GET /workspaces/{ws}/graph): items as
// nodes, their parent and typed links as edges. Pad answers the whole
// workspace unbounded; padd stops at MaxGraphNodes nodes (the most
// recently updated, pinned first, as the list orders them) and
// MaxGraphEdges edges and says truncated, the flag Pad's focus view
// sets when its neighbourhood is cut. So a request costs at most
// MaxGraphNodes summaries read through the list index, the counts of
// their children by key, and their outgoing links up to MaxGraphEdges,
// whatever the workspace's size.
const (
	MaxGraphNodes = 2000
	MaxGraphEdges = 10000
	// Pad's focus bounds: hops by default and at most, and the
	// neighbourhood's size.
	DefaultGraphDepth = 2
	MaxGraphDepth     = 5
	MaxFocusNodes     = 200
)

// GraphQuery asks for the whole graph or, with Focus, an item's
// neighbourhood within Depth hops (1..MaxGraphDepth).
type GraphQuery struct {
	IncludeTerminal bool
	Focus           string
	Depth           int
}

// GraphNode is one item.
type GraphNode struct {
	ID, Ref, Title string
	Collection     string // its collection's slug
	Status         string // its status field, as Pad's node carries it
	IsTerminal     bool
	// ChildCount counts its live children the graph would show (not
	// terminal ones unless asked for), in or out of the node set.
	ChildCount int
	UpdatedAt  time.Time
	Role       string // its agent role's slug
}

// GraphEdge runs between two nodes' refs: a child to its parent
// ("parent"), a link's stored source to its target otherwise.
type GraphEdge struct{ Source, Target, Type string }

// Graph is the nodes and the edges among them.
type Graph struct {
	Nodes     []GraphNode
	Edges     []GraphEdge
	Truncated bool
}

type graphRead struct {
	x       *projectCtx
	q       GraphQuery
	nodes   []GraphNode
	index   map[string]int // item id -> its node
	refOf   map[string]string
	roles   map[string]string
	out     *Graph
	visited int
}

// node makes an item's node if the graph shows it: live, in a live
// collection, and open unless terminal ones are asked for (or force).
func (g *graphRead) node(id []byte, force bool) (*GraphNode, error) {
	s, err := g.x.sums.Get(id)
	if err != nil || s == nil || s.Archived {
		return nil, err
	}
	vc, _, st, err := g.x.classify(s)
	if err != nil || vc == nil {
		return nil, err
	}
	terminal := st != model.StateOpen
	if terminal && !g.q.IncludeTerminal && !force {
		return nil, nil
	}
	status, _, long := s.Field("status")
	if long {
		it, err := records.GetItem(g.x.b, id, false)
		if err != nil || it == nil {
			return nil, err
		}
		status = records.StrField(it.Fields, "status")
	}
	n := &GraphNode{ID: s.ID, Ref: records.RefOf(vc.Collection, s.Number), Title: s.Title, Collection: vc.Slug,
		Status: status, IsTerminal: terminal, UpdatedAt: s.UpdatedAt, ChildCount: g.children(id)}
	if s.RoleID != "" {
		n.Role, err = g.role(s.RoleID)
	}
	return n, err
}

// children counts an item's live children by the parent-scoped counts:
// per live collection its total, less its terminal values unless
// terminal ones are shown; then the items that implement it.
func (g *graphRead) children(id []byte) int {
	n := int64(0)
	for _, vc := range g.x.list {
		n += records.VcountOf(g.x.b, records.ScopeKey(records.KindParentValue, id, vc.key, records.KeyScopeTotal, "", records.LifeLive))
		if g.q.IncludeTerminal {
			continue
		}
		for _, t := range vc.terms {
			n -= records.VcountOf(g.x.b, records.ScopeKey(records.KindParentValue, id, vc.key, vc.doneKey, t, records.LifeLive))
		}
	}
	// An item that implements this one is its child too (as Pad counts
	// it), unless it is one by its parent already.
	self := records.IDString(id)
	for _, imp := range records.Implementers(g.x.b, id) {
		s, err := g.x.sums.Get(imp)
		if err != nil || s == nil || s.Archived || s.ParentID == self {
			continue
		}
		vc, _, st, err := g.x.classify(s)
		if err != nil || vc == nil || st != model.StateOpen && !g.q.IncludeTerminal {
			continue
		}
		n++
	}
	return int(max(n, 0))
}

func (g *graphRead) role(id string) (string, error) {
	if slug, ok := g.roles[id]; ok {
		return slug, nil
	}
	k, ok := records.IDKey(id)
	if !ok {
		return "", nil
	}
	r, err := records.GetRole(g.x.b, k)
	if err != nil {
		return "", err
	}
	slug := ""
	if r != nil {
		slug = r.Slug
	}
	g.roles[id] = slug
	return slug, nil
}

func (g *graphRead) add(n *GraphNode) {
	g.index[n.ID] = len(g.nodes)
	g.refOf[n.ID] = n.Ref
	g.nodes = append(g.nodes, *n)
}

// neighbours visits an item's edges either way: its parent, its
// children, its links out and in. fn gets the other end's id.
func (g *graphRead) neighbours(id []byte, fn func(other []byte) (bool, error)) error {
	s, err := g.x.sums.Get(id)
	if err != nil || s == nil {
		return err
	}
	if p, ok := records.IDKey(s.ParentID); ok {
		if more, err := fn(p); err != nil || !more {
			return err
		}
	}
	stop := false
	visit := func(other []byte) error {
		more, err := fn(other)
		stop = !more
		return err
	}
	kids := records.NewMerged(g.x.b.Index(), [][]byte{records.ChildStream(id)})
	for !stop {
		suffix, _ := kids.Next()
		if suffix == nil {
			break
		}
		if err := visit(suffix[9:]); err != nil {
			return err
		}
	}
	for _, bk := range []*records.Bucket{g.x.b.LinkSrc(), g.x.b.LinkDst()} {
		c := bk.Cursor()
		for k, v := c.Seek(id); !stop && k != nil && len(k) >= 16 && string(k[:16]) == string(id); k, v = c.Next() {
			if err := visit(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Graph reads the graph. A focus that names no live item is not_found.
func (s *Views) Graph(ctx context.Context, ws string, q GraphQuery) (*Graph, error) {
	q.Depth = min(max(q.Depth, 1), MaxGraphDepth)
	out := &Graph{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, time.Now())
		if err != nil {
			return err
		}
		g := &graphRead{x: x, q: q, index: map[string]int{}, refOf: map[string]string{}, roles: map[string]string{}, out: out}
		if q.Focus == "" {
			err = g.whole()
		} else {
			err = g.focus()
		}
		if err != nil {
			return err
		}
		out.Nodes = g.nodes
		return g.edges()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// whole takes the shown items of every live collection in the list's
// order, up to MaxGraphNodes.
func (g *graphRead) whole() error {
	// Terminal items are not streams of their own that can be left out
	// (an item may have no status at all), so every live item is walked
	// and classified; maxGraphVisits bounds the walk.
	var prefixes [][]byte
	for _, vc := range g.x.list {
		prefixes = append(prefixes, records.CollPrefix(vc.key, records.LifeLive))
	}
	return walkStreams(g.x.b, prefixes, false, func(suffix []byte, _ int) (bool, error) {
		g.visited++
		if len(g.nodes) == MaxGraphNodes || g.visited > maxGraphVisits {
			g.out.Truncated = true
			return false, nil
		}
		n, err := g.node(suffix[9:], false)
		if err != nil || n == nil {
			return err == nil, err
		}
		g.add(n)
		return true, nil
	})
}

// maxGraphVisits bounds the items the whole graph reads to pick its
// nodes: terminal items are skipped, and a workspace of mostly finished
// work would otherwise be read whole.
const maxGraphVisits = 10 * MaxGraphNodes

// focus takes the item and the shown items within Depth hops of it,
// nearest first, up to MaxFocusNodes (Pad's focus view). The item is
// shown even when terminal.
func (g *graphRead) focus() error {
	it, err := records.ItemByRef(g.x.b, g.q.Focus, false)
	if err != nil {
		if model.IsNotFound(err) {
			return model.NotFound("focus item not found").With("focus", g.q.Focus)
		}
		return err
	}
	root, err := g.node(records.MustID(it.ID), true)
	if err != nil {
		return err
	}
	if root == nil {
		return model.NotFound("focus item not found").With("focus", g.q.Focus)
	}
	g.add(root)
	frontier := [][]byte{records.MustID(it.ID)}
	seen := map[string]bool{it.ID: true}
	for hop := 0; hop < g.q.Depth && len(frontier) > 0 && !g.out.Truncated; hop++ {
		var next [][]byte
		for _, id := range frontier {
			err := g.neighbours(id, func(other []byte) (bool, error) {
				key := records.IDString(other)
				if seen[key] {
					return true, nil
				}
				seen[key] = true
				if g.visited++; g.visited > maxGraphVisits {
					g.out.Truncated = true
					return false, nil
				}
				n, err := g.node(other, false)
				if err != nil || n == nil {
					return err == nil, err
				}
				if len(g.nodes) >= MaxFocusNodes {
					g.out.Truncated = true
					return false, nil
				}
				g.add(n)
				next = append(next, append([]byte(nil), other...))
				return true, nil
			})
			if err != nil {
				return err
			}
			if g.out.Truncated {
				break
			}
		}
		frontier = next
	}
	return nil
}

// edges adds every edge between two nodes: each node's parent, then
// each node's outgoing links, up to MaxGraphEdges.
func (g *graphRead) edges() error {
	add := func(e GraphEdge) bool {
		if len(g.out.Edges) == MaxGraphEdges {
			g.out.Truncated = true
			return false
		}
		g.out.Edges = append(g.out.Edges, e)
		return true
	}
	for _, n := range g.nodes {
		s, err := g.x.sums.Get(records.MustID(n.ID))
		if err != nil {
			return err
		}
		if ref, ok := g.refOf[s.ParentID]; ok && s.ParentID != "" {
			if !add(GraphEdge{Source: n.Ref, Target: ref, Type: model.LinkParent}) {
				return nil
			}
		}
	}
	c := g.x.b.LinkSrc().Cursor()
	for _, n := range g.nodes {
		id := records.MustID(n.ID)
		for k, v := c.Seek(id); k != nil && len(k) >= 18 && string(k[:16]) == string(id); k, v = c.Next() {
			if err := g.x.b.Check(); err != nil {
				return err
			}
			tl := int(binary.BigEndian.Uint16(k[16:18]))
			if len(k) < 18+tl {
				continue
			}
			ref, ok := g.refOf[records.IDString(v)]
			if !ok {
				continue
			}
			if !add(GraphEdge{Source: n.Ref, Target: ref, Type: string(k[18 : 18+tl])}) {
				return nil
			}
		}
	}
	return nil
}
