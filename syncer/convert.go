package syncer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/remote/merge"
	"github.com/padd/padd/storage"
)

// The three sides of an item as merge compares them. Collection and
// Parent are local ids on every side: a remote item's are mapped first.

func localSide(v *storage.ItemView) *merge.Item {
	if v == nil {
		return nil
	}
	return &merge.Item{Title: v.Title, Content: v.Content, Fields: v.Fields, Tags: v.Tags,
		Parent: v.ParentID, Collection: v.CollectionID, Pinned: v.Pinned, Archived: v.DeletedAt != nil}
}

func baseSide(b *storage.SyncBase) *merge.Item {
	if b == nil {
		return nil
	}
	return &merge.Item{Title: b.Title, Content: b.Content, Fields: b.Fields, Tags: b.Tags,
		Parent: b.ParentID, Collection: b.CollectionID, Pinned: b.Pinned, Archived: b.Archived}
}

// remoteItem is a remote item decoded, with its collection and parent
// mapped to local ids (the parent's remote id or ref is kept when the
// parent is not mapped yet).
type remoteItem struct {
	api          *api.Item
	side         merge.Item
	parentRemote string // the parent's remote id
	parentRef    string // or, where the remote names it by ref only, its ref
	// parentSure says the parent named is the item's parent, not maybe
	// an item it implements (remoteParentOf, pinParent).
	parentSure bool
	// waiting are the relation values, as the remote sent them, that name
	// an item padd has not got yet (relationsIn); dropped those that name
	// no item either side has.
	waiting map[string]any
	dropped []relDrop
	// checked says the parts were held to padd's limits (limitsIn); held
	// names those past them, which padd holds without the remote's value,
	// and over says why, one entry a value (held.go).
	checked bool
	held    []string
	over    []overPart
	// released are the held parts whose padd value the user chose and
	// that the remote still holds past the limits (keepReleased).
	released []string
}

// remoteParentOf names a remote item's parent as its answer names it,
// and says whether that is sure to be the parent. Pad keeps a child's
// parent as an item link of type parent, which its item answers name as
// parent_link_id (the parent's id) and parent_ref; its top-level
// parent_id is a legacy column that only a write of parent_id itself
// sets, and its UI shows the link. But Pad counts an implements link as
// a child relation too, and names it the same way: an item that
// implements another names that one as parent_link_id and parent_ref
// where it has no parent, and where it has both, a read names the older
// link and a list the newer. padd's own answers do the same (its
// parent_id is always the parent). So the named item is sure only where
// parent_id names it too, or where no link is named (parent_id, padd's
// or Pad's column, or none); else it may be an implemented item, and
// the item's links say (parentOfLinks). Pad's /changes rows and export
// items are not enriched: they carry the column only.
func remoteParentOf(it *api.Item) (id, ref string, sure bool) {
	column := ""
	if it.ParentID != nil {
		column = *it.ParentID
	}
	switch {
	case it.ParentLinkID != "":
		return it.ParentLinkID, "", it.ParentLinkID == column
	case it.ParentRef != "":
		return "", it.ParentRef, false
	}
	return column, "", true
}

// parentOfLinks is the parent of remote item itemID by its links on the
// remote (links may hold other items' too): the target of its parent
// link (Pad), else column (its parent_id: padd's parent, Pad's legacy
// column), else none. An implements link is never its parent.
func parentOfLinks(itemID string, links []api.ItemLink, column string) string {
	for i := range links {
		if l := &links[i]; l.SourceID == itemID && model.NormalizeLinkType(l.LinkType) == model.LinkParent {
			return l.TargetID
		}
	}
	return column
}

// column is the parent_id an answer carries ("": none).
func column(it *api.Item) string {
	if it.ParentID != nil {
		return *it.ParentID
	}
	return ""
}

// pinParent makes a pulled item's parent sure (remoteParentOf): the
// named item is kept where it is the base's parent and the item has no
// implements link to it here; else the item's links on the remote are
// read (a request, only for an item that implements another or whose
// parent changed there) and name it (parentOfLinks).
func (w *worker) pinParent(ctx context.Context, c *remote.Client, link *storage.RemoteLink, rem *remoteItem) error {
	if rem.parentSure {
		return nil
	}
	if local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, rem.api.ID); err != nil {
		return err
	} else if ok {
		b, err := w.m.sync.SyncBase(w.wsID, local)
		if err != nil {
			return err
		}
		named, known, err := w.localParent(rem)
		if err != nil {
			return err
		}
		if b != nil && known && named == b.ParentID {
			if impl, err := w.implementsHere(local, named); err != nil || !impl {
				rem.parentSure = err == nil
				return err
			}
		}
	}
	ls, err := c.ListLinks(ctx, link.RemoteWorkspaceID, rem.api.ID)
	if err != nil {
		return err
	}
	rem.setParent(parentOfLinks(rem.api.ID, ls, column(rem.api)))
	return nil
}

