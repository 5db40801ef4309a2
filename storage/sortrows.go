package storage

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

// pageSorted collects every match of the driver stream, sorts by the
// requested keys and pages. A match is read only as far as its sort keys
// need: updated_at comes from the index key itself, title, created_at,
// number and short text fields from the item's binary summary; only
// sort_order and other field types read the item. Then only the page's
// items are read in full.
func pageSorted(r *rtx, driver *term, accept acceptFn, p ListParams, colls map[string]*model.Collection, out *ListResult) error {
	parts := parseSort(p.Sort)
	needSum, needItem := sortNeeds(parts, colls)
	m := newMerged(r.ws.index(), driver.prefixes)
	var rows []*sortRow
	for {
		suffix, collID := m.next()
		if suffix == nil {
			break
		}
		if err := r.ws.check(); err != nil {
			return err
		}
		ok, err := accept(suffix, collID)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		row := &sortRow{id: suffix[9:], updated: int64(^binary.BigEndian.Uint64(suffix[1:9]))}
		if needItem {
			if row.item, err = getItem(r.ws, row.id, false); err != nil {
				return err
			}
		} else if needSum {
			if row.sum, err = getSum(r.ws, row.id); err != nil {
				return err
			}
			if row.sum == nil || row.sum.hasLong(parts) { // read the item for what the summary lacks
				if row.item, err = getItem(r.ws, row.id, false); err != nil {
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
	rows = firstRows(rows, end, func(a, b *sortRow) bool { return rowLess(parts, a, b) })
	for _, row := range rows[p.Offset:end] {
		it, err := getItem(r.ws, row.id, p.WithContent)
		if err != nil {
			return err
		}
		v, err := view(r.ws, it, colls)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, v)
	}
	return nil
}

// sortPart is one key of a list's sort: "key[:asc|desc]".
type sortPart struct {
	key  string
	desc bool
}

func parseSort(spec string) []sortPart {
	var parts []sortPart
	for _, seg := range strings.Split(spec, ",") {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		k, dir, _ := strings.Cut(seg, ":")
		parts = append(parts, sortPart{k, strings.EqualFold(dir, "desc")})
	}
	return parts
}

// sortNeeds says what each match must be read for: its summary, or the
// whole item (a sort key the summary does not hold).
func sortNeeds(parts []sortPart, colls map[string]*model.Collection) (sum, item bool) {
	for _, p := range parts {
		switch p.key {
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
				if f, ok := c.Schema.Field(p.key); ok {
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

// sortRow is what ordering needs of one match.
type sortRow struct {
	id      []byte
	updated int64
	sum     *itemSum
	item    *model.Item
	low     string // lower-cased title, made once: sorting compares it often
	lowDone bool
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
func (r *sortRow) key(i int, parts []sortPart) fieldKey {
	if r.fields == nil {
		r.fields = make([]fieldKey, len(parts))
	}
	k := &r.fields[i]
	if !k.made {
		*k = fieldKey{made: true}
		v := r.field(parts[i].key)
		if vals := indexValues(v); len(vals) == 0 {
			k.absent = true
		} else {
			k.val, k.first = v, vals[0]
		}
	}
	return *k
}

// firstRows is rows[:n] in less order, the rest dropped. A page deep in
// a large list sorts all rows; a page near the start keeps the n least
// in a heap, about log(n) comparisons a row instead of log(len(rows)).
func firstRows(rows []*sortRow, n int, less func(a, b *sortRow) bool) []*sortRow {
	if n >= len(rows)/4 {
		sort.Slice(rows, func(i, j int) bool { return less(rows[i], rows[j]) })
		return rows
	}
	h := &rowHeap{less: less, rows: make([]*sortRow, 0, n+1)}
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
	less func(a, b *sortRow) bool
	rows []*sortRow
}

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return h.less(h.rows[j], h.rows[i]) }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(*sortRow)) }
func (h *rowHeap) Pop() any {
	r := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return r
}

func (r *sortRow) title() string {
	if !r.lowDone {
		if r.item != nil {
			r.low = strings.ToLower(r.item.Title)
		} else {
			r.low = strings.ToLower(r.sum.Title)
		}
		r.lowDone = true
	}
	return r.low
}

func (r *sortRow) created() int64 {
	if r.item != nil {
		return r.item.CreatedAt.Unix()
	}
	return r.sum.CreatedAt.Unix()
}

func (r *sortRow) number() int64 {
	if r.item != nil {
		return r.item.Number
	}
	return r.sum.Number
}

func (r *sortRow) field(key string) any {
	if r.item != nil {
		return r.item.Fields[key]
	}
	if v, ok, _ := r.sum.field(key); ok {
		return v
	}
	return nil
}

// hasLong reports whether a field the sort names is too long for the
// summary to hold: that row's item must be read.
func (s *itemSum) hasLong(parts []sortPart) bool {
	for _, p := range parts {
		if _, ok, long := s.field(p.key); ok && long {
			return true
		}
	}
	return false
}

// rowLess orders by the parts, always ending on the id (Pad's rule).
func rowLess(parts []sortPart, a, b *sortRow) bool {
	for i, p := range parts {
		var c int
		switch p.key {
		case "title":
			c = strings.Compare(a.title(), b.title())
		case "created_at":
			c = compareInt(a.created(), b.created())
		case "updated_at":
			c = compareInt(a.updated, b.updated)
		case "sort_order":
			c = compareInt(a.item.SortOrder, b.item.SortOrder)
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
		if p.desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return bytes.Compare(a.id, b.id) < 0
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
