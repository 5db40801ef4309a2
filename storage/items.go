package storage

import (
	"bytes"
	"strings"

	"github.com/padd/padd/model"
)

// ItemView is an item as readers see it: with its ref, its collection
// and the facts derived from other records.
type ItemView struct {
	model.Item
	Ref             string
	Collection      *model.Collection
	ParentRef       string
	ParentTitle     string
	RelationTargets map[string]any
	HasChildren     bool
	// RoleSlug and RoleName name the item's agent role, when it has one.
	RoleSlug, RoleName string
	// Lease is the item's live lease, if any (leases.go).
	Lease *model.Lease
}

// State is the item's lifecycle state under its collection's schema.
func (v *ItemView) State() model.State { return v.Collection.State(v.Fields) }

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
	Idem       Idem
	// number is the remote's number for an item the sync engine pulls
	// (SyncTx.CreateItem); 0 numbers the item here (provisional.go).
	number int64
	// imported is set for an item that comes from elsewhere, an import
	// or a sync pull: it is written as it is there (import.go).
	imported *itemImport
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
}

func refOf(c *model.Collection, n int64) string { return refText(c.Prefix, n) }

func getItem(b *wsb, id []byte, withContent bool) (*model.Item, error) {
	v := b.items().Get(id)
	if v == nil {
		return nil, nil
	}
	var it model.Item
	if err := decodeItem(v, &it); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored item %s is unreadable: %v", idString(id), err)
	}
	it.ID, it.WorkspaceID = idString(id), b.id
	if withContent {
		it.Content = string(b.content().Get(id))
	}
	return &it, nil
}

func putItem(b *wsb, it *model.Item) error {
	// The key holds the id and the bucket the workspace; the body has
	// its own bucket so lists and summaries never read it.
	content := it.Content
	v, err := encodeItem(it)
	if err != nil {
		return err
	}
	id := mustID(it.ID)
	if err := b.items().Put(id, v); err != nil {
		return err
	}
	return b.content().Put(id, []byte(content))
}

// findItem resolves a UUID, a ref (old refs included) or a slug to an
// item id.
func findItem(b *wsb, ref string) []byte {
	ref = strings.TrimSpace(ref)
	if id, ok := idKey(ref); ok {
		if b.items().Get(id) != nil {
			return id
		}
		return nil
	}
	if prefix, n, ok := parseItemRef(ref); ok {
		if id := b.refs().Get([]byte(refText(prefix, n))); id != nil {
			return id
		}
		id := b.nums().Get(u64(uint64(n)))
		if id == nil {
			return nil
		}
		// A ref under a prefix the item's collection once had still resolves.
		if owner := b.prefixes().Get([]byte(prefix)); owner != nil {
			if it, _ := getItem(b, id, false); it != nil && bytes.Equal(owner, mustID(it.CollectionID)) {
				return id
			}
		}
	}
	if id := b.slugs().Get([]byte(ref)); id != nil {
		return id
	}
	return nil
}

// itemByRef loads an item (archived included) or refuses with not_found.
func itemByRef(b *wsb, ref string, withContent bool) (*model.Item, error) {
	id := findItem(b, ref)
	if id == nil {
		return nil, model.NotFound("Item not found: %s", ref).With("ref", ref)
	}
	it, err := getItem(b, id, withContent)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, model.NotFound("Item not found: %s", ref).With("ref", ref)
	}
	return it, nil
}

// liveItemByRef is itemByRef that refuses archived items and items of
// archived collections.
func liveItemByRef(b *wsb, ref string, withContent bool) (*model.Item, *model.Collection, error) {
	it, c, err := itemAndCollection(b, ref, withContent)
	if err != nil {
		return nil, nil, err
	}
	if it.DeletedAt != nil || c.ArchivedAt != nil {
		return nil, nil, model.Errorf(model.CodeArchived, "Item %s is archived; restore it first (item restore) to change it", refOf(c, it.Number)).With("ref", refOf(c, it.Number))
	}
	return it, c, nil
}

