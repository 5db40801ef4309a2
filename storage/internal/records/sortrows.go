package records

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"sort"
	"strings"

	"github.com/padd/padd/model"
)

// A list ordered by keys the index does not hold: every match is read as
// far as its sort keys need, ordered, and paged (list.go answers the
// lists the index orders itself).

// PageSorted collects every match of the driver stream, sorts by the
// requested keys and pages. A match is read only as far as its sort keys
// need: updated_at comes from the index key itself, title, created_at,
// number and short text fields from the item's binary summary; only
// sort_order and other field types read the item. Then only the page's
// items are read in full.
func PageSorted(r *Rtx, driver *Term, accept acceptFn, p ListParams, colls map[string]*model.Collection, out *ListResult) error {
	parts := ParseSort(p.Sort)
	needSum, needItem := sortNeeds(parts, colls)
	m := NewMerged(r.WS.Index(), driver.Prefixes)
	var rows []*SortRow
	for {
		suffix, collID := m.Next()
		if suffix == nil {
			break
		}
		if err := r.WS.Check(); err != nil {
			return err
		}
		ok, err := accept(suffix, collID)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		row := &SortRow{ID: suffix[9:], updated: int64(^binary.BigEndian.Uint64(suffix[1:9]))}
		if needItem {
			if row.Item, err = GetItem(r.WS, row.ID, false); err != nil {
				return err
			}
		} else if needSum {
			if row.sum, err = getSum(r.WS, row.ID); err != nil {
				return err
			}
			if row.sum == nil || row.sum.hasLong(parts) { // read the item for what the summary lacks
				if row.Item, err = GetItem(r.WS, row.ID, false); err != nil {
					return err
				}
			}
		}
		rows = append(rows, row)
	}
	if p.Offset >= len(rows) {
		return nil
	}
	end := p.Offset + p.Limit
	if end < len(rows) {
		out.HasMore = true
		out.NextOffset = end
	} else {
		end = len(rows)
	}
	rows = FirstRows(rows, end, func(a, b *SortRow) bool { return RowLess(parts, a, b) })
	for _, row := range rows[p.Offset:end] {
		it, err := GetItem(r.WS, row.ID, p.WithContent)
		if err != nil {
			return err
		}
		v, err := View(r.WS, it, colls)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, v)
	}
	return nil
}

// SortPart is one key of a list's sort: "key[:asc|desc]".
type SortPart struct {
	Key  string
	Desc bool
}

func ParseSort(spec string) []SortPart {
	var parts []SortPart
	for _, seg := range strings.Split(spec, ",") {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		k, dir, _ := strings.Cut(seg, ":")
		parts = append(parts, SortPart{k, strings.EqualFold(dir, "desc")})
	}
	return parts
}

// sortNeeds says what each match must be read for: its summary, or the
// whole item (a sort key the summary does not hold).
func sortNeeds(parts []SortPart, colls map[string]*model.Collection) (sum, item bool) {
	for _, p := range parts {
		switch p.Key {
		case "updated_at":
		case "title", "created_at", "item_number", "number":
			sum = true
		case "sort_order":
			item = true
		default:
			// The summary keeps string fields; a key declared with
			// another type anywhere in scope, or nowhere, needs the item.
			declared := false
			for _, c := range colls {
				if f, ok := c.Schema.Field(p.Key); ok {
					declared = true
					switch f.Type {
					case model.TypeText, model.TypeSelect, model.TypeDate, model.TypeURL, model.TypeRelation:
					default:
						item = true
					}
				}
			}
			if !declared {
				item = true
			}
			sum = true
		}
	}
	return sum, item
}

// SortRow is what ordering needs of one match.
type SortRow struct {
	ID      []byte
	updated int64
	sum     *ItemSum
	Item    *model.Item
	Low     string // lower-cased title, made once: sorting compares it often
	LowDone bool
	fields  []fieldKey // by sort part: a field's key, made on first use
}

// fieldKey is a field value as sorting compares it.
type fieldKey struct {
	val    any    // the stored value, compared as a number when both are
	first  string // else its first index value, as text
	absent bool
	made   bool
}

