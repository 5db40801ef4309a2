package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// GetItem reads one item by UUID, ref (old refs too) or slug. Archived
// items are served read-only, with DeletedAt set.
func (s *Views) GetItem(ws, ref string) (*storage.ItemView, error) {
	return records.ReadItem(s.base, ws, ref)
}

// GetItemWith reads an item and, as asked, its comments and links in one
// read: an agent's get, which under load would otherwise wait its turn
// for the committer once per part.
func (s *Views) GetItemWith(ws, ref string, comments, links bool) (*storage.ItemWith, error) {
	return records.ReadItemWith(s.base, ws, ref, comments, links)
}

// GetItems reads the items of ws that refs name (ids, refs or slugs), in
// one read: out[i] is refs[i]'s item, nil if it names none.
func (s *Views) GetItems(ws string, refs []string) ([]*storage.ItemView, error) {
	return records.ReadItems(s.base, ws, refs)
}
