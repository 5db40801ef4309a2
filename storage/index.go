package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/big"
	"slices"
	"sort"
	"strconv"

	"github.com/padd/padd/model"
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

const (
	lifeLive     = 'L'
	lifeArchived = 'A'

	kindColl       = 'c'
	kindAll        = 'w'
	kindField      = 'f'
	kindFieldAll   = 'g'
	kindTag        = 't'
	kindTagAll     = 'T'
	kindParent     = 'p'
	kindUnparented = 'u'
	kindUnparAll   = 'U'
	kindPair       = 'q'

	suffixLen = 9 + 16

	// pairStatusKey is the done field the (status, rank) pair streams
	// follow. It is the done field of every collection that does not
	// group its board by another select (model.DoneField).
	pairStatusKey = "status"

	// Pseudo field keys for the assignment columns; '@' cannot start a
	// real field key.
	keyRole     = "@role"
	keyAssignee = "@assignee"
)

func collPrefix(coll []byte, life byte) []byte { return cat([]byte{kindColl}, coll, []byte{life}) }

func sortKey(it *model.Item) []byte {
	b := make([]byte, 9)
	if !it.Pinned {
		b[0] = 1
	}
	binary.BigEndian.PutUint64(b[1:], ^uint64(it.UpdatedAt.Unix()))
	return b
}

// IndexValues is how a field value appears in the index and in filters:
// scalars as text (numbers canonical), lists element by element.
func indexValues(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		return []string{x}
	case bool:
		return []string{strconv.FormatBool(x)}
	case []any:
		var out []string
		for _, e := range x {
			switch e.(type) {
			case []any, map[string]any:
				continue
			}
			out = append(out, indexValues(e)...)
		}
		return out
	case []string:
		var out []string
		for _, e := range x {
			if e != "" {
				out = append(out, e)
			}
		}
		return out
	case map[string]any:
		return nil
	}
	if model.IsNumber(v) {
		return []string{canonicalNumber(v)}
	}
	return nil
}

func canonicalNumber(v any) string {
	var r *big.Rat
	switch n := v.(type) {
	case json.Number:
		r, _ = new(big.Rat).SetString(string(n))
	case float64:
		r = new(big.Rat)
		r.SetFloat64(n)
	case int:
		r = new(big.Rat).SetInt64(int64(n))
	case int64:
		r = new(big.Rat).SetInt64(n)
	}
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	// Shortest exact decimal when there is one, else a fraction.
	for p := 1; p <= 64; p++ {
		s := r.FloatString(p)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.RatString()
}

// itemStreams lists the stream prefixes an item belongs to.
func itemStreams(it *model.Item, unparented bool) [][]byte {
	life := byte(lifeLive)
	if it.DeletedAt != nil {
		life = lifeArchived
	}
	coll := mustID(it.CollectionID)
	L := []byte{life}
	out := [][]byte{
		cat([]byte{kindColl}, coll, L),
		cat([]byte{kindAll}, L),
	}
	addField := func(k, v string) {
		out = append(out,
			cat([]byte{kindField}, coll, lstr(k), lstr(v), L),
			cat([]byte{kindFieldAll}, lstr(k), lstr(v), L))
	}
	keys := make([]string, 0, len(it.Fields))
	for k := range it.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if model.IsReservedField(k) {
			continue
		}
		vals := indexValues(it.Fields[k])
		for i, v := range vals {
			if !slices.Contains(vals[:i], v) {
				addField(k, v)
			}
		}
	}
	out = append(out, pairStreams(coll, it.Fields, life)...)
	if it.AgentRoleID != "" {
		addField(keyRole, it.AgentRoleID)
	}
	if it.AssignedUserID != "" {
		addField(keyAssignee, it.AssignedUserID)
	}
	for i, t := range it.Tags {
		if t == "" || slices.Contains(it.Tags[:i], t) {
			continue
		}
		out = append(out, cat([]byte{kindTag}, coll, lstr(t), L), cat([]byte{kindTagAll}, lstr(t), L))
	}
	if it.ParentID != "" {
		out = append(out, cat([]byte{kindParent}, mustID(it.ParentID), L))
	}
	if unparented {
		out = append(out, cat([]byte{kindUnparented}, coll, L), cat([]byte{kindUnparAll}, L))
	}
	return out
}

