package storage

import (
	"bytes"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// ItemCreate is a new item. Fields is already merged from the door's
// sources (fields object, key=value entries, dedicated params).
type ItemCreate struct {
	Collection       string
	Title            string
	Content          string
	Fields           map[string]any
	Tags             []string
	Parent           string // id, ref or slug of the parent item
	AssignUser       string
	Role             string // role slug or id
	Pinned           bool
	SortOrder        *int64
	RefuseUndeclared bool
	// Convention is the reserved convention metadata a create names
	// (model.ConventionMetadata.Copy): the system writes it beside the
	// fields, which may not carry it.
	Convention map[string]any
	// Reserved and Attachments are what an item copied from another
	// workspace brings along (daemon's item copy): the reserved metadata
	// the source carries (checked as an import checks it), and rows for
	// attachments its text names, each under the id the text was
	// rewritten to, attached to the new item. Both are written in the
	// create's own transaction, with its idempotency record.
	Reserved    map[string]any
	Attachments []CarriedAttachment
	// IdemPayload is kept with the idempotency record and handed back on
	// a replay (ItemResult.IdemPayload): what the door answered beside
	// the item.
	IdemPayload []byte
	Idem        Idem
	// number is the remote's number for an item the sync engine pulls
	// (SyncTx.CreateItem); 0 numbers the item here (provisional.go).
	number int64
	// imported is set for an item that comes from elsewhere, an import
	// or a sync pull: it is written as it is there (import.go).
	imported *itemImport
}

// CarriedAttachment is an attachment row a copied item brings: a blob
// already stored (blobs are shared by every workspace), under a new id.
type CarriedAttachment struct {
	ID string
	NewAttachment
}

// ItemResult is a write's answer.
type ItemResult struct {
	Item     *ItemView
	Warnings model.Warnings
	// Replayed is true when an idempotency key matched an earlier write:
	// Item is that write's item as it stands now.
	Replayed bool
	// Appended echoes note/decision entries an update appended.
	Appended []map[string]any
	// Changed is false for an update that changed nothing.
	Changed bool
	// IdemPayload is a replayed create's ItemCreate.IdemPayload.
	IdemPayload []byte
}

func putItem(b *records.Wsb, it *model.Item) error {
	// The key holds the id and the bucket the workspace; the body has
	// its own bucket so lists and summaries never read it.
	content := it.Content
	v, err := records.EncodeItem(it)
	if err != nil {
		return err
	}
	id := records.MustID(it.ID)
	if err := b.Items().Put(id, v); err != nil {
		return err
	}
	return b.Content().Put(id, []byte(content))
}

// liveItemByRef is itemByRef that refuses archived items and items of
// archived collections.
func liveItemByRef(b *records.Wsb, ref string, withContent bool) (*model.Item, *model.Collection, error) {
	it, c, err := itemAndCollection(b, ref, withContent)
	if err != nil {
		return nil, nil, err
	}
	if it.DeletedAt != nil || c.ArchivedAt != nil {
		return nil, nil, model.Errorf(model.CodeArchived, "Item %s is archived; restore it first (item restore) to change it", records.RefOf(c, it.Number)).With("ref", records.RefOf(c, it.Number))
	}
	return it, c, nil
}

// itemAndCollection reads an item, archived or not, and its collection.
func itemAndCollection(b *records.Wsb, ref string, withContent bool) (*model.Item, *model.Collection, error) {
	it, err := records.ItemByRef(b, ref, withContent)
	if err != nil {
		return nil, nil, err
	}
	c, err := records.GetCollection(b, records.MustID(it.CollectionID))
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		return nil, nil, records.ErrInternal("item %s names a missing collection", it.ID)
	}
	return it, c, nil
}

// annotatedItem reads the item a comment or link is written on: a live
// one, or in a write that copies the remote (SyncApply) an archived one
// too, since the remote has the comment or link.
func (w *wtx) annotatedItem(ref string) (*model.Item, *model.Collection, error) {
	if w.replica {
		return itemAndCollection(w.ws, ref, false)
	}
	return liveItemByRef(w.ws, ref, false)
}

