package storage

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"sort"
	"strings"

	"github.com/padd/padd/model"
)

// MaxFieldFilters bounds the field filters of one list.
const MaxFieldFilters = 50

// ListParams are Pad's item-list filters. Field filters AND across keys
// and OR within one key's values.
type ListParams struct {
	Collection      string
	Fields          map[string][]string
	Tag             string
	Parent          string
	Unparented      bool
	Role            string // role slug or id
	Assignee        string
	IncludeArchived bool
	// NonTerminal leaves out items whose done field holds one of their
	// collection's terminal values.
	NonTerminal bool
	Sort        string // "" = pinned, updated_at desc; else "key[:asc|desc],..."
	Limit       int
	Offset      int
	WithContent bool
	// Only, when set, restricts the list to these item ids (search hits).
	Only []string
}

// ListResult is one page.
type ListResult struct {
	Items      []*ItemView
	HasMore    bool
	NextOffset int
	// UndeclaredFilterKeys are filter keys no schema in scope declares but
	// some item stores.
	UndeclaredFilterKeys []string
}

// term is one filter as index streams: an entry under any prefix matches.
// absentOK also matches items that have no value for key.
type term struct {
	prefixes   [][]byte
	count      int64
	collScoped bool
	absentOK   bool
	key        string
}

// ListItems answers a list from the index: it reads the smallest
// matching stream in order and probes the others by key.
func (s *Store) ListItems(ws string, p ListParams) (*ListResult, error) {
	if p.Limit <= 0 {
		p.Limit = 1000
	}
	if p.Offset < 0 {
		p.Offset = 0
	}
	if p.Unparented && p.Parent != "" {
		return nil, model.Invalid("unparented cannot be combined with parent")
	}
	if len(p.Fields) > MaxFieldFilters {
		return nil, model.Invalid("invalid list filter: %d field filters, at most %d", len(p.Fields), MaxFieldFilters)
	}
	out := &ListResult{}
	err := s.read(ws, func(r *rtx) error {
		b := r.ws
		colls := map[string]*model.Collection{}
		cs, err := collectionsOf(b)
		if err != nil {
			return err
		}
		archivedColl := map[string]bool{}
		for _, c := range cs {
			colls[c.ID] = c
			if c.ArchivedAt != nil {
				archivedColl[c.ID] = true
			}
		}
		var coll *model.Collection
		if p.Collection != "" {
			if coll, err = liveCollection(b, p.Collection); err != nil {
				return err
			}
		}
		lives := []byte{lifeLive}
		if p.IncludeArchived {
			lives = []byte{lifeLive, lifeArchived}
		}
		terms, undeclared, err := buildTerms(b, p, coll, cs, lives)
		if err != nil {
			return err
		}
		out.UndeclaredFilterKeys = undeclared

		// The base stream: the collection or the workspace.
		var base term
		for _, l := range lives {
			if coll != nil {
				base.prefixes = append(base.prefixes, collPrefix(mustID(coll.ID), l))
			} else {
				base.prefixes = append(base.prefixes, []byte{kindAll, l})
			}
		}
		base.collScoped = true
		for _, pr := range base.prefixes {
			base.count += countOf(b, pr)
		}
		driver := &base
		for i := range terms {
			if !terms[i].absentOK && terms[i].count < driver.count {
				driver = &terms[i]
			}
		}
		var only map[string]bool
		if p.Only != nil {
			only = map[string]bool{}
			for _, id := range p.Only {
				only[id] = true
			}
		}
		terminal := map[string][][]byte{} // collection id -> terminal-value prefixes
		if p.NonTerminal {
			for _, c := range cs {
				key, terms := model.TerminalOptions(c.Schema, c.Settings)
				for _, t := range terms {
					for _, l := range lives {
						terminal[c.ID] = append(terminal[c.ID], cat([]byte{kindField}, mustID(c.ID), lstr(key), lstr(t), []byte{l}))
					}
				}
			}
		}
		accept := func(suffix []byte, collID []byte) (bool, error) {
			cid := idString(collID)
			if coll != nil && cid != coll.ID {
				return false, nil
			}
			if archivedColl[cid] && !p.IncludeArchived {
				return false, nil
			}
			for _, pr := range terminal[cid] {
				if b.index().Get(cat(pr, suffix)) != nil {
					return false, nil
				}
			}
			id := suffix[9:]
			if only != nil && !only[idString(id)] {
				return false, nil
			}
			var loaded *model.Item
			for i := range terms {
				t := &terms[i]
				if t == driver {
					continue
				}
				hit := false
				for _, pr := range t.prefixes {
					if b.index().Get(cat(pr, suffix)) != nil {
						hit = true
						break
					}
				}
				if !hit && t.absentOK {
					if loaded == nil {
						var err error
						if loaded, err = getItem(b, id, false); err != nil || loaded == nil {
							return false, err
						}
					}
					hit = len(indexValues(loaded.Fields[t.key])) == 0
				}
				if !hit {
					return false, nil
				}
			}
			return true, nil
		}

		if p.Sort == "" {
			return pageInIndexOrder(r, driver, accept, p, colls, out)
		}
		if parts := parseSort(p.Sort); len(parts) == 1 && parts[0].key == "updated_at" && byUpdatedFromIndex {
			return pageByUpdated(r, driver, accept, p, colls, out, parts[0].desc)
		}
		return pageSorted(r, driver, accept, p, colls, out)
	})
	return out, err
}

