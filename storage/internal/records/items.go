package records

import (
	"bytes"
	"strings"

	"github.com/padd/padd/model"
)

// ItemView is an item as readers see it: with its ref, its collection
// and the facts derived from other records.
type ItemView struct {
	model.Item
	Ref         string
	Collection  *model.Collection
	ParentRef   string
	ParentTitle string
	// ParentLinkID is the id of the item Pad names as the parent
	// (parent_link_id): the parent, else the live item this one
	// implements, as Pad counts an implements link as a parent link.
	ParentLinkID    string
	RelationTargets map[string]any
	HasChildren     bool
	// RoleSlug, RoleName and RoleIcon name the item's agent role, when
	// it has one.
	RoleSlug, RoleName, RoleIcon string
	// Lease is the item's live lease, if any (leases.go).
	Lease *model.Lease
}

// State is the item's lifecycle state under its collection's schema.
func (v *ItemView) State() model.State { return v.Collection.State(v.Fields) }

func RefOf(c *model.Collection, n int64) string { return RefText(c.Prefix, n) }

func GetItem(b *Wsb, id []byte, withContent bool) (*model.Item, error) {
	v := b.Items().Get(id)
	if v == nil {
		return nil, nil
	}
	var it model.Item
	if err := DecodeItem(v, &it); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored item %s is unreadable: %v", IDString(id), err)
	}
	it.ID, it.WorkspaceID = IDString(id), b.ID
	if withContent {
		it.Content = string(b.Content().Get(id))
	}
	return &it, nil
}

// FindItem resolves a UUID, a ref (old refs included) or a slug to an
// item id.
func FindItem(b *Wsb, ref string) []byte {
	ref = strings.TrimSpace(ref)
	if id, ok := IDKey(ref); ok {
		if b.Items().Get(id) != nil {
			return id
		}
		return nil
	}
	if prefix, n, ok := ParseItemRef(ref); ok {
		if id := b.Refs().Get([]byte(RefText(prefix, n))); id != nil {
			return id
		}
		id := b.Nums().Get(U64(uint64(n)))
		if id == nil {
			return nil
		}
		// A ref under a prefix the item's collection once had still resolves.
		if owner := b.Prefixes().Get([]byte(prefix)); owner != nil {
			if it, _ := GetItem(b, id, false); it != nil && bytes.Equal(owner, MustID(it.CollectionID)) {
				return id
			}
		}
	}
	if id := b.Slugs().Get([]byte(ref)); id != nil {
		return id
	}
	return nil
}

// ItemByRef loads an item (archived included) or refuses with not_found.
func ItemByRef(b *Wsb, ref string, withContent bool) (*model.Item, error) {
	id := FindItem(b, ref)
	if id == nil {
		return nil, model.NotFound("Item not found: %s", ref).With("ref", ref)
	}
	it, err := GetItem(b, id, withContent)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, model.NotFound("Item not found: %s", ref).With("ref", ref)
	}
	return it, nil
}

// View decorates an item for readers.
func View(b *Wsb, it *model.Item, colls map[string]*model.Collection) (*ItemView, error) {
	c := colls[it.CollectionID]
	if c == nil {
		var err error
		c, err = GetCollection(b, MustID(it.CollectionID))
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, ErrInternal("item %s names a missing collection", it.ID)
		}
		if colls != nil {
			colls[c.ID] = c
		}
	}
	v := &ItemView{Item: *it, Ref: RefOf(c, it.Number), Collection: c}
	var parent *model.Item
	if it.ParentID != "" {
		parent, _ = GetItem(b, MustID(it.ParentID), false)
		v.ParentLinkID = it.ParentID
	} else if parent = implementsParent(b, MustID(it.ID)); parent != nil {
		v.ParentLinkID = parent.ID
	}
	if parent != nil {
		if pc, _ := GetCollection(b, MustID(parent.CollectionID)); pc != nil {
			v.ParentRef = RefOf(pc, parent.Number)
		}
		v.ParentTitle = parent.Title
	}
	v.HasChildren = CountOf(b, Cat([]byte{kindParent}, MustID(it.ID), []byte{LifeLive})) > 0 || hasLiveImplementer(b, MustID(it.ID))
	if k, ok := IDKey(it.AgentRoleID); ok {
		if r, _ := GetRole(b, k); r != nil {
			v.RoleSlug, v.RoleName, v.RoleIcon = r.Slug, r.Name, r.Icon
		}
	}
	v.RelationTargets = relationTargets(b, c, it.Fields)
	v.Lease = LiveLease(b, MustID(it.ID))
	return v, nil
}

