package storage

import (
	"bytes"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Roles live in two buckets:
//
//	roles       role id(16) -> model.Role JSON
//	role_slugs  slug        -> role id(16)
//
// Items point at a role by id (Item.AgentRoleID), and the list index
// keeps an "@role" pseudo-field stream per role, which is how a role's
// items are found without a scan.

// RoleCreate is a new role. An empty Slug is derived from Name.
type RoleCreate struct {
	Slug        string
	Name        string
	Icon        string
	Description string
	Tools       string
	SortOrder   int
}

// RoleUpdate changes a role; nil members are left alone.
type RoleUpdate struct {
	Slug        *string
	Name        *string
	Icon        *string
	Description *string
	Tools       *string
	SortOrder   *int
}

// RoleInfo is records.RoleInfo, the type storage's callers name.
type RoleInfo = records.RoleInfo

// RoleDeletion says what DeleteRole did.
type RoleDeletion struct {
	Role model.Role
	// Cleared lists the items (archived ones too) that had the role.
	Cleared []string
}

func putRole(b *records.Wsb, r *model.Role) error {
	v, err := records.Encode(r)
	if err != nil {
		return err
	}
	return records.FirstErr(b.Roles().Put(records.MustID(r.ID), v), b.RoleSlugs().Put([]byte(r.Slug), records.MustID(r.ID)))
}

// claimRoleSlug checks that slug is free for role self ("" on create).
func claimRoleSlug(b *records.Wsb, slug, self string) error {
	if slug == "" {
		return model.BadRequest("role slug must contain a letter or digit").With("field", "slug")
	}
	if owner := b.RoleSlugs().Get([]byte(slug)); owner != nil && records.IDString(owner) != self {
		return model.Conflict("role slug %q is already taken; pick another", slug).With("field", "slug").With("slug", slug)
	}
	return nil
}

// CreateRole creates a role. A slug the caller asks for must be free
// (409 conflict); one derived from the name takes -2, -3, ... as Pad does.
func (s *Store) CreateRole(ws string, in RoleCreate, actor model.Actor) (*model.Role, error) {
	var out *model.Role
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.createRole(in)
		return err
	})
	return out, err
}

func (w *wtx) createRole(in RoleCreate) (*model.Role, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	b := w.ws
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, model.BadRequest("name is required").With("field", "name")
	}
	var slug string
	if strings.TrimSpace(in.Slug) != "" {
		slug = model.CanonicalSlug(in.Slug)
		if err := claimRoleSlug(b, slug, ""); err != nil {
			return nil, err
		}
	} else {
		base := model.CanonicalSlug(name)
		if base == "" {
			base = "role"
		}
		slug = model.UniqueSlug(base, func(s string) bool { return b.RoleSlugs().Get([]byte(s)) != nil })
	}
	r := &model.Role{ID: records.NewID(), WorkspaceID: b.ID, Slug: slug, Name: name, Icon: in.Icon,
		Description: in.Description, Tools: in.Tools, SortOrder: in.SortOrder,
		CreatedAt: records.Tstamp(w.now), UpdatedAt: records.Tstamp(w.now)}
	seq, err := w.stamp(model.EntityRole, model.OpCreated, r.ID, "", "")
	if err != nil {
		return nil, err
	}
	r.Seq = seq
	return r, records.FirstErr(putRole(b, r), w.activity(seq, "", "role_created", map[string]any{"seq": seq, "role": r.Slug}))
}

// UpdateRole changes a role, its slug included. An update that changes
// nothing writes nothing.
func (s *Store) UpdateRole(ws, ref string, in RoleUpdate, actor model.Actor) (*model.Role, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	var out *model.Role
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		r, err := records.FindRole(b, ref)
		if err != nil {
			return err
		}
		next := *r
		if in.Name != nil {
			if next.Name = strings.TrimSpace(*in.Name); next.Name == "" {
				return model.BadRequest("role name cannot be empty").With("field", "name")
			}
		}
		if in.Slug != nil {
			next.Slug = model.CanonicalSlug(*in.Slug)
			if err := claimRoleSlug(b, next.Slug, r.ID); err != nil {
				return err
			}
		}
		for _, f := range []struct {
			in  *string
			out *string
		}{{in.Icon, &next.Icon}, {in.Description, &next.Description}, {in.Tools, &next.Tools}} {
			if f.in != nil {
				*f.out = *f.in
			}
		}
		if in.SortOrder != nil {
			next.SortOrder = *in.SortOrder
		}
		out = r
		if next == *r {
			return nil
		}
		seq, err := w.stamp(model.EntityRole, model.OpUpdated, r.ID, "", "")
		if err != nil {
			return err
		}
		next.UpdatedAt, next.Seq = records.Tstamp(w.now), seq
		if next.Slug != r.Slug {
			if err := b.RoleSlugs().Delete([]byte(r.Slug)); err != nil {
				return err
			}
		}
		out = &next
		meta := map[string]any{"seq": seq, "role": next.Slug}
		if next.Slug != r.Slug {
			meta["slug_from"] = r.Slug
		}
		return records.FirstErr(putRole(b, &next), w.activity(seq, "", "role_updated", meta))
	})
	return out, err
}

// DeleteRole deletes a role and clears it from every item that had it,
// archived ones included. The items keep their updated_at (the role
// went away, the item was not edited) but take the deletion's seq, so a
// client holding an older seq sees that the item changed.
func (s *Store) DeleteRole(ws, ref string, actor model.Actor) (*RoleDeletion, error) {
	var out *RoleDeletion
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		r, err := records.FindRole(b, ref)
		if err != nil {
			return err
		}
		// Collect first: the loop below rewrites the stream it came from.
		var ids [][]byte
		for _, life := range []byte{records.LifeLive, records.LifeArchived} {
			p := records.RoleStream(r.ID, life)
			c := b.Index().Cursor()
			for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
				if len(k) == len(p)+records.SuffixLen {
					ids = append(ids, append([]byte(nil), k[len(k)-16:]...))
				}
			}
		}
		seq, err := w.stamp(model.EntityRole, model.OpDeleted, r.ID, "", "")
		if err != nil {
			return err
		}
		d := &RoleDeletion{Role: *r}
		for _, id := range ids {
			it, err := records.GetItem(b, id, true)
			if err != nil {
				return err
			}
			if it == nil || it.AgentRoleID != r.ID {
				continue
			}
			// Each cleared item is its own change, so followers of the
			// change log (index, feeds, sync) see it.
			iseq, err := w.stamp(model.EntityItem, model.OpUpdated, it.ID, it.ID, it.CollectionID)
			if err != nil {
				return err
			}
			old := *it
			it.AgentRoleID, it.Seq = "", iseq
			unpar := records.IsUnparented(b, it)
			if err := records.FirstErr(putItem(b, it), w.reindex(&old, it, unpar, unpar)); err != nil {
				return err
			}
			d.Cleared = append(d.Cleared, it.ID)
		}
		if err := records.FirstErr(b.Roles().Delete(records.MustID(r.ID)), b.RoleSlugs().Delete([]byte(r.Slug))); err != nil {
			return err
		}
		out = d
		return w.activity(seq, "", "role_deleted", map[string]any{"seq": seq, "role": r.Slug, "cleared_items": len(d.Cleared)})
	})
	return out, err
}