func buildTerms(b *wsb, p ListParams, coll *model.Collection, cs []*model.Collection, lives []byte) ([]term, []string, error) {
	var terms []term
	var undeclared []string
	var collKey []byte
	if coll != nil {
		collKey = mustID(coll.ID)
	}
	fieldTerm := func(key string, values []string) term {
		t := term{key: key, collScoped: coll != nil}
		for _, v := range values {
			if v == "" {
				t.absentOK = true
				continue
			}
			for _, l := range lives {
				var pr []byte
				if coll != nil {
					pr = cat([]byte{kindField}, collKey, lstr(key), lstr(v), []byte{l})
				} else {
					pr = cat([]byte{kindFieldAll}, lstr(key), lstr(v), []byte{l})
				}
				t.prefixes = append(t.prefixes, pr)
				t.count += countOf(b, pr)
			}
		}
		return t
	}
	keys := make([]string, 0, len(p.Fields))
	for k := range p.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !model.ValidFieldKey(k) {
			return nil, nil, model.Invalid("invalid list filter %q: a filter key may contain only letters, digits, '_' and '-'", k).With("key", k)
		}
		declared := false
		for _, c := range cs {
			if (coll == nil || c.ID == coll.ID) && c.ArchivedAt == nil && c.Schema.Declares(k) {
				declared = true
				break
			}
		}
		if !declared {
			if !keyInUse(b, collKey, k) {
				return nil, nil, model.Invalid("invalid list filter %q: no collection in scope declares it and no item stores it", k).With("key", k)
			}
			undeclared = append(undeclared, k)
		}
		values := p.Fields[k]
		if def, ok := fieldDef(cs, coll, k); ok && def.Type == model.TypeNumber {
			for i, v := range values {
				if n, err := model.DecodeJSON([]byte(v)); err == nil && model.IsNumber(n) {
					values[i] = canonicalNumber(n)
				}
			}
		}
		if len(values) == 0 {
			values = []string{""}
		}
		terms = append(terms, fieldTerm(k, values))
	}
	if p.Tag != "" {
		t := term{collScoped: coll != nil}
		for _, l := range lives {
			var pr []byte
			if coll != nil {
				pr = cat([]byte{kindTag}, collKey, lstr(p.Tag), []byte{l})
			} else {
				pr = cat([]byte{kindTagAll}, lstr(p.Tag), []byte{l})
			}
			t.prefixes = append(t.prefixes, pr)
			t.count += countOf(b, pr)
		}
		terms = append(terms, t)
	}
	if p.Parent != "" {
		id := findItem(b, p.Parent)
		if id == nil {
			return nil, nil, model.NotFound("parent %q names no item in this workspace", p.Parent).With("ref", p.Parent)
		}
		t := term{}
		for _, l := range lives {
			pr := cat([]byte{kindParent}, id, []byte{l})
			t.prefixes = append(t.prefixes, pr)
			t.count += countOf(b, pr)
		}
		terms = append(terms, t)
	}
	if p.Unparented {
		t := term{collScoped: coll != nil}
		for _, l := range lives {
			var pr []byte
			if coll != nil {
				pr = cat([]byte{kindUnparented}, collKey, []byte{l})
			} else {
				pr = []byte{kindUnparAll, l}
			}
			t.prefixes = append(t.prefixes, pr)
			t.count += countOf(b, pr)
		}
		terms = append(terms, t)
	}
	if p.Role != "" {
		id, err := resolveRole(b, p.Role)
		if err != nil {
			return nil, nil, err
		}
		terms = append(terms, fieldTerm(keyRole, []string{id}))
	}
	if p.Assignee != "" {
		terms = append(terms, fieldTerm(keyAssignee, []string{p.Assignee}))
	}
	return terms, undeclared, nil
}

