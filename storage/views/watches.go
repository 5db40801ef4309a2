package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListWatches lists every watch, newest first, with its item's names.
// A watch of an archived item, or of a deleted workspace not yet purged,
// is listed as Pad's server lists it; one whose workspace was purged is
// not.
func (s *Views) ListWatches() ([]storage.Watch, error) { return records.ReadWatches(s.base) }
