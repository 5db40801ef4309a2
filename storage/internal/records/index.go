package records

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
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
	LifeLive     = 'L'
	LifeArchived = 'A'

	kindColl       = 'c'
	KindAll        = 'w'
	KindField      = 'f'
	KindFieldAll   = 'g'
	kindTag        = 't'
	kindTagAll     = 'T'
	kindParent     = 'p'
	kindUnparented = 'u'
	kindUnparAll   = 'U'
	KindPair       = 'q'

	SuffixLen = 9 + 16

	// PairStatusKey is the done field the (status, rank) pair streams
	// follow. It is the done field of every collection that does not
	// group its board by another select (model.DoneField).
	PairStatusKey = "status"

	// Pseudo field keys for the assignment columns; '@' cannot start a
	// real field key.
	KeyRole     = "@role"
	KeyAssignee = "@assignee"
)

func CollPrefix(coll []byte, life byte) []byte { return Cat([]byte{kindColl}, coll, []byte{life}) }

// UnparentedPrefix is the stream of a collection's items with no parent
// and no implements link (IsUnparented).
func UnparentedPrefix(coll []byte, life byte) []byte {
	return Cat([]byte{kindUnparented}, coll, []byte{life})
}

func SortKey(it *model.Item) []byte {
	b := make([]byte, 9)
	if !it.Pinned {
		b[0] = 1
	}
	binary.BigEndian.PutUint64(b[1:], ^uint64(it.UpdatedAt.Unix()))
	return b
}

// IndexValues is how a field value appears in the index and in filters:
// scalars as text (numbers canonical), lists element by element.
func IndexValues(v any) []string {
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
			out = append(out, IndexValues(e)...)
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
		return []string{CanonicalNumber(v)}
	}
	return nil
}

func CanonicalNumber(v any) string {
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

// ItemStreams lists the stream prefixes an item belongs to.
func ItemStreams(it *model.Item, unparented bool) [][]byte {
	life := byte(LifeLive)
	if it.DeletedAt != nil {
		life = LifeArchived
	}
	coll := MustID(it.CollectionID)
	L := []byte{life}
	out := [][]byte{
		Cat([]byte{kindColl}, coll, L),
		Cat([]byte{KindAll}, L),
	}
	addField := func(k, v string) {
		out = append(out,
			Cat([]byte{KindField}, coll, Lstr(k), Lstr(v), L),
			Cat([]byte{KindFieldAll}, Lstr(k), Lstr(v), L))
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
		vals := IndexValues(it.Fields[k])
		for i, v := range vals {
			if !slices.Contains(vals[:i], v) {
				addField(k, v)
			}
		}
	}
	out = append(out, PairStreams(coll, it.Fields, life)...)
	if it.AgentRoleID != "" {
		addField(KeyRole, it.AgentRoleID)
	}
	if it.AssignedUserID != "" {
		addField(KeyAssignee, it.AssignedUserID)
	}
	for i, t := range it.Tags {
		if t == "" || slices.Contains(it.Tags[:i], t) {
			continue
		}
		out = append(out, Cat([]byte{kindTag}, coll, Lstr(t), L), Cat([]byte{kindTagAll}, Lstr(t), L))
	}
	if it.ParentID != "" {
		out = append(out, Cat([]byte{kindParent}, MustID(it.ParentID), L))
	}
	if unparented {
		out = append(out, Cat([]byte{kindUnparented}, coll, L), Cat([]byte{kindUnparAll}, L))
	}
	return out
}

// PairStreams are the streams of an item's (status, rank) value pairs,
// one per rank key it holds (model.RankKey). next and ready read the
// pair streams of exactly the statuses and ranks a tier wants; with
// one stream per field they would read one and probe the other per
// entry, and once agents have closed the top of the backlog the
// newest entries of a rank's stream are all closed items, rejected one
// probe at a time.
func PairStreams(coll []byte, fields map[string]any, life byte) [][]byte {
	statuses := IndexValues(fields[PairStatusKey])
	if len(statuses) == 0 {
		return nil
	}
	var out [][]byte
	for _, rk := range model.RankKeys {
		ranks := IndexValues(fields[rk])
		for i, s := range statuses {
			if slices.Contains(statuses[:i], s) {
				continue
			}
			for j, r := range ranks {
				if !slices.Contains(ranks[:j], r) {
					out = append(out, PairStream(coll, rk, s, r, life))
				}
			}
		}
	}
	return out
}

// PairStream is the stream of a collection's items whose status is
// status and whose rank field rankKey holds rank.
func PairStream(coll []byte, rankKey, status, rank string, life byte) []byte {
	return Cat([]byte{KindPair}, coll, Lstr(rankKey), Lstr(status), Lstr(rank), []byte{life})
}

func AddCount(counts interface {
	Get([]byte) []byte
	Put([]byte, []byte) error
	Delete([]byte) error
}, prefix []byte, d int64) error {
	n := int64(GetU64(counts.Get(prefix))) + d
	if n <= 0 {
		return counts.Delete(prefix)
	}
	return counts.Put(prefix, U64(uint64(n)))
}

// FieldValueCounts returns, for live items of a collection, how many hold
// each value of a field.
func FieldValueCounts(b *Wsb, collID, key string) map[string]int {
	out := map[string]int{}
	p := Cat([]byte{KindField}, MustID(collID), Lstr(key))
	c := b.Counts().Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		rest := k[len(p):]
		if len(rest) < 3 || rest[len(rest)-1] != LifeLive {
			continue
		}
		n := int(binary.BigEndian.Uint16(rest))
		if len(rest) != 2+n+1 {
			continue
		}
		out[string(rest[2:2+n])] = int(GetU64(v))
	}
	return out
}