// ItemWith is records.ItemWith, the type storage's callers name.
type ItemWith = records.ItemWith

// txResolver answers relation lookups inside a write transaction. A
// write that copies the remote (replica) takes any item of the workspace
// by id, archived or in another collection: the sync engine maps the
// remote's values to local ids, and the remote's state is written as it
// is (Pad checks no relation value; padd checked it when it was set).
type txResolver struct {
	b       *records.Wsb
	replica bool
}

func (r txResolver) ResolveRelation(collSlug, value string) (string, string) {
	b := r.b
	if k, isID := records.IDKey(value); isID && r.replica {
		if it, _ := records.GetItem(b, k, false); it != nil {
			return records.IDString(k), ""
		}
	}
	id := b.CollSlugs().Get([]byte(collSlug))
	if id == nil {
		return "", model.ReasonNotFound
	}
	c, _ := records.GetCollection(b, id)
	if c == nil || c.ArchivedAt != nil {
		return "", model.ReasonNotFound
	}
	ok := func(itemID []byte) bool {
		it, _ := records.GetItem(b, itemID, false)
		return it != nil && it.DeletedAt == nil && it.CollectionID == c.ID
	}
	if k, isID := records.IDKey(value); isID {
		if ok(k) {
			return records.IDString(k), ""
		}
		return "", model.ReasonNotFound
	}
	if prefix, n, isRef := records.ParseItemRef(value); isRef {
		if owner := b.Prefixes().Get([]byte(prefix)); owner != nil {
			// The prefix names a collection: no fallback by number.
			oc, _ := records.GetCollection(b, owner)
			if oc != nil && oc.ArchivedAt == nil {
				if k := records.FindItem(b, records.RefText(prefix, n)); k != nil && ok(k) {
					return records.IDString(k), ""
				}
				return "", model.ReasonNotFound
			}
		}
		if k := b.Nums().Get(records.U64(uint64(n))); k != nil && ok(k) {
			return records.IDString(k), ""
		}
		return "", model.ReasonNotFound
	}
	p := records.Cat(records.MustID(c.ID), records.Lstr(value))
	cur := b.Titles().Cursor()
	var found []byte
	n := 0
	for k, _ := cur.Seek(p); k != nil && bytes.HasPrefix(k, p) && len(k) == len(p)+16; k, _ = cur.Next() {
		if ok(k[len(p):]) {
			found = k[len(p):]
			n++
		}
	}
	switch n {
	case 0:
		return "", model.ReasonNotFound
	case 1:
		return records.IDString(found), ""
	}
	return "", model.ReasonAmbiguous
}

// putDerived writes an item's title and unique-value entries; del
// removes them.
func putDerived(b *records.Wsb, it *model.Item, c *model.Collection, del bool) error {
	tk := records.Cat(records.MustID(it.CollectionID), records.Lstr(it.Title), records.MustID(it.ID))
	if del {
		if err := b.Titles().Delete(tk); err != nil {
			return err
		}
	} else if err := b.Titles().Put(tk, nil); err != nil {
		return err
	}
	for _, f := range c.Schema.Fields {
		if f.UniqueScope == "" {
			continue
		}
		for _, v := range records.IndexValues(it.Fields[f.Key]) {
			uk := records.Cat(records.MustID(c.ID), records.Lstr(f.Key), records.Lstr(v))
			if del {
				if got := b.Unique().Get(uk); bytes.Equal(got, records.MustID(it.ID)) {
					if err := b.Unique().Delete(uk); err != nil {
						return err
					}
				}
			} else if err := b.Unique().Put(uk, records.MustID(it.ID)); err != nil {
				return err
			}
		}
	}
	return nil
}

