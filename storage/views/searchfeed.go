package views

import (
	"context"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// IndexDocs reads the named items (by id) for indexing, in one read
// transaction. An item whose stored record cannot be read is left out
// (as if gone) and logged.
func (s *Views) IndexDocs(ws string, ids []string) ([]storage.IndexDoc, error) {
	return records.ReadIndexDocs(s.base, ws, ids)
}

// ScanItems reads a workspace's items in id order for a full index
// build, a page at a time (after: the last id of the previous page), so
// no read transaction stays open across a long rebuild.
func (s *Views) ScanItems(ctx context.Context, ws, after string, limit int) ([]storage.IndexDoc, string, error) {
	return records.ScanIndexDocs(ctx, s.base, ws, after, limit)
}