// relationTargets resolves stored relation values for display: {id, ref,
// title}, or {id} alone when the target is gone.
func relationTargets(b *Wsb, c *model.Collection, fields map[string]any) map[string]any {
	var out map[string]any
	target := func(id string) map[string]any {
		t := map[string]any{"id": id}
		k, ok := IDKey(id)
		if !ok {
			t["stored_as_text"] = true
			return t
		}
		if it, _ := GetItem(b, k, false); it != nil && it.DeletedAt == nil {
			if tc, _ := GetCollection(b, MustID(it.CollectionID)); tc != nil && tc.ArchivedAt == nil {
				t["ref"] = RefOf(tc, it.Number)
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

// IsUnparented: no parent and no outgoing implements link.
func IsUnparented(b *Wsb, it *model.Item) bool {
	if it.ParentID != "" {
		return false
	}
	p := Cat(MustID(it.ID), Lstr(model.LinkImplements))
	k, _ := b.LinkSrc().Cursor().Seek(p)
	return !(k != nil && bytes.HasPrefix(k, p))
}

// ResolveRole maps a role slug or id to its id.
func ResolveRole(b *Wsb, ref string) (string, error) {
	if k, ok := IDKey(ref); ok && b.Roles().Get(k) != nil {
		return IDString(k), nil
	}
	if id := b.RoleSlugs().Get([]byte(ref)); id != nil {
		return IDString(id), nil
	}
	return "", model.Invalid("unknown role %q: create it first or pick one from the role list", ref).With("field", "role")
}

// EachItem calls fn with each item refs name, and its place in refs; a
// ref that names no item is skipped.
func EachItem(b *Wsb, refs []string, withContent bool, fn func(i int, it *model.Item) error) error {
	for i, ref := range refs {
		it, err := ItemByRef(b, ref, withContent)
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

// ItemWith is an item with the parts of it a caller asked for, read at
// one instant.
type ItemWith struct {
	Item     *ItemView
	Comments []model.Comment // as ListComments; nil unless asked for
	Links    []LinkView      // as ListLinks; nil unless asked for
}

// ReadItem reads one item by UUID, ref (old refs too) or slug. Archived
// items are served read-only, with DeletedAt set.
func ReadItem(b *Base, ws, ref string) (*ItemView, error) {
	var out *ItemView
	err := b.Read(ws, func(r *Rtx) error {
		it, err := ItemByRef(r.WS, ref, true)
		if err != nil {
			return err
		}
		out, err = View(r.WS, it, nil)
		return err
	})
	return out, err
}

// ReadItemWith reads an item and, as asked, its comments and links in one
// read: an agent's get, which under load would otherwise wait its turn
// for the committer once per part.
func ReadItemWith(b *Base, ws, ref string, comments, links bool) (*ItemWith, error) {
	var out ItemWith
	err := b.Read(ws, func(r *Rtx) error {
		it, err := ItemByRef(r.WS, ref, true)
		if err != nil {
			return err
		}
		if out.Item, err = View(r.WS, it, nil); err != nil {
			return err
		}
		if comments {
			if out.Comments, err = CommentsOfItem(r.WS, it); err != nil {
				return err
			}
		}
		if links {
			out.Links, err = LinksOfItem(r.WS, it)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ReadItems reads the items of ws that refs name (ids, refs or slugs), in
// one read: out[i] is refs[i]'s item, nil if it names none.
func ReadItems(b *Base, ws string, refs []string) ([]*ItemView, error) {
	out := make([]*ItemView, len(refs))
	err := b.Read(ws, func(r *Rtx) error {
		colls := map[string]*model.Collection{}
		return EachItem(r.WS, refs, true, func(i int, it *model.Item) (err error) {
			out[i], err = View(r.WS, it, colls)
			return err
		})
	})
	return out, err
}

// implementsParent is the live item an item implements, by its oldest
// implements link, or nil: the parent Pad names for an item without a
// parent of its own.
func implementsParent(b *Wsb, id []byte) *model.Item {
	for _, e := range EdgesOf(b.LinkSrc(), id, model.LinkImplements) {
		if t, _ := GetItem(b, e.Other, false); t != nil && t.DeletedAt == nil {
			return t
		}
	}
	return nil
}

// hasLiveImplementer says a live item implements id (one of its
// children as Pad counts them).
func hasLiveImplementer(b *Wsb, id []byte) bool {
	for _, src := range Implementers(b, id) {
		if s, _ := GetItem(b, src, false); s != nil && s.DeletedAt == nil {
			return true
		}
	}
	return false
}
