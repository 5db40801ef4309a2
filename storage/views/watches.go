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

// WatchNotes gives, for each journal entry, the notifications it makes
// for the watched items (none for most): a status change of the item's
// done field, an assignment change, and a comment added, a predicate
// field=value narrowing the status changes heard, as Pad's. The watches
// are read as they stand now.
func (s *Views) WatchNotes(entries []storage.JournalEntry) ([][]storage.WatchNote, error) {
	return records.ReadWatchNotes(s.base, entries)
}
