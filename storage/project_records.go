package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The project views (dashboard, next, ready, stale...) answer from
// records kept in step with every item write, so none of them reads the
// items of a 100k workspace one JSON record at a time:
//
//	isum     item id(16) -> item summary (binary: collection, life,
//	         pinned, number, times, parent, role, slug, title and the
//	         short string field values)
//	vcounts  'q' parent(16) coll(16) lstr(key) lstr(value) life -> count
//	         'q' parent(16) coll(16) lstr("@n") lstr("") life    -> count
//	         'r' role(16) coll(16) lstr(key) lstr(value) life    -> count
//	due      day(10) item id(16) -> coll(16) lstr(done key) lstr(done
//	         value) lstr(due key), live items with a due_date/end_date
//	blk      target id(16) link id(16) -> source id(16) and both ends'
//	         collection, life, done key and done value: every blocks
//	         link with what deciding "open blocker" needs, so the
//	         blocked views scan it instead of reading two items a link
//
// Everything is keyed by raw values, never by a state: whether a value
// is terminal depends on the collection's schema, which can change
// without touching an item, so states are classified when read. The due
// and blk entries store the done field's key as it stood at the write; a
// reader whose collection's done field differs since falls back to the
// summary. Item writes keep these records through reindex, link writes
// the blk entries through linkSideEffects.
//
// Leases, reminders and seen cursors have their own buckets:
//
//	leases     item id(16) -> model.Lease JSON
//	reminders  reminder id(16) -> model.Reminder JSON
//	rem_item   item id(16) reminder id(16) -> nil
//	rem_fired  reminder id(16) -> nil        (fired, not acknowledged)
//	seen       lstr(identity) -> unix seconds
//	rem_due    (top level) due(8) workspace id(16) reminder id(16) -> nil,
//	           armed reminders of every workspace, in due order

// reindexLink keeps blk in step with a link write; linkSideEffects calls
// it after the link is stored or removed.
func (w *wtx) reindexLink(l *model.Link, colls map[string]*model.Collection) error {
	return records.PutBlkLink(w.ws, l, colls)
}

// reindexProjectRecords is putProjectRecords for a write transaction; reindex calls it
// after the list index, so every item write keeps the views' records.
func (w *wtx) reindexProjectRecords(old, new *model.Item) error {
	if old == new {
		return nil // a link's side effect re-indexes an unchanged item
	}
	return records.PutProjectRecords(w.ws, old, new, nil)
}

// migrateProjectRecords is the layout step that adds leases, reminders and the
// views' records: the new buckets, and the records of every existing
// workspace's items.
func migrateProjectRecords(tx *records.Txn) error {
	if _, err := tx.CreateBucketIfNotExists(records.BRemDue); err != nil {
		return err
	}
	if err := ensureWSSubBuckets(tx); err != nil {
		return err
	}
	return tx.Bucket(records.BWS).ForEachBucket(func(k []byte) error { return records.RebuildProjectRecords(tx, records.IDString(k)) })
}