func fieldDef(cs []*model.Collection, coll *model.Collection, key string) (model.FieldDef, bool) {
	for _, c := range cs {
		if coll == nil || c.ID == coll.ID {
			if f, ok := c.Schema.Field(key); ok {
				return f, true
			}
		}
	}
	return model.FieldDef{}, false
}

// merged iterates several index streams in suffix order. An item in
// more than one stream (a multi_select holding two of the OR'd values)
// comes out once.
type merged struct {
	curs []*cursor
	pres [][]byte
	keys [][]byte
	vals [][]byte
	last []byte
	from int  // where in the suffix the comparison starts
	rev  bool // largest first
}

func newMerged(ix *bucket, prefixes [][]byte) *merged { return newMergedOrder(ix, prefixes, 0, false) }

// newMergedOrder merges the streams by their suffixes from byte from on,
// smallest first, or largest first with rev.
func newMergedOrder(ix *bucket, prefixes [][]byte, from int, rev bool) *merged {
	m := &merged{from: from, rev: rev}
	for _, p := range prefixes {
		c := ix.Cursor()
		var k, v []byte
		if rev {
			k, v = seekLast(c, p)
		} else {
			k, v = c.Seek(p)
		}
		m.curs = append(m.curs, c)
		m.pres = append(m.pres, p)
		if k != nil && bytes.HasPrefix(k, p) {
			m.keys = append(m.keys, k)
			m.vals = append(m.vals, v)
		} else {
			m.keys = append(m.keys, nil)
			m.vals = append(m.vals, nil)
		}
	}
	return m
}

// seekLast puts c on the last key with prefix p (or a key before it).
func seekLast(c *cursor, p []byte) ([]byte, []byte) {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			end = end[:i+1]
			if k, _ := c.Seek(end); k != nil {
				return c.Prev()
			}
			return c.Last()
		}
	}
	return c.Last()
}

// next returns the next suffix in the merge's order and its value, or nil
// at the end.
func (m *merged) next() (suffix, val []byte) {
	for {
		suffix, val = m.advance()
		if suffix == nil || !bytes.Equal(suffix, m.last) {
			m.last = suffix
			return suffix, val
		}
	}
}

