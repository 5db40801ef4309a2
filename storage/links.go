package storage

import (
	"bytes"
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
	DirOut = records.DirOut
	DirIn  = records.DirIn
)

// Bounds on the deps walk (records.MaxDepDepth's).
const (
	MaxDepDepth = records.MaxDepDepth
	MaxDepNodes = records.MaxDepNodes
)

// LinkResult answers AddLink.
type LinkResult struct {
	Link *model.Link
	// Existing is true when the same link was already stored: nothing
	// was written and Link is the stored one.
	Existing bool
}

// LinkView is records.LinkView, the type storage's callers name.
type LinkView = records.LinkView

// DepNode is records.DepNode, the type storage's callers name.
type DepNode = records.DepNode

// DepGraph is records.DepGraph, the type storage's callers name.
type DepGraph = records.DepGraph

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

// blockingCycle returns the items of the cycle that "src blocks dst"
// would close (src, dst, ..., src), or nil.
func blockingCycle(b *records.Wsb, src, dst []byte) [][]byte {
	parent := map[string][]byte{}
	found := false
	records.BlockReach(b, dst, true, 0, 0, func(id, from, _ []byte, _ int) bool {
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
				br, err := records.BriefByID(b, id, colls)
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
		br, err := records.BriefByID(b, records.MustID(id), colls)
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

// ItemBrief is records.ItemBrief, the type storage's callers name.
type ItemBrief = records.ItemBrief
