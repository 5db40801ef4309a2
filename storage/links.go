package storage

import (
	"bytes"
	"sort"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
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

// LinkResult answers AddLink.
type LinkResult struct {
	Link *model.Link
	// Existing is true when the same link was already stored: nothing
	// was written and Link is the stored one.
	Existing bool
}

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

// briefByID loads the item behind an edge; a dangling id is unreadable
// state, not a miss.
func briefByID(b *records.Wsb, id []byte, colls map[string]*model.Collection) (ItemBrief, error) {
	it, err := records.GetItem(b, id, false)
	if err != nil {
		return ItemBrief{}, err
	}
	if it == nil {
		return ItemBrief{}, model.Errorf(model.CodeStoredStateUnreadable, "a link names item %s, which does not exist", records.IDString(id))
	}
	return records.BriefOf(b, it, colls)
}

// linkTypeOf validates a caller's link type, accepting Pad's wire
// spellings (split_from, BLOCKED_BY) for the model's hyphenated names.
// foreign also accepts a type padd does not know (model.ForeignLinkType):
// the sync and bundle doors keep what a newer Pad holds.
func linkTypeOf(raw string, foreign bool) (string, error) {
	t := model.NormalizeLinkType(raw)
	if _, _, _, ok := model.CanonicalLink("", "", t); ok || foreign && model.ForeignLinkType(t) {
		return t, nil
	}
	return "", model.Invalid("invalid link type %q: use one of %s", raw, strings.Join(model.LinkTypes, ", ")).
		With("field", "link_type").With("valid", model.LinkTypes)
}

// canonicalLink is model.CanonicalLink, keeping a foreign type as it came.
func canonicalLink(source, target, typ string) (string, string, string) {
	if cs, ct, ctyp, ok := model.CanonicalLink(source, target, typ); ok {
		return cs, ct, ctyp
	}
	return source, target, typ
}

// linkBetween is the id of the link "src typ dst", or nil. Every link is
// indexed under both ends, so it walks the source's outgoing edges of
// that type and the target's incoming ones side by side and stops when
// either runs out: the cost is the smaller degree, and a hub item with
// thousands of links finds a new link's twin, or its absence, in a few
// steps.
func linkBetween(b *records.Wsb, src, dst []byte, typ string) []byte {
	ps, pd := records.Cat(src, records.Lstr(typ)), records.Cat(dst, records.Lstr(typ))
	cs, cd := b.LinkSrc().Cursor(), b.LinkDst().Cursor()
	ks, vs := cs.Seek(ps)
	kd, vd := cd.Seek(pd)
	for ks != nil && bytes.HasPrefix(ks, ps) && kd != nil && bytes.HasPrefix(kd, pd) {
		if len(ks) == len(ps)+16 && bytes.Equal(vs, dst) {
			return append([]byte(nil), ks[len(ps):]...)
		}
		if len(kd) == len(pd)+16 && bytes.Equal(vd, src) {
			return append([]byte(nil), kd[len(pd):]...)
		}
		ks, vs = cs.Next()
		kd, vd = cd.Next()
	}
	return nil
}

// putLink writes or (del) removes a link with both of its edges.
func putLink(b *records.Wsb, l *model.Link, del bool) error {
	id, src, dst := records.MustID(l.ID), records.MustID(l.SourceID), records.MustID(l.TargetID)
	ks, kd := records.Cat(src, records.Lstr(l.Type), id), records.Cat(dst, records.Lstr(l.Type), id)
	if del {
		return records.FirstErr(b.Links().Delete(id), b.LinkSrc().Delete(ks), b.LinkDst().Delete(kd))
	}
	v, err := records.Encode(l)
	if err != nil {
		return err
	}
	return records.FirstErr(b.Links().Put(id, v), b.LinkSrc().Put(ks, dst), b.LinkDst().Put(kd, src))
}

// blockReach walks blocks edges breadth first from start: forward
// follows "start blocks X", backward "X blocks start". visit sees each
// newly reached item once, with the item it came from; returning false
// stops the walk. maxDepth and maxNodes (0 = no bound) cut it short,
// and truncated says whether anything was left unread.
func blockReach(b *records.Wsb, start []byte, forward bool, maxDepth, maxNodes int,
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
			for _, e := range records.EdgesOf(bk, from, model.LinkBlocks) {
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

// blockingCycle returns the items of the cycle that "src blocks dst"
// would close (src, dst, ..., src), or nil.
func blockingCycle(b *records.Wsb, src, dst []byte) [][]byte {
	parent := map[string][]byte{}
	found := false
	blockReach(b, dst, true, 0, 0, func(id, from, _ []byte, _ int) bool {
		parent[string(id)] = from
		found = bytes.Equal(id, src)
		return !found
	})
	if !found {
		return nil
	}
	// Walk back from src to dst, then read it forwards.
	path := [][]byte{src}
	for cur := src; !bytes.Equal(cur, dst); {
		cur = parent[string(cur)]
		path = append(path, cur)
	}
	out := [][]byte{src}
	for i := len(path) - 1; i >= 0; i-- {
		out = append(out, path[i])
	}
	return out
}

// AddLink links source to target with a type of model.LinkTypes
// ("A blocked-by B" is stored as "B blocks A"). Both items must be live.
// The same link again answers the stored one and writes nothing; a
// blocks link that would close a cycle is refused.
func (s *Store) AddLink(ws, sourceRef, targetRef, linkType string, actor model.Actor) (*LinkResult, error) {
	var res *LinkResult
	err := s.write(ws, actor, func(w *wtx) (err error) {
		res, err = w.addLink(sourceRef, targetRef, linkType, false)
		return err
	})
	return res, err
}

func (w *wtx) addLink(sourceRef, targetRef, linkType string, foreign bool) (*LinkResult, error) {
	b := w.ws
	typ, err := linkTypeOf(linkType, foreign)
	if err != nil {
		return nil, err
	}
	src, _, err := w.annotatedItem(sourceRef)
	if err != nil {
		return nil, err
	}
	dst, _, err := w.annotatedItem(targetRef)
	if err != nil {
		switch model.ErrorCodeOf(err) {
		case model.CodeNotFound:
			// Pad answers a bad target as a bad request: the item the
			// route names (the source) exists.
			return nil, model.BadRequest("Target item not found: %s", targetRef).With("field", "target").With("ref", targetRef)
		case model.CodeArchived:
			return nil, model.BadRequest("Target item %s is archived; restore it first", targetRef).
				With("field", "target").With("ref", targetRef).With("archived", true)
		}
		return nil, err
	}
	if src.ID == dst.ID {
		return nil, model.BadRequest("cannot link an item to itself").With("ref", sourceRef)
	}
	cs, ct, ctyp := canonicalLink(src.ID, dst.ID, typ)
	csKey, ctKey := records.MustID(cs), records.MustID(ct)
	if id := linkBetween(b, csKey, ctKey, ctyp); id != nil {
		l, err := records.GetLink(b, id)
		if err != nil {
			return nil, err
		}
		if l == nil {
			return nil, model.Errorf(model.CodeStoredStateUnreadable, "link index names missing link %s", records.IDString(id))
		}
		return &LinkResult{Link: l, Existing: true}, nil
	}
	colls := map[string]*model.Collection{}
	if ctyp == model.LinkBlocks {
		if cyc := blockingCycle(b, csKey, ctKey); cyc != nil {
			refs := make([]string, 0, len(cyc))
			for _, id := range cyc {
				br, err := briefByID(b, id, colls)
				if err != nil {
					return nil, err
				}
				refs = append(refs, br.Ref)
			}
			return nil, model.Invalid("%s blocks %s would make a blocking cycle: %s",
				refs[0], refs[1], strings.Join(refs, " blocks ")).
				With("field", "link_type").With("cycle", refs).With("reason", "cycle")
		}
	}
	source := src
	if cs != src.ID {
		source = dst // blocked-by swaps the ends
	}
	sc, err := records.CollOf(b, colls, source.CollectionID)
	if err != nil {
		return nil, err
	}
	oldUnpar := records.IsUnparented(b, source)
	l := &model.Link{ID: records.NewID(), WorkspaceID: b.ID, SourceID: cs, TargetID: ct, Type: ctyp,
		CreatedBy: w.actor, CreatedAt: records.Tstamp(w.now)}
	seq, err := w.stamp(model.EntityLink, model.OpCreated, l.ID, cs, sc.ID)
	if err != nil {
		return nil, err
	}
	l.Seq = seq
	if err := putLink(b, l, false); err != nil {
		return nil, err
	}
	if err := w.linkSideEffects(l, source, oldUnpar, "linked", colls); err != nil {
		return nil, err
	}
	return &LinkResult{Link: l}, nil
}

// linkSideEffects finishes a link mutation already stamped at w.seq:
// the source's unparented index entry (an implements link makes it
// parented) and the activity entry.
func (w *wtx) linkSideEffects(l *model.Link, source *model.Item, oldUnpar bool, action string, colls map[string]*model.Collection) error {
	b := w.ws
	if newUnpar := records.IsUnparented(b, source); newUnpar != oldUnpar {
		if err := w.reindex(source, source, oldUnpar, newUnpar); err != nil {
			return err
		}
	}
	// The views' blocking-edge states (project_records.go) follow link writes.
	if err := w.reindexLink(l, colls); err != nil {
		return err
	}
	meta := map[string]any{"seq": w.seq, "link_id": l.ID, "link_type": l.Type}
	for key, id := range map[string]string{"source_ref": l.SourceID, "target_ref": l.TargetID} {
		br, err := briefByID(b, records.MustID(id), colls)
		if err != nil {
			return err
		}
		meta[key] = br.Ref
	}
	return w.activity(w.seq, l.SourceID, action, meta)
}

// removeLink deletes a stored link as one stamped mutation.
func (w *wtx) removeLink(l *model.Link) error {
	b := w.ws
	source, err := records.GetItem(b, records.MustID(l.SourceID), false)
	if err != nil {
		return err
	}
	if source == nil {
		return model.Errorf(model.CodeStoredStateUnreadable, "link %s names missing source item %s", l.ID, l.SourceID)
	}
	oldUnpar := records.IsUnparented(b, source)
	if _, err := w.stamp(model.EntityLink, model.OpDeleted, l.ID, l.SourceID, source.CollectionID); err != nil {
		return err
	}
	if err := putLink(b, l, true); err != nil {
		return err
	}
	return w.linkSideEffects(l, source, oldUnpar, "unlinked", map[string]*model.Collection{})
}

// RemoveLink deletes a link by id. Archived ends do not block it: a
// dead link should be removable.
func (s *Store) RemoveLink(ws, linkID string, actor model.Actor) (*model.Link, error) {
	var out *model.Link
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.removeLinkByID(linkID)
		return err
	})
	return out, err
}

func (w *wtx) removeLinkByID(linkID string) (*model.Link, error) {
	var l *model.Link
	if k, ok := records.IDKey(strings.TrimSpace(linkID)); ok {
		var err error
		if l, err = records.GetLink(w.ws, k); err != nil {
			return nil, err
		}
	}
	if l == nil {
		return nil, model.NotFound("Link not found").With("link_id", linkID)
	}
	return l, w.removeLink(l)
}

// removeLinkBetween deletes the link "source type target", whichever way
// it is stored.
func (s *Store) removeLinkBetween(ws, sourceRef, targetRef, linkType string, actor model.Actor) (*model.Link, error) {
	var out *model.Link
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		typ, err := linkTypeOf(linkType, true)
		if err != nil {
			return err
		}
		src, err := records.ItemByRef(b, sourceRef, false)
		if err != nil {
			return err
		}
		dst, err := records.ItemByRef(b, targetRef, false)
		if err != nil {
			return err
		}
		cs, ct, ctyp := canonicalLink(src.ID, dst.ID, typ)
		if id := linkBetween(b, records.MustID(cs), records.MustID(ct), ctyp); id != nil {
			l, err := records.GetLink(b, id)
			if err != nil {
				return err
			}
			if l != nil {
				out = l
				return w.removeLink(l)
			}
		}
		return model.NotFound("Link not found: %s %s %s", sourceRef, typ, targetRef).
			With("source", sourceRef).With("target", targetRef).With("link_type", typ)
	})
	return out, err
}