func (m *merged) advance() (suffix, val []byte) {
	best := -1
	for i, k := range m.keys {
		if k == nil {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		c := bytes.Compare(k[len(k)-suffixLen+m.from:], m.keys[best][len(m.keys[best])-suffixLen+m.from:])
		if (c < 0) != m.rev && c != 0 {
			best = i
		}
	}
	if best < 0 {
		return nil, nil
	}
	k := m.keys[best]
	suffix = append([]byte(nil), k[len(k)-suffixLen:]...)
	val = append([]byte(nil), m.vals[best]...)
	var nk, nv []byte
	if m.rev {
		nk, nv = m.curs[best].Prev()
	} else {
		nk, nv = m.curs[best].Next()
	}
	if nk != nil && bytes.HasPrefix(nk, m.pres[best]) {
		m.keys[best], m.vals[best] = nk, nv
	} else {
		m.keys[best], m.vals[best] = nil, nil
	}
	return suffix, val
}

type acceptFn func(suffix, collID []byte) (bool, error)

func pageInIndexOrder(r *rtx, driver *term, accept acceptFn, p ListParams, colls map[string]*model.Collection, out *ListResult) error {
	m := newMerged(r.ws.index(), driver.prefixes)
	pg := pager{r: r, accept: accept, p: p, colls: colls, out: out}
	for {
		suffix, collID := m.next()
		if suffix == nil {
			break
		}
		if done, err := pg.offer(suffix, collID); done || err != nil {
			return err
		}
	}
	return nil
}

// byUpdatedFromIndex turns pageByUpdated on; its test compares it with
// pageSorted.
var byUpdatedFromIndex = true

// pageByUpdated pages a list sorted by updated_at alone straight from the
// index, whose streams are in (pinned, updated_at descending, id) order:
// it merges each stream's pinned and unpinned halves by (updated_at, id)
// and stops at the page's end, where pageSorted would read every match.
// Ascending, it walks the streams backwards, which gives equal times in
// descending id order: each such run is turned around, so ties still
// break by id ascending, as pageSorted's order does.
func pageByUpdated(r *rtx, driver *term, accept acceptFn, p ListParams, colls map[string]*model.Collection, out *ListResult, desc bool) error {
	var halves [][]byte
	for _, pr := range driver.prefixes {
		halves = append(halves, cat(pr, []byte{0}), cat(pr, []byte{1}))
	}
	m := newMergedOrder(r.ws.index(), halves, 1, !desc)
	pg := pager{r: r, accept: accept, p: p, colls: colls, out: out}
	var run [][2][]byte // ascending: the matches of one updated_at, ids descending
	flush := func() (bool, error) {
		for i := len(run) - 1; i >= 0; i-- {
			if done, err := pg.offer(run[i][0], run[i][1]); done || err != nil {
				return true, err
			}
		}
		run = run[:0]
		return false, nil
	}
	for {
		suffix, collID := m.next()
		if suffix == nil {
			break
		}
		if desc {
			if done, err := pg.offer(suffix, collID); done || err != nil {
				return err
			}
			continue
		}
		if len(run) > 0 && !bytes.Equal(run[0][0][1:9], suffix[1:9]) {
			if done, err := flush(); done || err != nil {
				return err
			}
		}
		run = append(run, [2][]byte{suffix, collID})
	}
	_, err := flush()
	return err
}

// pager fills a page from matches offered in order.
type pager struct {
	r       *rtx
	accept  acceptFn
	p       ListParams
	colls   map[string]*model.Collection
	out     *ListResult
	skipped int
}

// offer takes the next match in order; done says the page is full and
// whether more follow is known.
func (g *pager) offer(suffix, collID []byte) (done bool, err error) {
	ok, err := g.accept(suffix, collID)
	if err != nil || !ok {
		return false, err
	}
	if g.skipped < g.p.Offset {
		g.skipped++
		return false, nil
	}
	if len(g.out.Items) == g.p.Limit {
		g.out.HasMore = true
		g.out.NextOffset = g.p.Offset + len(g.out.Items)
		return true, nil
	}
	it, err := getItem(g.r.ws, suffix[9:], g.p.WithContent)
	if err != nil {
		return true, err
	}
	v, err := view(g.r.ws, it, g.colls)
	if err != nil {
		return true, err
	}
	g.out.Items = append(g.out.Items, v)
	return false, nil
}

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
