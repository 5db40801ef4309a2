package records

import (
	"sort"

	"github.com/padd/padd/model"
)

// The agent bootstrap (Pad's PRJ-09), read in one transaction from the
// maintained counts and index streams (the dashboard's included):
// nothing here scans the items, so its cost follows the number of
// conventions, playbooks and roles, not the size of the workspace.

// SortedRoles lists the workspace's roles by sort order, then name.
func SortedRoles(b *Wsb) ([]*model.Role, error) {
	var out []*model.Role
	err := b.Roles().ForEach(func(k, _ []byte) error {
		r, err := GetRole(b, k)
		if err == nil && r != nil {
			out = append(out, r)
		}
		return err
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SortOrder != out[j].SortOrder {
			return out[i].SortOrder < out[j].SortOrder
		}
		return out[i].Name < out[j].Name
	})
	return out, err
}