// pairStreams are the streams of an item's (status, rank) value pairs,
// one per rank key it holds (model.RankKey). next and ready read the
// pair streams of exactly the statuses and ranks a tier wants; with
// one stream per field they would read one and probe the other per
// entry, and once agents have closed the top of the backlog the
// newest entries of a rank's stream are all closed items, rejected one
// probe at a time.
func pairStreams(coll []byte, fields map[string]any, life byte) [][]byte {
	statuses := indexValues(fields[pairStatusKey])
	if len(statuses) == 0 {
		return nil
	}
	var out [][]byte
	for _, rk := range model.RankKeys {
		ranks := indexValues(fields[rk])
		for i, s := range statuses {
			if slices.Contains(statuses[:i], s) {
				continue
			}
			for j, r := range ranks {
				if !slices.Contains(ranks[:j], r) {
					out = append(out, pairStream(coll, rk, s, r, life))
				}
			}
		}
	}
	return out
}

// pairStream is the stream of a collection's items whose status is
// status and whose rank field rankKey holds rank.
func pairStream(coll []byte, rankKey, status, rank string, life byte) []byte {
	return cat([]byte{kindPair}, coll, lstr(rankKey), lstr(status), lstr(rank), []byte{life})
}

// migratePairStreams is the layout step that adds the pair streams of
// every stored item (live and archived) with their counts.
func migratePairStreams(tx *txn) error {
	root := tx.Bucket(bWS)
	if root == nil {
		return nil
	}
	return root.ForEachBucket(func(k []byte) error {
		b := openWS(tx, idString(k))
		ix, counts := b.index(), b.counts()
		c := b.items().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			it, err := getItem(b, k, false)
			if err != nil {
				return err
			}
			coll := mustID(it.CollectionID)
			for _, p := range pairStreams(coll, it.Fields, lifeOf(it)) {
				key := cat(p, sortKey(it), k)
				if ix.Get(key) != nil {
					continue // already there: a migration that ran again
				}
				if err := ix.Put(key, coll); err != nil {
					return err
				}
				if err := addCount(counts, p, 1); err != nil {
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
		suffix := cat(sortKey(it), mustID(it.ID))
		streams := itemStreams(it, unpar)
		out := make([]entry, len(streams))
		for i, p := range streams {
			out[i] = entry{p, cat(p, suffix)}
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
		if err := w.ws.putIndex(e.prefix, e.key, nil); err != nil {
			return err
		}
		if a == nil {
			if err := w.ws.addCount(e.prefix, -1); err != nil {
				return err
			}
		}
	}
	var coll []byte
	if new != nil {
		coll = mustID(new.CollectionID)
	}
	for _, e := range after {
		b := find(before, e.prefix)
		if b != nil && bytes.Equal(b.key, e.key) && !moved {
			continue
		}
		if err := w.ws.putIndex(e.prefix, e.key, coll); err != nil {
			return err
		}
		if b == nil {
			if err := w.ws.addCount(e.prefix, 1); err != nil {
				return err
			}
		}
	}
	// The project views' records (project_records.go) follow every item write
	// through this one place.
	return w.reindexProjectRecords(old, new)
}

func addCount(counts interface {
	Get([]byte) []byte
	Put([]byte, []byte) error
	Delete([]byte) error
}, prefix []byte, d int64) error {
	n := int64(getU64(counts.Get(prefix))) + d
	if n <= 0 {
		return counts.Delete(prefix)
	}
	return counts.Put(prefix, u64(uint64(n)))
}

// fieldValueCounts returns, for live items of a collection, how many hold
// each value of a field.
func fieldValueCounts(b *wsb, collID, key string) map[string]int {
	out := map[string]int{}
	p := cat([]byte{kindField}, mustID(collID), lstr(key))
	c := b.counts().Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		rest := k[len(p):]
		if len(rest) < 3 || rest[len(rest)-1] != lifeLive {
			continue
		}
		n := int(binary.BigEndian.Uint16(rest))
		if len(rest) != 2+n+1 {
			continue
		}
		out[string(rest[2:2+n])] = int(getU64(v))
	}
	return out
}

// keyInUse reports whether any item (live or archived) in scope stores
// a value under key; coll nil means the whole workspace.
func keyInUse(b *wsb, coll []byte, key string) bool {
	var p []byte
	if coll != nil {
		p = cat([]byte{kindField}, coll, lstr(key))
	} else {
		p = cat([]byte{kindFieldAll}, lstr(key))
	}
	k, _ := b.counts().Cursor().Seek(p)
	return k != nil && bytes.HasPrefix(k, p)
}
