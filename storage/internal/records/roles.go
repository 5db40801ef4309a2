package records

import (
	"sort"
	"strings"

	"github.com/padd/padd/model"
)

// Roles live in two buckets:
//
//	roles       role id(16) -> model.Role JSON
//	role_slugs  slug        -> role id(16)
//
// Items point at a role by id (Item.AgentRoleID), and the list index
// keeps an "@role" pseudo-field stream per role, which is how a role's
// items are found without a scan.

func GetRole(b *Wsb, id []byte) (*model.Role, error) {
	v := b.Roles().Get(id)
	if v == nil {
		return nil, nil
	}
	var r model.Role
	if err := Decode(v, &r); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored role %s is unreadable: %v", IDString(id), err)
	}
	return &r, nil
}

// RoleStream is the index prefix of a role's items in one life state.
func RoleStream(roleID string, life byte) []byte {
	return Cat([]byte{KindFieldAll}, Lstr(KeyRole), Lstr(roleID), []byte{life})
}

// RoleInfo is a role with the number of live items assigned to it.
type RoleInfo struct {
	model.Role
	ItemCount int
}

// FindRole resolves a role by id or slug, refusing with Pad's not_found.
func FindRole(b *Wsb, ref string) (*model.Role, error) {
	ref = strings.TrimSpace(ref)
	id, ok := IDKey(ref)
	if !ok {
		id = b.RoleSlugs().Get([]byte(ref))
		if id == nil {
			id = b.RoleSlugs().Get([]byte(model.CanonicalSlug(ref)))
		}
	}
	if id != nil {
		r, err := GetRole(b, id)
		if err != nil || r != nil {
			return r, err
		}
	}
	return nil, model.NotFound("Agent role not found: %s", ref).With("role", ref)
}

func RoleInfoOf(b *Wsb, r *model.Role) RoleInfo {
	return RoleInfo{Role: *r, ItemCount: int(CountOf(b, RoleStream(r.ID, LifeLive)))}
}

// ListRoles lists a workspace's roles by sort order, then name.
func ListRoles(b *Base, ws string) ([]RoleInfo, error) {
	out := []RoleInfo{}
	err := b.Read(ws, func(r *Rtx) error {
		return r.WS.Roles().ForEach(func(k, _ []byte) error {
			role, err := GetRole(r.WS, k)
			if err != nil {
				return err
			}
			out = append(out, RoleInfoOf(r.WS, role))
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.SortOrder != b.SortOrder {
			return a.SortOrder < b.SortOrder
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	return out, err
}

// ReadRole reads one role by slug or id, in a read of its own.
func ReadRole(b *Base, ws, ref string) (*RoleInfo, error) {
	var out *RoleInfo
	err := b.Read(ws, func(r *Rtx) error {
		role, err := FindRole(r.WS, ref)
		if err != nil {
			return err
		}
		ri := RoleInfoOf(r.WS, role)
		out = &ri
		return nil
	})
	return out, err
}