// ListLinks lists an item's links both ways, oldest first, each typed
// as the item sees it. Archived items answer too (reads are allowed).
func (s *Store) ListLinks(ws, itemRef string) ([]LinkView, error) {
	var out []LinkView
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		out, err = linksOfItem(r.WS, it)
		return err
	})
	return out, err
}

func linksOfItem(b *records.Wsb, it *model.Item) ([]LinkView, error) {
	var out []LinkView
	colls := map[string]*model.Collection{}
	id := records.MustID(it.ID)
	for _, side := range []struct {
		bk  *records.Bucket
		dir string
	}{{b.LinkSrc(), DirOut}, {b.LinkDst(), DirIn}} {
		for _, e := range records.EdgesOf(side.bk, id, "") {
			l, err := records.GetLink(b, e.LinkID)
			if err != nil {
				return nil, err
			}
			if l == nil {
				continue
			}
			other, err := briefByID(b, e.Other, colls)
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

// Deps walks the blocking graph around an item: what it blocks and what
// blocks it, transitively, bounded by MaxDepDepth and MaxDepNodes per
// direction.
func (s *Store) Deps(ws, itemRef string) (*DepGraph, error) {
	var out *DepGraph
	err := s.base.Read(ws, func(r *records.Rtx) error {
		b := r.WS
		it, err := records.ItemByRef(b, itemRef, false)
		if err != nil {
			return err
		}
		colls := map[string]*model.Collection{}
		self, err := records.BriefOf(b, it, colls)
		if err != nil {
			return err
		}
		g := &DepGraph{Item: self}
		for _, dir := range []struct {
			forward bool
			into    *[]DepNode
		}{{true, &g.Blocks}, {false, &g.BlockedBy}} {
			refs := map[string]string{string(records.MustID(it.ID)): self.Ref}
			var werr error
			trunc := blockReach(b, records.MustID(it.ID), dir.forward, MaxDepDepth, MaxDepNodes, func(id, from, linkID []byte, depth int) bool {
				br, err := briefByID(b, id, colls)
				if err != nil {
					werr = err
					return false
				}
				refs[string(id)] = br.Ref
				n := DepNode{ItemBrief: br, Depth: depth, LinkID: records.IDString(linkID)}
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

// ItemBrief is records.ItemBrief, the type storage's callers name.
type ItemBrief = records.ItemBrief
