package records

import (
	"bytes"
	"encoding/binary"
	"sort"
	"time"

	"github.com/padd/padd/model"
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

var (
	BSums      = []byte("isum")
	BVCounts   = []byte("vcounts")
	BDue       = []byte("due")
	BBlk       = []byte("blk")
	BLeases    = []byte("leases")
	BReminders = []byte("reminders")
	BRemItem   = []byte("rem_item")
	BRemFired  = []byte("rem_fired")
	BSeen      = []byte("seen")
	BRemDue    = []byte("rem_due")
)

// Scoped-count kinds and the pseudo key of a scope's total.
const (
	KindParentValue = 'q'
	KindRoleValue   = 'r'
	KeyScopeTotal   = "@n"
)

// SumLongValue is the longest field value a summary keeps; a longer one
// is kept as "long" and a reader that needs it reads the item.
const SumLongValue = 256

const sumFormat1 = 1

// ItemSum is an item's summary: what the views show and rank by.
type ItemSum struct {
	ID, CollectionID             string
	Archived, Pinned             bool
	Number                       int64
	CreatedAt, UpdatedAt         time.Time
	ParentID, RoleID, AssignedTo string
	Slug, Title                  string
	fields                       []sumField // by key
}

type sumField struct {
	key, value string
	long       bool
}

// Field returns a string field's value; long says it was too long to
// keep (read the item for it).
func (s *ItemSum) Field(key string) (v string, ok, long bool) {
	i := sort.Search(len(s.fields), func(i int) bool { return s.fields[i].key >= key })
	if i < len(s.fields) && s.fields[i].key == key {
		f := s.fields[i]
		return f.value, true, f.long
	}
	return "", false, false
}

func EncodeSum(it *model.Item) []byte {
	b := make([]byte, 0, 160)
	b = append(b, sumFormat1)
	b = append(b, MustID(it.CollectionID)...)
	var flags byte
	if it.DeletedAt != nil {
		flags |= 1
	}
	if it.Pinned {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, it.Number)
	b = binary.AppendVarint(b, it.CreatedAt.Unix())
	b = binary.AppendVarint(b, it.UpdatedAt.Unix())
	for _, id := range []string{it.ParentID, it.AgentRoleID} {
		b = appendID(b, id)
	}
	for _, s := range []string{it.AssignedUserID, it.Slug, it.Title} {
		b = AppendStr(b, s)
	}
	keys := make([]string, 0, len(it.Fields))
	for k, v := range it.Fields {
		if _, isStr := v.(string); isStr && !model.IsReservedField(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		v := it.Fields[k].(string)
		b = AppendStr(b, k)
		if len(v) > SumLongValue {
			b = append(b, 1)
			v = ""
		} else {
			b = append(b, 0)
		}
		b = AppendStr(b, v)
	}
	return b
}

func DecodeSum(id, raw []byte) (*ItemSum, error) {
	bad := func() (*ItemSum, error) {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "the summary of item %s is unreadable", IDString(id))
	}
	if len(raw) < 1+16+1 || raw[0] != sumFormat1 {
		return bad()
	}
	s := &ItemSum{ID: IDString(id), CollectionID: IDString(raw[1:17])}
	flags := raw[17]
	s.Archived, s.Pinned = flags&1 != 0, flags&2 != 0
	r := reader{b: raw[18:]}
	s.Number = r.varint()
	s.CreatedAt = time.Unix(r.varint(), 0).UTC()
	s.UpdatedAt = time.Unix(r.varint(), 0).UTC()
	s.ParentID, s.RoleID = r.id(), r.id()
	s.AssignedTo, s.Slug, s.Title = r.str(), r.str(), r.str()
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return bad()
	}
	s.fields = make([]sumField, 0, n)
	for range n {
		f := sumField{key: r.str()}
		if len(r.b) == 0 {
			return bad()
		}
		f.long = r.b[0] == 1
		r.b = r.b[1:]
		f.value = r.str()
		s.fields = append(s.fields, f)
	}
	if r.bad {
		return bad()
	}
	return s, nil
}

// getSum reads an item's summary; nil when there is none.
func getSum(b *Wsb, id []byte) (*ItemSum, error) {
	raw := b.Sums().Get(id)
	if raw == nil {
		return nil, nil
	}
	return DecodeSum(id, raw)
}

// SumCache reads summaries once per read transaction.
type SumCache struct {
	b    *Wsb
	sums map[string]*ItemSum
}

func NewSumCache(b *Wsb) *SumCache { return &SumCache{b: b, sums: map[string]*ItemSum{}} }

func (c *SumCache) Get(id []byte) (*ItemSum, error) {
	if s, ok := c.sums[string(id)]; ok {
		return s, nil
	}
	s, err := getSum(c.b, id)
	if err != nil {
		return nil, err
	}
	c.sums[string(id)] = s
	return s, nil
}