// KeyCounts is one field key's counts over a collection's live items.
type KeyCounts struct {
	Key string
	// Total sums the counts of every value: the holders of a scalar key;
	// a list key counts an item once per element.
	Total int
	// Distinct is how many values the items hold under Key.
	Distinct int
	// Values are the counts of the first values in the index's order,
	// at most the read's bound.
	Values map[string]int
}

// CollFieldCounts reads, for the live items of a collection, the counts
// of each value of each field key, the assignment pseudo keys (KeyRole,
// KeyAssignee) included. It reads the collection's entries of the
// counts bucket, one per distinct (key, value, life) its items hold, and
// no item; it keeps at most maxKeys keys (more says so) and maxValues
// values a key (Distinct and Total count them all).
func CollFieldCounts(b *Wsb, collID string, maxKeys, maxValues int) (keys []KeyCounts, more bool, err error) {
	p := Cat([]byte{KindField}, MustID(collID))
	c := b.Counts().Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if err := b.Check(); err != nil {
			return nil, false, err
		}
		key, rest, ok := cutLstr(k[len(p):])
		if !ok {
			continue
		}
		value, rest, ok := cutLstr(rest)
		if !ok || len(rest) != 1 || rest[0] != LifeLive {
			continue
		}
		if len(keys) == 0 || keys[len(keys)-1].Key != key {
			if len(keys) == maxKeys {
				return keys, true, nil
			}
			keys = append(keys, KeyCounts{Key: key, Values: map[string]int{}})
		}
		kc := &keys[len(keys)-1]
		n := int(GetU64(v))
		kc.Total += n
		kc.Distinct++
		if len(kc.Values) < maxValues {
			kc.Values[value] = n
		}
	}
	return keys, false, nil
}

// FieldHolders counts the live items of a collection holding a value
// under key, each item once, from the list index's entries of the key
// (no item is read): for a list field, whose items count once per
// element in the counts.
func FieldHolders(b *Wsb, collID, key string) (int, error) {
	seen := map[string]bool{}
	p := Cat([]byte{KindField}, MustID(collID), Lstr(key))
	c := b.Index().Cursor()
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		if err := b.Check(); err != nil {
			return 0, err
		}
		_, rest, ok := cutLstr(k[len(p):])
		if ok && len(rest) == 1+SuffixLen && rest[0] == LifeLive {
			seen[string(k[len(k)-16:])] = true
		}
	}
	return len(seen), nil
}

// cutLstr splits an Lstr off the front of b.
func cutLstr(b []byte) (s string, rest []byte, ok bool) {
	if len(b) < 2 {
		return "", nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	if len(b) < 2+n {
		return "", nil, false
	}
	return string(b[2 : 2+n]), b[2+n:], true
}

// keyInUse reports whether any item (live or archived) in scope stores
// a value under key; coll nil means the whole workspace.
func keyInUse(b *Wsb, coll []byte, key string) bool {
	var p []byte
	if coll != nil {
		p = Cat([]byte{KindField}, coll, Lstr(key))
	} else {
		p = Cat([]byte{KindFieldAll}, Lstr(key))
	}
	k, _ := b.Counts().Cursor().Seek(p)
	return k != nil && bytes.HasPrefix(k, p)
}

// CheckListIndex is the list index's consistency check, as bbolt's Check
// is the file's: the entries and counts kept on write must equal the ones
// computed afresh from the stored items (ItemStreams), entry for entry.
// It answers what differs, nothing when the index is whole; the tests of
// every package that writes items call it.
func CheckListIndex(b *Wsb) ([]string, error) {
	want, wantCounts := map[string]string{}, map[string]int64{}
	c := b.Items().Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		it, err := GetItem(b, k, false)
		if err != nil {
			return nil, err
		}
		for _, p := range ItemStreams(it, IsUnparented(b, it)) {
			want[string(Cat(p, SortKey(it), k))] = string(MustID(it.CollectionID))
			wantCounts[string(p)]++
		}
	}
	got, gotCounts := map[string]string{}, map[string]int64{}
	if err := b.Index().ForEach(func(k, v []byte) error { got[string(k)] = string(v); return nil }); err != nil {
		return nil, err
	}
	if err := b.Counts().ForEach(func(k, v []byte) error { gotCounts[string(k)] = int64(GetU64(v)); return nil }); err != nil {
		return nil, err
	}
	var problems []string
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			problems = append(problems, fmt.Sprintf("list index lacks %q (or holds the wrong collection)", k))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			problems = append(problems, fmt.Sprintf("list index holds %q, which no item has", k))
		}
	}
	for p, n := range wantCounts {
		if gotCounts[p] != n {
			problems = append(problems, fmt.Sprintf("count of stream %q is %d, want %d", p, gotCounts[p], n))
		}
	}
	for p, n := range gotCounts {
		if _, ok := wantCounts[p]; !ok {
			problems = append(problems, fmt.Sprintf("count of stream %q is %d, but no item is in it", p, n))
		}
	}
	sort.Strings(problems)
	return problems, nil
}