// itemAndCollection reads an item, archived or not, and its collection.
func itemAndCollection(b *wsb, ref string, withContent bool) (*model.Item, *model.Collection, error) {
	it, err := itemByRef(b, ref, withContent)
	if err != nil {
		return nil, nil, err
	}
	c, err := getCollection(b, mustID(it.CollectionID))
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		return nil, nil, errInternal("item %s names a missing collection", it.ID)
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

// view decorates an item for readers.
func view(b *wsb, it *model.Item, colls map[string]*model.Collection) (*ItemView, error) {
	c := colls[it.CollectionID]
	if c == nil {
		var err error
		c, err = getCollection(b, mustID(it.CollectionID))
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, errInternal("item %s names a missing collection", it.ID)
		}
		if colls != nil {
			colls[c.ID] = c
		}
	}
	v := &ItemView{Item: *it, Ref: refOf(c, it.Number), Collection: c}
	if it.ParentID != "" {
		if p, _ := getItem(b, mustID(it.ParentID), false); p != nil {
			if pc, _ := getCollection(b, mustID(p.CollectionID)); pc != nil {
				v.ParentRef = refOf(pc, p.Number)
			}
			v.ParentTitle = p.Title
		}
	}
	v.HasChildren = countOf(b, cat([]byte{kindParent}, mustID(it.ID), []byte{lifeLive})) > 0
	if k, ok := idKey(it.AgentRoleID); ok {
		if r, _ := getRole(b, k); r != nil {
			v.RoleSlug, v.RoleName = r.Slug, r.Name
		}
	}
	v.RelationTargets = relationTargets(b, c, it.Fields)
	v.Lease = liveLease(b, mustID(it.ID))
	return v, nil
}

// relationTargets resolves stored relation values for display: {id, ref,
// title}, or {id} alone when the target is gone.
func relationTargets(b *wsb, c *model.Collection, fields map[string]any) map[string]any {
	var out map[string]any
	target := func(id string) map[string]any {
		t := map[string]any{"id": id}
		k, ok := idKey(id)
		if !ok {
			t["stored_as_text"] = true
			return t
		}
		if it, _ := getItem(b, k, false); it != nil && it.DeletedAt == nil {
			if tc, _ := getCollection(b, mustID(it.CollectionID)); tc != nil && tc.ArchivedAt == nil {
				t["ref"] = refOf(tc, it.Number)
				t["title"] = it.Title
			}
		}
		return t
	}
	for _, f := range c.Schema.Fields {
		v, ok := fields[f.Key]
		if !ok {
			continue
		}
		switch f.Type {
		case model.TypeRelation:
			if s, ok := v.(string); ok && s != "" {
				if out == nil {
					out = map[string]any{}
				}
				out[f.Key] = target(s)
			}
		case model.TypeMultiRelation:
			if list, ok := v.([]any); ok && len(list) > 0 {
				arr := make([]any, 0, len(list))
				for _, e := range list {
					s, _ := e.(string)
					arr = append(arr, target(s))
				}
				if out == nil {
					out = map[string]any{}
				}
				out[f.Key] = arr
			}
		}
	}
	return out
}

// GetItem reads one item by UUID, ref (old refs too) or slug. Archived
// items are served read-only, with DeletedAt set.
func (s *Store) GetItem(ws, ref string) (*ItemView, error) {
	var out *ItemView
	err := s.read(ws, func(r *rtx) error {
		it, err := itemByRef(r.ws, ref, true)
		if err != nil {
			return err
		}
		out, err = view(r.ws, it, nil)
		return err
	})
	return out, err
}

// ItemWith is an item with the parts of it a caller asked for, read at
// one instant.
type ItemWith struct {
	Item     *ItemView
	Comments []model.Comment // as ListComments; nil unless asked for
	Links    []LinkView      // as ListLinks; nil unless asked for
}