// stringFields lists an item's non-reserved string fields, sorted: the
// values the scoped counts key on.
func stringFields(it *model.Item) [][2]string {
	var out [][2]string
	for k, v := range it.Fields {
		if s, ok := v.(string); ok && s != "" && !model.IsReservedField(k) {
			out = append(out, [2]string{k, s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func LifeOf(it *model.Item) byte {
	if it.DeletedAt != nil {
		return LifeArchived
	}
	return LifeLive
}

func ScopeKey(kind byte, scope, coll []byte, key, value string, life byte) []byte {
	return Cat([]byte{kind}, scope, coll, Lstr(key), Lstr(value), []byte{life})
}

// scopedCountKeys are the vcounts entries an item adds to.
func scopedCountKeys(it *model.Item) map[string]bool {
	out := map[string]bool{}
	if it == nil {
		return out
	}
	coll, life := MustID(it.CollectionID), LifeOf(it)
	fields := stringFields(it)
	if p, ok := IDKey(it.ParentID); ok {
		out[string(ScopeKey(KindParentValue, p, coll, KeyScopeTotal, "", life))] = true
		for _, f := range fields {
			out[string(ScopeKey(KindParentValue, p, coll, f[0], f[1], life))] = true
		}
	}
	if r, ok := IDKey(it.AgentRoleID); ok {
		for _, f := range fields {
			out[string(ScopeKey(KindRoleValue, r, coll, f[0], f[1], life))] = true
		}
	}
	return out
}

// dueKeyOf is an item's due-index key, or nil: live items with a due
// day. key is the field it came from.
func dueKeyOf(it *model.Item) (k []byte, key string) {
	if it == nil || it.DeletedAt != nil {
		return nil, ""
	}
	day, key := model.EarliestDue(func(k string) (string, bool) {
		v, ok := it.Fields[k].(string)
		return v, ok
	})
	if day == "" {
		return nil, ""
	}
	return Cat([]byte(day), MustID(it.ID)), key
}

// PutProjectRecords moves an item's view records from old to new (either may
// be nil). colls caches collections across calls (may be nil).
func PutProjectRecords(b *Wsb, old, new *model.Item, colls map[string]*model.Collection) error {
	if new == nil {
		if err := b.Sums().Delete(MustID(old.ID)); err != nil {
			return err
		}
	} else if err := b.Sums().Put(MustID(new.ID), EncodeSum(new)); err != nil {
		return err
	}
	before, after := scopedCountKeys(old), scopedCountKeys(new)
	for k := range before {
		if !after[k] {
			if err := b.addVCount([]byte(k), -1); err != nil {
				return err
			}
		}
	}
	for k := range after {
		if !before[k] {
			if err := b.addVCount([]byte(k), 1); err != nil {
				return err
			}
		}
	}
	od, _ := dueKeyOf(old)
	nd, dueKey := dueKeyOf(new)
	if od != nil && !bytes.Equal(od, nd) {
		if err := b.Due().Delete(od); err != nil {
			return err
		}
	}
	if nd != nil {
		// Only items with a due day pay for reading their collection: the
		// entry carries the done value so the overdue scan classifies each
		// entry without reading its item.
		side, err := blkSideOf(b, new, colls)
		if err != nil {
			return err
		}
		if err := b.Due().Put(nd, Cat(side.Coll, Lstr(side.DoneKey), Lstr(side.Done), Lstr(dueKey))); err != nil {
			return err
		}
	}
	if new != nil {
		return putBlkEnds(b, new, colls)
	}
	return nil
}

// collOfItem reads an item's collection through the cache (may be nil).
func collOfItem(b *Wsb, it *model.Item, colls map[string]*model.Collection) (*model.Collection, error) {
	if c := colls[it.CollectionID]; c != nil {
		return c, nil
	}
	c, err := GetCollection(b, MustID(it.CollectionID))
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, ErrInternal("item %s names a missing collection", it.ID)
	}
	if colls != nil {
		colls[c.ID] = c
	}
	return c, nil
}

// BlkSide is one end of a blocking link as blk stores it.
type BlkSide struct {
	Coll    []byte
	Life    byte
	DoneKey string
	Done    string
}

func blkSideOf(b *Wsb, it *model.Item, colls map[string]*model.Collection) (BlkSide, error) {
	c, err := collOfItem(b, it, colls)
	if err != nil {
		return BlkSide{}, err
	}
	key := model.DoneField(c.Schema, c.Settings)
	return BlkSide{Coll: MustID(c.ID), Life: LifeOf(it), DoneKey: key, Done: StrField(it.Fields, key)}, nil
}

func appendBlkSide(v []byte, s BlkSide) []byte {
	return append(append(append(v, s.Coll...), s.Life), Cat(Lstr(s.DoneKey), Lstr(s.Done))...)
}

func encodeBlk(source []byte, src, tgt BlkSide) []byte {
	return appendBlkSide(appendBlkSide(append([]byte(nil), source...), src), tgt)
}

func readBlkSide(v []byte) (BlkSide, []byte, bool) {
	if len(v) < 17 {
		return BlkSide{}, nil, false
	}
	s := BlkSide{Coll: v[:16], Life: v[16]}
	rest := v[17:]
	for _, dst := range []*string{&s.DoneKey, &s.Done} {
		if len(rest) < 2 {
			return BlkSide{}, nil, false
		}
		n := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+n {
			return BlkSide{}, nil, false
		}
		*dst, rest = string(rest[2:2+n]), rest[2+n:]
	}
	return s, rest, true
}

func DecodeBlk(v []byte) (source []byte, src, tgt BlkSide, ok bool) {
	if len(v) < 16 {
		return nil, src, tgt, false
	}
	source = v[:16]
	src, rest, ok := readBlkSide(v[16:])
	if !ok {
		return nil, src, tgt, false
	}
	tgt, rest, ok = readBlkSide(rest)
	return source, src, tgt, ok && len(rest) == 0
}

// putBlkEnds rewrites the blk entries of the links it is an end of: its
// side of each, as it stands after the write. Most items have no
// blocking link and pay two cursor seeks.
func putBlkEnds(b *Wsb, it *model.Item, colls map[string]*model.Collection) error {
	id := MustID(it.ID)
	var asTarget [][]byte
	c := b.Blk().Cursor()
	for k, _ := c.Seek(id); k != nil && bytes.HasPrefix(k, id); k, _ = c.Next() {
		asTarget = append(asTarget, append([]byte(nil), k...))
	}
	asSource := EdgesOf(b.LinkSrc(), id, model.LinkBlocks)
	if len(asTarget) == 0 && len(asSource) == 0 {
		return nil
	}
	side, err := blkSideOf(b, it, colls)
	if err != nil {
		return err
	}
	rewrite := func(k []byte, asSrc bool) error {
		v := b.Blk().Get(k)
		if v == nil {
			return nil // the link's own write makes the entry
		}
		source, src, tgt, ok := DecodeBlk(v)
		if !ok {
			return ErrInternal("blocking-edge record %x is unreadable", k)
		}
		if asSrc {
			src = side
		} else {
			tgt = side
		}
		return b.Blk().Put(k, encodeBlk(source, src, tgt))
	}
	for _, k := range asTarget {
		if err := rewrite(k, false); err != nil {
			return err
		}
	}
	for _, e := range asSource {
		if err := rewrite(Cat(e.Other, e.LinkID), true); err != nil {
			return err
		}
	}
	return nil
}

// PutBlkLink writes or (when the link is gone) removes a blocks link's
// blk entry.
func PutBlkLink(b *Wsb, l *model.Link, colls map[string]*model.Collection) error {
	if l.Type != model.LinkBlocks {
		return nil
	}
	k := Cat(MustID(l.TargetID), MustID(l.ID))
	if b.Links().Get(MustID(l.ID)) == nil {
		return b.Blk().Delete(k)
	}
	var sides [2]BlkSide
	for i, id := range []string{l.SourceID, l.TargetID} {
		it, err := GetItem(b, MustID(id), false)
		if err != nil {
			return err
		}
		if it == nil {
			return ErrInternal("link %s names missing item %s", l.ID, id)
		}
		if sides[i], err = blkSideOf(b, it, colls); err != nil {
			return err
		}
	}
	return b.Blk().Put(k, encodeBlk(MustID(l.SourceID), sides[0], sides[1]))
}

// dueEntry is a decoded due-index entry.
type dueEntry struct {
	Day     string
	ID      []byte
	Coll    []byte
	DoneKey string
	Done    string
	DueKey  string
}

func DecodeDue(k, v []byte) (dueEntry, bool) {
	if len(k) != 10+16 || len(v) < 16 {
		return dueEntry{}, false
	}
	e := dueEntry{Day: string(k[:10]), ID: k[10:], Coll: v[:16]}
	rest := v[16:]
	for _, dst := range []*string{&e.DoneKey, &e.Done, &e.DueKey} {
		if len(rest) < 2 {
			return dueEntry{}, false
		}
		n := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+n {
			return dueEntry{}, false
		}
		*dst, rest = string(rest[2:2+n]), rest[2+n:]
	}
	return e, true
}

// RebuildProjectRecords recomputes a workspace's view records from its items:
// the layout migration that introduced them, and a repair.
func RebuildProjectRecords(tx *Txn, wsID string) error {
	root := tx.Bucket(BWS).Bucket(MustID(wsID))
	for _, name := range [][]byte{BSums, BVCounts, BDue, BBlk} {
		if root.Bucket(name) != nil {
			if err := root.DeleteBucket(name); err != nil {
				return err
			}
		}
		if _, err := root.CreateBucket(name); err != nil {
			return err
		}
	}
	b := OpenWS(tx, wsID)
	colls := map[string]*model.Collection{}
	c := b.Items().Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		it, err := GetItem(b, k, false)
		if err != nil {
			return err
		}
		if err := PutProjectRecords(b, nil, it, colls); err != nil {
			return err
		}
	}
	lc := b.Links().Cursor()
	for k, _ := lc.First(); k != nil; k, _ = lc.Next() {
		l, err := GetLink(b, k)
		if err != nil {
			return err
		}
		if err := PutBlkLink(b, l, colls); err != nil {
			return err
		}
	}
	return nil
}
