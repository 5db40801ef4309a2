package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListLinks lists an item's links both ways, oldest first, each typed
// as the item sees it. Archived items answer too (reads are allowed).
func (s *Views) ListLinks(ws, itemRef string) ([]storage.LinkView, error) {
	return records.ReadLinks(s.base, ws, itemRef)
}

// Deps walks the blocking graph around an item: what it blocks and what
// blocks it, transitively, bounded by MaxDepDepth and MaxDepNodes per
// direction.
func (s *Views) Deps(ws, itemRef string) (*storage.DepGraph, error) {
	return records.ReadDeps(s.base, ws, itemRef)
}
