package views

import (
	"context"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListItems answers a list from the index: it reads the smallest
// matching stream in order and probes the others by key.
func (s *Views) ListItems(ctx context.Context, ws string, p storage.ListParams) (*storage.ListResult, error) {
	return records.ReadList(ctx, s.base, ws, p)
}
