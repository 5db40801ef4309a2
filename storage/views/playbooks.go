package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// Playbook reads (Pad's PB-01/02). Playbooks are the items of the
// collections holding the playbook kind (see records.KindCollections).

// ListPlaybooks lists the workspace's playbooks as metadata.
func (s *Views) ListPlaybooks(ws string) ([]model.PlaybookMeta, error) {
	return records.ReadPlaybooks(s.base, ws)
}

// GetPlaybook reads one playbook by invocation slug, ref, slug or id.
func (s *Views) GetPlaybook(ws, ref string) (*storage.Playbook, error) {
	return records.ReadPlaybook(s.base, ws, ref)
}
