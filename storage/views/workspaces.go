package views

import (
	"sort"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListWorkspaces lists the live workspaces in their order.
func (s *Views) ListWorkspaces() ([]model.Workspace, error) {
	return records.Workspaces(s.base, records.Live)
}

// ListDeletedWorkspaces lists deleted workspaces still inside the
// restore window, most recently deleted first.
func (s *Views) ListDeletedWorkspaces() ([]model.Workspace, error) {
	cutoff := s.base.Now().Add(-storage.RestoreWindow)
	out, err := records.Workspaces(s.base, func(w *model.Workspace) bool {
		return w.DeletedAt != nil && w.DeletedAt.After(cutoff)
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].DeletedAt.After(*out[j].DeletedAt) })
	return out, err
}

// GetWorkspace resolves a live workspace by slug or id.
func (s *Views) GetWorkspace(ref string) (*model.Workspace, error) {
	return records.ReadLiveWorkspace(s.base, ref)
}
