package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListRoles lists a workspace's roles by sort order, then name.
func (s *Views) ListRoles(ws string) ([]storage.RoleInfo, error) {
	return records.ListRoles(s.base, ws)
}

// GetRole reads one role by slug or id.
func (s *Views) GetRole(ws, ref string) (*storage.RoleInfo, error) {
	return records.ReadRole(s.base, ws, ref)
}