// uniqueHolder returns the item (other than self) holding value in a
// unique field of collection c.
func uniqueHolder(b *records.Wsb, c *model.Collection, key string, v any, self string) []byte {
	for _, s := range records.IndexValues(v) {
		if got := b.Unique().Get(records.Cat(records.MustID(c.ID), records.Lstr(key), records.Lstr(s))); got != nil && (self == "" || !bytes.Equal(got, records.MustID(self))) {
			if it, _ := records.GetItem(b, got, false); it != nil && it.DeletedAt == nil {
				return got
			}
		}
	}
	return nil
}

// checkUnique refuses supplied values that collide on a unique field
// (409 conflict).
func checkUnique(b *records.Wsb, c *model.Collection, fields map[string]any, supplied map[string]bool, self string) error {
	for _, f := range c.Schema.Fields {
		if f.UniqueScope == "" || !supplied[f.Key] {
			continue
		}
		if h := uniqueHolder(b, c, f.Key, fields[f.Key], self); h != nil {
			holder, _ := records.GetItem(b, h, false)
			e := model.Conflict("field %q value %v is already used by %s in %s; unique values may appear once per collection",
				f.Key, fields[f.Key], records.RefOf(c, holder.Number), c.Slug).With("field", f.Key)
			return e.With("holder", records.RefOf(c, holder.Number))
		}
	}
	return nil
}

// resolveParent finds a live parent item for child (empty child on create),
// refusing itself and cycles. A write that copies the remote (replica)
// takes an archived parent too: the remote has the child under it.
func resolveParent(b *records.Wsb, ref, child string, replica bool) (*model.Item, error) {
	lookup := liveItemByRef
	if replica {
		lookup = itemAndCollection
	}
	p, _, err := lookup(b, ref, false)
	if err != nil {
		if c := model.ErrorCodeOf(err); c == model.CodeNotFound || c == model.CodeArchived {
			return nil, model.Invalid("parent %q names no live item in this workspace", ref).With("field", "parent")
		}
		return nil, err
	}
	if child != "" {
		cur := p
		for depth := 0; cur != nil && depth < 10000; depth++ {
			if cur.ID == child {
				return nil, model.Invalid("parent %q would make a cycle: it is this item or one of its descendants", ref).With("field", "parent").With("reason", "cycle")
			}
			if cur.ParentID == "" {
				break
			}
			cur, _ = records.GetItem(b, records.MustID(cur.ParentID), false)
		}
	}
	return p, nil
}

// splitParentField lifts parent/plan out of fields when the schema does
// not declare them: they name the parent item.
func splitParentField(schema model.Schema, fields map[string]any) (parent string, has bool, err error) {
	for _, k := range []string{"parent", "plan"} {
		if schema.Declares(k) {
			continue
		}
		v, ok := fields[k]
		if !ok {
			continue
		}
		delete(fields, k)
		s, isStr := v.(string)
		if v != nil && !isStr {
			return "", false, model.Invalid("field %q must name the parent item by ref, slug or id", k).With("field", k)
		}
		if has && s != parent {
			return "", false, model.Invalid("parent and plan name the same link with different values: send one").With("field", "parent")
		}
		parent, has = strings.TrimSpace(s), true
	}
	return parent, has, nil
}

// CreateItem creates an item in one transaction with its indexes, first
// version, activity, change-log entry and idempotency record.
func (s *Store) CreateItem(ws string, in ItemCreate, actor model.Actor) (*ItemResult, error) {
	var res *ItemResult
	err := s.write(ws, actor, func(w *wtx) error {
		if replay, err := w.idemReplay(in.Idem); err != nil || replay != nil {
			if replay != nil {
				res, err = w.replayItem(replay)
			}
			return err
		}
		r, err := w.createItem(in)
		if err != nil {
			return err
		}
		res = r
		return w.idemSave(in.Idem, idemRecord{ItemID: r.Item.ID, Payload: in.IdemPayload})
	})
	return res, err
}