// GetItemWith reads an item and, as asked, its comments and links in one
// read: an agent's get, which under load would otherwise wait its turn
// for the committer once per part.
func (s *Store) GetItemWith(ws, ref string, comments, links bool) (*ItemWith, error) {
	var out ItemWith
	err := s.read(ws, func(r *rtx) error {
		it, err := itemByRef(r.ws, ref, true)
		if err != nil {
			return err
		}
		if out.Item, err = view(r.ws, it, nil); err != nil {
			return err
		}
		if comments {
			if out.Comments, err = commentsOfItem(r.ws, it); err != nil {
				return err
			}
		}
		if links {
			out.Links, err = linksOfItem(r.ws, it)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// eachItem calls fn with each item refs name, and its place in refs; a
// ref that names no item is skipped.
func eachItem(b *wsb, refs []string, withContent bool, fn func(i int, it *model.Item) error) error {
	for i, ref := range refs {
		it, err := itemByRef(b, ref, withContent)
		if model.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(i, it); err != nil {
			return err
		}
	}
	return nil
}

// GetItems reads the items of ws that refs name (ids, refs or slugs), in
// one read: out[i] is refs[i]'s item, nil if it names none.
func (s *Store) GetItems(ws string, refs []string) ([]*ItemView, error) {
	out := make([]*ItemView, len(refs))
	err := s.read(ws, func(r *rtx) error {
		colls := map[string]*model.Collection{}
		return eachItem(r.ws, refs, true, func(i int, it *model.Item) (err error) {
			out[i], err = view(r.ws, it, colls)
			return err
		})
	})
	return out, err
}

// txResolver answers relation lookups inside a write transaction. A
// write that copies the remote (replica) takes any item of the workspace
// by id, archived or in another collection: the sync engine maps the
// remote's values to local ids, and the remote's state is written as it
// is (Pad checks no relation value; padd checked it when it was set).
type txResolver struct {
	b       *wsb
	replica bool
}

func (r txResolver) ResolveRelation(collSlug, value string) (string, string) {
	b := r.b
	if k, isID := idKey(value); isID && r.replica {
		if it, _ := getItem(b, k, false); it != nil {
			return idString(k), ""
		}
	}
	id := b.collSlugs().Get([]byte(collSlug))
	if id == nil {
		return "", model.ReasonNotFound
	}
	c, _ := getCollection(b, id)
	if c == nil || c.ArchivedAt != nil {
		return "", model.ReasonNotFound
	}
	ok := func(itemID []byte) bool {
		it, _ := getItem(b, itemID, false)
		return it != nil && it.DeletedAt == nil && it.CollectionID == c.ID
	}
	if k, isID := idKey(value); isID {
		if ok(k) {
			return idString(k), ""
		}
		return "", model.ReasonNotFound
	}
	if prefix, n, isRef := parseItemRef(value); isRef {
		if owner := b.prefixes().Get([]byte(prefix)); owner != nil {
			// The prefix names a collection: no fallback by number.
			oc, _ := getCollection(b, owner)
			if oc != nil && oc.ArchivedAt == nil {
				if k := findItem(b, refText(prefix, n)); k != nil && ok(k) {
					return idString(k), ""
				}
				return "", model.ReasonNotFound
			}
		}
		if k := b.nums().Get(u64(uint64(n))); k != nil && ok(k) {
			return idString(k), ""
		}
		return "", model.ReasonNotFound
	}
	p := cat(mustID(c.ID), lstr(value))
	cur := b.titles().Cursor()
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
		return idString(found), ""
	}
	return "", model.ReasonAmbiguous
}

// putDerived writes an item's title and unique-value entries; del
// removes them.
func putDerived(b *wsb, it *model.Item, c *model.Collection, del bool) error {
	tk := cat(mustID(it.CollectionID), lstr(it.Title), mustID(it.ID))
	if del {
		if err := b.titles().Delete(tk); err != nil {
			return err
		}
	} else if err := b.titles().Put(tk, nil); err != nil {
		return err
	}
	for _, f := range c.Schema.Fields {
		if f.UniqueScope == "" {
			continue
		}
		for _, v := range indexValues(it.Fields[f.Key]) {
			uk := cat(mustID(c.ID), lstr(f.Key), lstr(v))
			if del {
				if got := b.unique().Get(uk); bytes.Equal(got, mustID(it.ID)) {
					if err := b.unique().Delete(uk); err != nil {
						return err
					}
				}
			} else if err := b.unique().Put(uk, mustID(it.ID)); err != nil {
				return err
			}
		}
	}
	return nil
}

// uniqueHolder returns the item (other than self) holding value in a
// unique field of collection c.
func uniqueHolder(b *wsb, c *model.Collection, key string, v any, self string) []byte {
	for _, s := range indexValues(v) {
		if got := b.unique().Get(cat(mustID(c.ID), lstr(key), lstr(s))); got != nil && (self == "" || !bytes.Equal(got, mustID(self))) {
			if it, _ := getItem(b, got, false); it != nil && it.DeletedAt == nil {
				return got
			}
		}
	}
	return nil
}

// checkUnique refuses supplied values that collide on a unique field
// (409 conflict).
func checkUnique(b *wsb, c *model.Collection, fields map[string]any, supplied map[string]bool, self string) error {
	for _, f := range c.Schema.Fields {
		if f.UniqueScope == "" || !supplied[f.Key] {
			continue
		}
		if h := uniqueHolder(b, c, f.Key, fields[f.Key], self); h != nil {
			holder, _ := getItem(b, h, false)
			e := model.Conflict("field %q value %v is already used by %s in %s; unique values may appear once per collection",
				f.Key, fields[f.Key], refOf(c, holder.Number), c.Slug).With("field", f.Key)
			return e.With("holder", refOf(c, holder.Number))
		}
	}
	return nil
}

// isUnparented: no parent and no outgoing implements link.
func isUnparented(b *wsb, it *model.Item) bool {
	if it.ParentID != "" {
		return false
	}
	p := cat(mustID(it.ID), lstr(model.LinkImplements))
	k, _ := b.linkSrc().Cursor().Seek(p)
	return !(k != nil && bytes.HasPrefix(k, p))
}

// resolveParent finds a live parent item for child (empty child on create),
// refusing itself and cycles. A write that copies the remote (replica)
// takes an archived parent too: the remote has the child under it.
func resolveParent(b *wsb, ref, child string, replica bool) (*model.Item, error) {
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
			cur, _ = getItem(b, mustID(cur.ParentID), false)
		}
	}
	return p, nil
}

// resolveRole maps a role slug or id to its id.
func resolveRole(b *wsb, ref string) (string, error) {
	if k, ok := idKey(ref); ok && b.roles().Get(k) != nil {
		return idString(k), nil
	}
	if id := b.roleSlugs().Get([]byte(ref)); id != nil {
		return idString(id), nil
	}
	return "", model.Invalid("unknown role %q: create it first or pick one from the role list", ref).With("field", "role")
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
		return w.idemSave(in.Idem, idemRecord{ItemID: r.Item.ID})
	})
	return res, err
}

