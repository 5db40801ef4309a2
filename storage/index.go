package storage

import (
	"bytes"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The list index. Every item has entries of the form
//
//	prefix | sortkey(9) | item id(16)  ->  collection id(16)
//
// where the prefix names a stream (a collection, a field value, a tag, a
// parent, "unparented", ...) and ends in a life byte (live or archived),
// and sortkey orders the stream as Pad's default list does: pinned
// first, then updated_at descending, then id. A list reads one stream
// and probes the others with point lookups on the same suffix, so it
// never scans the items. The counts bucket holds each prefix's size,
// which picks the smallest stream to read and answers counts and
// census questions without a scan.

// migratePairStreams is the layout step that adds the pair streams of
// every stored item (live and archived) with their counts.
func migratePairStreams(tx *records.Txn) error {
	root := tx.Bucket(records.BWS)
	if root == nil {
		return nil
	}
	return root.ForEachBucket(func(k []byte) error {
		b := records.OpenWS(tx, records.IDString(k))
		ix, counts := b.Index(), b.Counts()
		c := b.Items().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			it, err := records.GetItem(b, k, false)
			if err != nil {
				return err
			}
			coll := records.MustID(it.CollectionID)
			for _, p := range records.PairStreams(coll, it.Fields, records.LifeOf(it)) {
				key := records.Cat(p, records.SortKey(it), k)
				if ix.Get(key) != nil {
					continue // already there: a migration that ran again
				}
				if err := ix.Put(key, coll); err != nil {
					return err
				}
				if err := records.AddCount(counts, p, 1); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// reindex moves an item's index entries from its old state to its new
// one (either may be nil), keeping the per-stream counts.
func (w *wtx) reindex(old, new *model.Item, oldUnpar, newUnpar bool) error {
	// An item is in a dozen streams or so: slices searched in line cost
	// less than maps here, and a bulk load runs this per item.
	type entry struct {
		prefix []byte
		key    []byte
	}
	entries := func(it *model.Item, unpar bool) []entry {
		if it == nil {
			return nil
		}
		suffix := records.Cat(records.SortKey(it), records.MustID(it.ID))
		streams := records.ItemStreams(it, unpar)
		out := make([]entry, len(streams))
		for i, p := range streams {
			out[i] = entry{p, records.Cat(p, suffix)}
		}
		return out
	}
	find := func(es []entry, prefix []byte) *entry {
		for i := range es {
			if bytes.Equal(es[i].prefix, prefix) {
				return &es[i]
			}
		}
		return nil
	}
	before, after := entries(old, oldUnpar), entries(new, newUnpar)
	// Entries carry the collection id as their value: a move rewrites
	// even the entries whose keys stay.
	moved := old != nil && new != nil && old.CollectionID != new.CollectionID
	for _, e := range before {
		a := find(after, e.prefix)
		if a != nil && bytes.Equal(a.key, e.key) {
			continue
		}
		if err := w.ws.PutIndex(e.prefix, e.key, nil); err != nil {
			return err
		}
		if a == nil {
			if err := w.ws.AddCount(e.prefix, -1); err != nil {
				return err
			}
		}
	}
	var coll []byte
	if new != nil {
		coll = records.MustID(new.CollectionID)
	}
	for _, e := range after {
		b := find(before, e.prefix)
		if b != nil && bytes.Equal(b.key, e.key) && !moved {
			continue
		}
		if err := w.ws.PutIndex(e.prefix, e.key, coll); err != nil {
			return err
		}
		if b == nil {
			if err := w.ws.AddCount(e.prefix, 1); err != nil {
				return err
			}
		}
	}
	// The project views' records (project_records.go) follow every item write
	// through this one place.
	return w.reindexProjectRecords(old, new)
}