func (w *wtx) createItem(in ItemCreate) (*ItemResult, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	b := w.ws
	c, err := records.LiveCollection(b, in.Collection)
	if err != nil {
		return nil, err
	}
	title := strings.TrimSpace(in.Title)
	if title == "" {
		return nil, model.BadRequest("Title is required")
	}
	fields := map[string]any{}
	for k, v := range in.Fields {
		fields[k] = v
	}
	parentRef, hasParentField, err := splitParentField(c.Schema, fields)
	if err != nil {
		return nil, err
	}
	if hasParentField {
		if in.Parent != "" && in.Parent != parentRef {
			return nil, model.Invalid("parent is given twice with different values: send it once").With("field", "parent")
		}
		in.Parent = parentRef
	}
	out, warn, err := model.FieldWrite{Schema: c.Schema, Patch: fields, Create: in.imported == nil,
		RefuseUndeclared: in.RefuseUndeclared, Resolver: txResolver{b, w.replica}}.Apply()
	if err != nil {
		return nil, err
	}
	if len(in.Convention) > 0 {
		out[model.FieldConvention] = in.Convention
	}
	for _, k := range model.ReservedFields() {
		if v, ok := in.Reserved[k]; ok && v != nil {
			if err := model.CheckReserved(k, v); err != nil {
				return nil, err
			}
			out[k] = v
		}
	}
	supplied := map[string]bool{}
	for k := range out {
		supplied[k] = true
	}
	if err := checkUnique(b, c, out, supplied, ""); err != nil {
		return nil, err
	}
	it := &model.Item{ID: records.NewID(), WorkspaceID: b.ID, CollectionID: c.ID, Title: title,
		Content: in.Content, Fields: out, Tags: cleanTags(in.Tags), Pinned: in.Pinned,
		AssignedUserID: in.AssignUser, CreatedBy: w.actor, LastModifiedBy: w.actor,
		CreatedAt: records.Tstamp(w.now), UpdatedAt: records.Tstamp(w.now)}
	in.imported.stamp(it)
	if in.SortOrder != nil {
		it.SortOrder = *in.SortOrder
	}
	if in.Parent != "" {
		p, err := resolveParent(b, in.Parent, "", w.replica)
		if err != nil {
			return nil, err
		}
		it.ParentID = p.ID
	}
	if in.Role != "" {
		if it.AgentRoleID, err = records.ResolveRole(b, in.Role); err != nil {
			return nil, err
		}
	}
	if in.number != 0 {
		if err := w.takeNumber(in.number, it.ID); err != nil {
			return nil, err
		}
		it.Number = in.number
	} else if it.Number, err = nextNumber(b); err != nil {
		return nil, err
	}
	it.Slug = in.imported.slug(b, model.UniqueSlug(model.ItemSlug(title), func(s string) bool { return b.Slugs().Get([]byte(s)) != nil }))
	seq, err := w.stamp(model.EntityItem, model.OpCreated, it.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	it.Seq = seq
	id := records.MustID(it.ID)
	ref := records.RefOf(c, it.Number)
	for _, put := range []error{
		putItem(b, it),
		b.Nums().Put(records.U64(uint64(it.Number)), id),
		b.Refs().Put([]byte(ref), id),
		b.Slugs().Put([]byte(it.Slug), id),
		putDerived(b, it, c, false),
		w.reindex(nil, it, false, records.IsUnparented(b, it)),
		w.firstVersions(in.imported, it),
		w.activity(seq, it.ID, "created", map[string]any{"seq": seq}),
	} {
		if put != nil {
			return nil, put
		}
	}
	for _, a := range in.Attachments {
		a.ItemRef = it.ID
		if _, err := w.createAttachment(a.ID, a.NewAttachment); err != nil {
			return nil, err
		}
	}
	v, err := records.View(b, it, map[string]*model.Collection{c.ID: c})
	if err != nil {
		return nil, err
	}
	return &ItemResult{Item: v, Warnings: warn, Changed: true}, nil
}

func cleanTags(tags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// DeleteItem archives an item (Pad's soft delete).
func (s *Store) DeleteItem(ws, ref string, actor model.Actor) (*ItemView, error) {
	return s.setArchived(ws, ref, actor, true)
}

// RestoreItem brings an archived item back.
func (s *Store) RestoreItem(ws, ref string, actor model.Actor) (*ItemView, error) {
	return s.setArchived(ws, ref, actor, false)
}

func (s *Store) setArchived(ws, ref string, actor model.Actor, archive bool) (*ItemView, error) {
	var out *ItemView
	err := s.write(ws, actor, func(w *wtx) error {
		r, err := w.setArchived(ref, archive)
		if r != nil {
			out = r.Item
		}
		return err
	})
	return out, err
}

func (w *wtx) setArchived(ref string, archive bool) (*ItemResult, error) {
	b := w.ws
	it, err := records.ItemByRef(b, ref, true)
	if err != nil {
		return nil, err
	}
	c, err := records.GetCollection(b, records.MustID(it.CollectionID))
	if err != nil {
		return nil, err
	}
	if (it.DeletedAt != nil) == archive {
		v, err := records.View(b, it, nil) // already so: nothing to do
		return &ItemResult{Item: v}, err
	}
	if !archive && c.ArchivedAt != nil {
		return nil, model.Conflict("item %s is in archived collection %q: restore the collection first", records.RefOf(c, it.Number), c.Slug)
	}
	old := *it
	op, action := model.OpDeleted, "deleted"
	if archive {
		t := records.Tstamp(w.now)
		it.DeletedAt = &t
	} else {
		it.DeletedAt = nil
		op, action = model.OpRestored, "restored"
	}
	it.UpdatedAt = records.Tstamp(w.now)
	it.LastModifiedBy = w.actor
	seq, err := w.stamp(model.EntityItem, op, it.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	it.Seq = seq
	unpar := records.IsUnparented(b, it)
	for _, e := range []error{
		putItem(b, it),
		w.reindex(&old, it, unpar, unpar),
		putDerived(b, &old, c, true),
	} {
		if e != nil {
			return nil, e
		}
	}
	if !archive {
		if err := putDerived(b, it, c, false); err != nil {
			return nil, err
		}
	}
	if err := w.activity(seq, it.ID, action, map[string]any{"seq": seq, "prev_seq": old.Seq}); err != nil {
		return nil, err
	}
	v, err := records.View(b, it, nil)
	return &ItemResult{Item: v, Changed: true}, err
}

// BulkChunk is CreateItems' default chunk. Each commit rewrites every
// page its chunk touched in the large index trees and syncs, so bigger
// chunks load faster (chunk sizes compared in docs/PERFORMANCE.md,
// "Why the code is as it is").
const BulkChunk = 5000

// CreateItems creates many items, chunk by chunk: each chunk is one
// transaction (a bulk load or an import). Every item gets what a single
// create writes; a refused item refuses its whole chunk, and the chunks
// committed before it stay.
func (s *Store) CreateItems(ws string, in []ItemCreate, actor model.Actor, chunk int) ([]*ItemView, error) {
	if chunk <= 0 {
		chunk = BulkChunk
	}
	out := make([]*ItemView, 0, len(in))
	for start := 0; start < len(in); start += chunk {
		part := in[start:min(start+chunk, len(in))]
		var made []*ItemView
		err := s.writeBulk(ws, actor, func(w *wtx) error {
			for i, c := range part {
				r, err := w.createItem(c)
				if err != nil {
					if e, ok := model.AsError(err); ok {
						return e.With("index", start+i)
					}
					return err
				}
				made = append(made, r.Item)
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		out = append(out, made...)
	}
	return out, nil
}

// ItemView is records.ItemView, the type storage's callers name.
type ItemView = records.ItemView
