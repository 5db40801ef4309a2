package records

import (
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