// key is sort part i's field key, made on first use: later comparisons
// read no summary and allocate nothing.
func (r *SortRow) key(i int, parts []SortPart) fieldKey {
	if r.fields == nil {
		r.fields = make([]fieldKey, len(parts))
	}
	k := &r.fields[i]
	if !k.made {
		*k = fieldKey{made: true}
		v := r.field(parts[i].Key)
		if vals := IndexValues(v); len(vals) == 0 {
			k.absent = true
		} else {
			k.val, k.first = v, vals[0]
		}
	}
	return *k
}

// FirstRows is rows[:n] in less order, the rest dropped. A page deep in
// a large list sorts all rows; a page near the start keeps the n least
// in a heap, about log(n) comparisons a row instead of log(len(rows)).
func FirstRows(rows []*SortRow, n int, less func(a, b *SortRow) bool) []*SortRow {
	if n >= len(rows)/4 {
		sort.Slice(rows, func(i, j int) bool { return less(rows[i], rows[j]) })
		return rows
	}
	h := &rowHeap{less: less, rows: make([]*SortRow, 0, n+1)}
	for _, r := range rows {
		if len(h.rows) < n {
			heap.Push(h, r)
		} else if less(r, h.rows[0]) {
			h.rows[0] = r
			heap.Fix(h, 0)
		}
	}
	top := h.rows
	sort.Slice(top, func(i, j int) bool { return less(top[i], top[j]) })
	return top
}

// rowHeap keeps the greatest of its rows on top: the first to go when a
// lesser one comes.
type rowHeap struct {
	less func(a, b *SortRow) bool
	rows []*SortRow
}

func (h *rowHeap) Len() int { return len(h.rows) }

func (h *rowHeap) Less(i, j int) bool { return h.less(h.rows[j], h.rows[i]) }

func (h *rowHeap) Swap(i, j int) { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }

func (h *rowHeap) Push(x any) { h.rows = append(h.rows, x.(*SortRow)) }

func (h *rowHeap) Pop() any {
	r := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return r
}

func (r *SortRow) title() string {
	if !r.LowDone {
		if r.Item != nil {
			r.Low = strings.ToLower(r.Item.Title)
		} else {
			r.Low = strings.ToLower(r.sum.Title)
		}
		r.LowDone = true
	}
	return r.Low
}

func (r *SortRow) created() int64 {
	if r.Item != nil {
		return r.Item.CreatedAt.Unix()
	}
	return r.sum.CreatedAt.Unix()
}

func (r *SortRow) number() int64 {
	if r.Item != nil {
		return r.Item.Number
	}
	return r.sum.Number
}

func (r *SortRow) field(key string) any {
	if r.Item != nil {
		return r.Item.Fields[key]
	}
	if v, ok, _ := r.sum.Field(key); ok {
		return v
	}
	return nil
}

// hasLong reports whether a field the sort names is too long for the
// summary to hold: that row's item must be read.
func (s *ItemSum) hasLong(parts []SortPart) bool {
	for _, p := range parts {
		if _, ok, long := s.Field(p.Key); ok && long {
			return true
		}
	}
	return false
}

// RowLess orders by the parts, always ending on the id (Pad's rule).
func RowLess(parts []SortPart, a, b *SortRow) bool {
	for i, p := range parts {
		var c int
		switch p.Key {
		case "title":
			c = strings.Compare(a.title(), b.title())
		case "created_at":
			c = compareInt(a.created(), b.created())
		case "updated_at":
			c = compareInt(a.updated, b.updated)
		case "sort_order":
			c = compareInt(a.Item.SortOrder, b.Item.SortOrder)
		case "item_number", "number":
			c = compareInt(a.number(), b.number())
		default:
			ak, bk := a.key(i, parts), b.key(i, parts)
			// Items without the field come last in either direction.
			if ak.absent != bk.absent {
				return bk.absent
			}
			c = compareFieldKeys(ak, bk)
		}
		if p.Desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return bytes.Compare(a.ID, b.ID) < 0
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareFieldKeys orders field values: absent last, numbers
// numerically, everything else as text.
func compareFieldKeys(a, b fieldKey) int {
	switch {
	case a.absent && b.absent:
		return 0
	case a.absent:
		return 1
	case b.absent:
		return -1
	}
	if c, ok := model.CompareNumbers(a.val, b.val); ok {
		return c
	}
	return strings.Compare(a.first, b.first)
}
