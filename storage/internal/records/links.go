package records

import (
	"bytes"
	"encoding/binary"
	"sort"
	"time"

	"github.com/padd/padd/model"
)

// Links live in three buckets:
//
//	links     link id(16)                           -> model.Link JSON (canonical form)
//	link_src  source id(16) | lstr(type) | link id(16) -> target id(16)
//	link_dst  target id(16) | lstr(type) | link id(16) -> source id(16)
//
// The two edge buckets carry the other end as their value so the graph
// walks (cycle refusal, deps) never decode a link record. isUnparented
// probes link_src for source|lstr("implements"), so that layout is fixed.

// ItemBrief is another item as a link, dependency, backlink or star row
// shows it.
type ItemBrief struct {
	ID             string
	Ref            string
	Slug           string
	Title          string
	Status         string // the value of the collection's done field
	State          model.State
	CollectionSlug string
	CollectionIcon string
	UpdatedAt      string // RFC 3339, as Pad's backlink rows carry it
	Archived       bool   // the item or its collection is archived
}

// CollOf caches collections for a read that touches many items.
func CollOf(b *Wsb, colls map[string]*model.Collection, id string) (*model.Collection, error) {
	if c := colls[id]; c != nil {
		return c, nil
	}
	c, err := GetCollection(b, MustID(id))
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, ErrInternal("item names a missing collection %s", id)
	}
	colls[id] = c
	return c, nil
}

func BriefOf(b *Wsb, it *model.Item, colls map[string]*model.Collection) (ItemBrief, error) {
	c, err := CollOf(b, colls, it.CollectionID)
	if err != nil {
		return ItemBrief{}, err
	}
	status, _ := it.Fields[model.DoneField(c.Schema, c.Settings)].(string)
	return ItemBrief{ID: it.ID, Ref: RefOf(c, it.Number), Slug: it.Slug, Title: it.Title,
		Status: status, State: c.State(it.Fields), CollectionSlug: c.Slug, CollectionIcon: c.Icon,
		UpdatedAt: it.UpdatedAt.UTC().Format(time.RFC3339),
		Archived:  it.DeletedAt != nil || c.ArchivedAt != nil}, nil
}

// Edge is one entry of link_src or link_dst.
type Edge struct {
	LinkID []byte
	Other  []byte
	Typ    string
}

// EdgesOf lists an item's entries in link_src or link_dst, of one type
// or (typ "") of all.
func EdgesOf(bk *Bucket, end []byte, typ string) []Edge {
	p := end
	if typ != "" {
		p = Cat(end, Lstr(typ))
	}
	var out []Edge
	c := bk.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if len(k) < 16+2+16 {
			continue
		}
		n := int(binary.BigEndian.Uint16(k[16:18]))
		if len(k) != 16+2+n+16 {
			continue
		}
		out = append(out, Edge{LinkID: append([]byte(nil), k[18+n:]...),
			Other: append([]byte(nil), v...), Typ: string(k[18 : 18+n])})
	}
	return out
}

func GetLink(b *Wsb, id []byte) (*model.Link, error) {
	v := b.Links().Get(id)
	if v == nil {
		return nil, nil
	}
	var l model.Link
	if err := Decode(v, &l); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored link %s is unreadable: %v", IDString(id), err)
	}
	return &l, nil
}

// Link directions from one item's point of view.
const (
	DirOut = "out"
	DirIn  = "in"
)

// Bounds on the deps walk: the graph is acyclic, but one hub item can
// still fan out to most of a workspace.
const (
	MaxDepDepth = 10
	MaxDepNodes = 200
)

// LinkView is one link seen from one of its items.
type LinkView struct {
	Link      model.Link
	Direction string // DirOut when the item is the stored source
	Type      string // as seen from the item: "B blocks A" reads "blocked-by" from A
	Other     ItemBrief
}

// DepNode is one item of the blocking graph around an item.
type DepNode struct {
	ItemBrief
	Depth  int    // 1 for a direct blocker or blockee
	Via    string // the ref of the item it was reached through; "" at depth 1
	LinkID string // the blocks link that reached it
}

// DepGraph is the blocking graph around an item, walked both ways.
type DepGraph struct {
	Item      ItemBrief
	Blocks    []DepNode // items this one blocks, nearest first
	BlockedBy []DepNode // items blocking this one, nearest first
	// Truncated says the walk stopped at MaxDepDepth or MaxDepNodes
	// with more of the graph unread.
	Truncated bool
}