// setParent makes the remote item's parent the remote item id (""
// none), as sure.
func (r *remoteItem) setParent(id string) {
	r.parentRemote, r.parentRef, r.parentSure = id, "", true
}

// implementsHere says local item id has an implements link to local
// item target here.
func (w *worker) implementsHere(id, target string) (bool, error) {
	if target == "" {
		return false, nil
	}
	ls, err := w.m.views.ListLinks(w.wsID, id)
	if err != nil {
		return false, err
	}
	for _, l := range ls {
		if l.Link.SourceID == id && l.Link.TargetID == target && l.Link.Type == model.LinkImplements {
			return true, nil
		}
	}
	return false, nil
}

// hasParent says the remote item names a parent.
func (r *remoteItem) hasParent() bool { return r.parentRemote != "" || r.parentRef != "" }

// parentKey is how the remote's item routes name the parent: its id,
// else its ref (Pad and padd take either).
func (r *remoteItem) parentKey() string {
	if r.parentRemote != "" {
		return r.parentRemote
	}
	return r.parentRef
}

// localParent is the local item the remote item's parent maps to: by
// the id map, or for a ref by the map of remote refs.
func (w *worker) localParent(r *remoteItem) (string, bool, error) {
	switch {
	case r.parentRemote != "":
		return w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, r.parentRemote)
	case r.parentRef != "":
		return w.m.sync.SyncItemByRemoteRef(w.wsID, r.parentRef)
	}
	return "", false, nil
}

// decodeRemote reads a remote item's fields and tags (JSON text on
// Pad's wire), with the attachment ids named in its content and fields
// mapped by ids (nil: none); the collection and parent are mapped by the
// caller, which may have to pull them first.
func decodeRemote(it *api.Item, ids func(string) (string, bool)) (*remoteItem, error) {
	fields, err := api.DecodeObject(it.Fields)
	if err != nil {
		return nil, fmt.Errorf("item %s: %w", it.ID, err)
	}
	content := it.Content
	if ids != nil {
		content = storage.RewriteAttachmentRefs(content, ids)
		fields = storage.RewriteAttachmentRefsFields(fields, ids)
	}
	var tags []string
	if it.Tags != "" && it.Tags != "null" {
		if err := json.Unmarshal([]byte(it.Tags), &tags); err != nil {
			return nil, fmt.Errorf("item %s: tags are not a JSON list of strings: %w", it.ID, err)
		}
	}
	r := &remoteItem{api: it, side: merge.Item{Title: it.Title, Content: content, Fields: fields,
		Tags: tags, Pinned: it.Pinned, Archived: it.DeletedAt != nil}}
	r.parentRemote, r.parentRef, r.parentSure = remoteParentOf(it)
	return r, nil
}

// decode decodes a remote item read outside a transaction, noting
// the attachments it names that padd lacks, with its parts past padd's
// limits held (limitsIn).
func (w *worker) decode(it *api.Item) (*remoteItem, error) {
	rem, err := decodeRemote(it, w.inIDs(it.ID))
	if err == nil {
		rem.limitsIn()
	}
	return rem, err
}

// mapped decodes a remote item with its collection and parent mapped to
// local ids where the map has them.
func (w *worker) mapped(it *api.Item) (*remoteItem, error) { return w.answered(it, nil) }

// answered decodes the remote's answer it to a write padd sent (sent,
// in local ids; nil: none) with its collection and parent mapped to
// local ids. The remote may have moved the item just before a write
// that carries no guard (a move, an archive): the merge against what
// was sent keeps that move. An id the map lacks is taken as sent.
func (w *worker) answered(it *api.Item, sent *merge.Item) (*remoteItem, error) {
	rem, err := w.decode(it)
	if err != nil {
		return nil, err
	}
	if id, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncCollection, it.CollectionID); err != nil {
		return nil, err
	} else if ok {
		rem.side.Collection = id
	} else if sent != nil {
		rem.side.Collection = sent.Collection
	}
	if rem.hasParent() {
		id, ok, err := w.localParent(rem)
		if err == nil && ok && !rem.parentSure {
			id, err = w.answeredParent(it.ID, id, sent)
		}
		switch {
		case err != nil:
			return nil, err
		case ok:
			rem.side.Parent = id
		case sent != nil:
			rem.side.Parent = sent.Parent
		}
	}
	return rem, w.mapRelations(rem, nil)
}