func (w *wtx) createItem(in ItemCreate) (*ItemResult, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	b := w.ws
	c, err := liveCollection(b, in.Collection)
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
	supplied := map[string]bool{}
	for k := range out {
		supplied[k] = true
	}
	if err := checkUnique(b, c, out, supplied, ""); err != nil {
		return nil, err
	}
	it := &model.Item{ID: newID(), WorkspaceID: b.id, CollectionID: c.ID, Title: title,
		Content: in.Content, Fields: out, Tags: cleanTags(in.Tags), Pinned: in.Pinned,
		AssignedUserID: in.AssignUser, CreatedBy: w.actor, LastModifiedBy: w.actor,
		CreatedAt: tstamp(w.now), UpdatedAt: tstamp(w.now)}
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
		if it.AgentRoleID, err = resolveRole(b, in.Role); err != nil {
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
	it.Slug = in.imported.slug(b, model.UniqueSlug(model.ItemSlug(title), func(s string) bool { return b.slugs().Get([]byte(s)) != nil }))
	seq, err := w.stamp(model.EntityItem, model.OpCreated, it.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	it.Seq = seq
	id := mustID(it.ID)
	ref := refOf(c, it.Number)
	for _, put := range []error{
		putItem(b, it),
		b.nums().Put(u64(uint64(it.Number)), id),
		b.refs().Put([]byte(ref), id),
		b.slugs().Put([]byte(it.Slug), id),
		putDerived(b, it, c, false),
		w.reindex(nil, it, false, isUnparented(b, it)),
		w.firstVersions(in.imported, it),
		w.activity(seq, it.ID, "created", map[string]any{"seq": seq}),
	} {
		if put != nil {
			return nil, put
		}
	}
	v, err := view(b, it, map[string]*model.Collection{c.ID: c})
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
	it, err := itemByRef(b, ref, true)
	if err != nil {
		return nil, err
	}
	c, err := getCollection(b, mustID(it.CollectionID))
	if err != nil {
		return nil, err
	}
	if (it.DeletedAt != nil) == archive {
		v, err := view(b, it, nil) // already so: nothing to do
		return &ItemResult{Item: v}, err
	}
	if !archive && c.ArchivedAt != nil {
		return nil, model.Conflict("item %s is in archived collection %q: restore the collection first", refOf(c, it.Number), c.Slug)
	}
	old := *it
	op, action := model.OpDeleted, "deleted"
	if archive {
		t := tstamp(w.now)
		it.DeletedAt = &t
	} else {
		it.DeletedAt = nil
		op, action = model.OpRestored, "restored"
	}
	it.UpdatedAt = tstamp(w.now)
	it.LastModifiedBy = w.actor
	seq, err := w.stamp(model.EntityItem, op, it.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	it.Seq = seq
	unpar := isUnparented(b, it)
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
	v, err := view(b, it, nil)
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