// BriefByID loads the item behind an edge; a dangling id is unreadable
// state, not a miss.
func BriefByID(b *Wsb, id []byte, colls map[string]*model.Collection) (ItemBrief, error) {
	it, err := GetItem(b, id, false)
	if err != nil {
		return ItemBrief{}, err
	}
	if it == nil {
		return ItemBrief{}, model.Errorf(model.CodeStoredStateUnreadable, "a link names item %s, which does not exist", IDString(id))
	}
	return BriefOf(b, it, colls)
}

// BlockReach walks blocks edges breadth first from start: forward
// follows "start blocks X", backward "X blocks start". visit sees each
// newly reached item once, with the item it came from; returning false
// stops the walk. maxDepth and maxNodes (0 = no bound) cut it short,
// and truncated says whether anything was left unread.
func BlockReach(b *Wsb, start []byte, forward bool, maxDepth, maxNodes int,
	visit func(id, from, linkID []byte, depth int) bool) (truncated bool) {
	bk := b.LinkDst()
	if forward {
		bk = b.LinkSrc()
	}
	seen := map[string]bool{string(start): true}
	frontier := [][]byte{start}
	n := 0
	for depth := 1; len(frontier) > 0; depth++ {
		var next [][]byte
		for _, from := range frontier {
			for _, e := range EdgesOf(bk, from, model.LinkBlocks) {
				if seen[string(e.Other)] {
					continue
				}
				if maxDepth > 0 && depth > maxDepth || maxNodes > 0 && n == maxNodes {
					return true
				}
				seen[string(e.Other)] = true
				n++
				if !visit(e.Other, from, e.LinkID, depth) {
					return false
				}
				next = append(next, e.Other)
			}
		}
		frontier = next
	}
	return false
}

func LinksOfItem(b *Wsb, it *model.Item) ([]LinkView, error) {
	var out []LinkView
	colls := map[string]*model.Collection{}
	id := MustID(it.ID)
	for _, side := range []struct {
		bk  *Bucket
		dir string
	}{{b.LinkSrc(), DirOut}, {b.LinkDst(), DirIn}} {
		for _, e := range EdgesOf(side.bk, id, "") {
			l, err := GetLink(b, e.LinkID)
			if err != nil {
				return nil, err
			}
			if l == nil {
				continue
			}
			other, err := BriefByID(b, e.Other, colls)
			if err != nil {
				return nil, err
			}
			typ := l.Type
			if side.dir == DirIn {
				typ = model.InverseLinkType(l.Type)
			}
			out = append(out, LinkView{Link: *l, Direction: side.dir, Type: typ, Other: other})
		}
	}
	// Link ids are time-ordered (v7), so this is creation order.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Link.ID < out[j].Link.ID })
	return out, nil
}

// ReadLinks lists an item's links both ways, oldest first, each typed
// as the item sees it. Archived items answer too (reads are allowed).
func ReadLinks(b *Base, ws, itemRef string) ([]LinkView, error) {
	var out []LinkView
	err := b.Read(ws, func(r *Rtx) error {
		it, err := ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		out, err = LinksOfItem(r.WS, it)
		return err
	})
	return out, err
}

// ReadDeps walks the blocking graph around an item: what it blocks and what
// blocks it, transitively, bounded by MaxDepDepth and MaxDepNodes per
// direction.
func ReadDeps(b *Base, ws, itemRef string) (*DepGraph, error) {
	var out *DepGraph
	err := b.Read(ws, func(r *Rtx) error {
		b := r.WS
		it, err := ItemByRef(b, itemRef, false)
		if err != nil {
			return err
		}
		colls := map[string]*model.Collection{}
		self, err := BriefOf(b, it, colls)
		if err != nil {
			return err
		}
		g := &DepGraph{Item: self}
		for _, dir := range []struct {
			forward bool
			into    *[]DepNode
		}{{true, &g.Blocks}, {false, &g.BlockedBy}} {
			refs := map[string]string{string(MustID(it.ID)): self.Ref}
			var werr error
			trunc := BlockReach(b, MustID(it.ID), dir.forward, MaxDepDepth, MaxDepNodes, func(id, from, linkID []byte, depth int) bool {
				br, err := BriefByID(b, id, colls)
				if err != nil {
					werr = err
					return false
				}
				refs[string(id)] = br.Ref
				n := DepNode{ItemBrief: br, Depth: depth, LinkID: IDString(linkID)}
				if depth > 1 {
					n.Via = refs[string(from)]
				}
				*dir.into = append(*dir.into, n)
				return true
			})
			if werr != nil {
				return werr
			}
			g.Truncated = g.Truncated || trunc
		}
		out = g
		return nil
	})
	return out, err
}