// answeredParent is the parent of an answer that names local item named
// but not surely as its parent (remoteParentOf), where no read is made:
// named, unless the item implements named here and padd sent (sent), or
// last agreed on (the base), another parent: that one then. A parent
// changed there meanwhile to an item this one implements is read with
// the item's next change.
func (w *worker) answeredParent(remoteID, named string, sent *merge.Item) (string, error) {
	local, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, remoteID)
	if err != nil || !ok {
		return named, err
	}
	known := ""
	if sent != nil {
		known = sent.Parent
	} else if b, err := w.m.sync.SyncBase(w.wsID, local); err != nil {
		return "", err
	} else if b != nil {
		known = b.ParentID
	}
	if named == known {
		return named, nil
	}
	if impl, err := w.implementsHere(local, named); err != nil || impl {
		return known, err
	}
	return named, nil
}

// baseOf is the base recorded when both sides hold rem's side: the
// merged item with the remote's tokens, the remote's relation values
// that wait for their items, and the parts held past padd's limits.
func baseOf(itemID string, rem *remoteItem) storage.SyncBase {
	m, it := &rem.side, rem.api
	return storage.SyncBase{ItemID: itemID, Title: m.Title, Content: m.Content, Fields: m.Fields,
		Tags: m.Tags, ParentID: m.Parent, CollectionID: m.Collection, Archived: m.Archived, Pinned: m.Pinned,
		RemoteSeq: it.Seq, RemoteUpdatedAt: it.UpdatedAt.UTC().Format(time.RFC3339Nano), Waiting: rem.waiting,
		Held: rem.held, Released: rem.released}
}

// remoteBaseTime is the remote's updated_at of base b: the guard of an
// update made on it where the server has no expected_seq.
func remoteBaseTime(b *storage.SyncBase) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, b.RemoteUpdatedAt)
	return t
}

// localUpdate is the local write that makes item v hold m (nil: none).
func localUpdate(v *storage.ItemView, m *merge.Item) *storage.ItemUpdate {
	var u storage.ItemUpdate
	changed := false
	if m.Title != v.Title {
		u.Title, changed = &m.Title, true
	}
	if m.Content != v.Content {
		u.Content, changed = &m.Content, true
	}
	if p := fieldsPatch(v.Fields, m.Fields); len(p) > 0 {
		u.FieldsPatch, changed = p, true
	}
	if !sameSet(v.Tags, m.Tags) {
		tags := slices.Clone(m.Tags)
		if tags == nil {
			tags = []string{}
		}
		u.Tags, changed = &tags, true
	}
	if m.Parent != v.ParentID {
		if m.Parent == "" {
			u.ClearParent = true
		} else {
			p := m.Parent
			u.Parent = &p
		}
		changed = true
	}
	if m.Pinned != v.Pinned {
		u.Pinned, changed = &m.Pinned, true
	}
	if !changed {
		return nil
	}
	u.Force = true // the remote's open-children rule already held there
	return &u
}

// fieldsPatch is the per-key patch that turns from into to: changed and
// added keys with their value, removed keys with nil.
func fieldsPatch(from, to map[string]any) map[string]any {
	p := map[string]any{}
	for k, v := range to {
		if old, ok := from[k]; !ok || !jsonEqual(old, v) {
			p[k] = v
		}
	}
	for k := range from {
		if _, ok := to[k]; !ok {
			p[k] = nil
		}
	}
	return p
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	if string(x) == string(y) {
		return true
	}
	// 3 and 3.0: compare as decoded numbers.
	var u, w any
	if json.Unmarshal(x, &u) != nil || json.Unmarshal(y, &w) != nil {
		return false
	}
	return fmt.Sprint(u) == fmt.Sprint(w)
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// actorOf is who made a remote change, as the local change log says it.
func actorOf(createdBy, name, source string) model.Actor {
	kind := model.ActorUser
	if createdBy == model.ActorAgent {
		kind = model.ActorAgent
	}
	return model.Actor{Kind: kind, Name: name, Source: model.SourceSync}
}

// rawJSON is a value as a conflict record keeps it (null for a side
// that has none).
func rawJSON(v any) json.RawMessage {
	if v == merge.Missing {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
