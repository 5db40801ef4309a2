package records

import (
	"bytes"
	"context"
	"sort"

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

// Term is one filter as index streams: an entry under any prefix matches.
// absentOK also matches items that have no value for key.
type Term struct {
	Prefixes   [][]byte
	Count      int64
	CollScoped bool
	AbsentOK   bool
	Key        string
}

func BuildTerms(b *Wsb, p ListParams, coll *model.Collection, cs []*model.Collection, lives []byte) ([]Term, []string, error) {
	var terms []Term
	var undeclared []string
	var collKey []byte
	if coll != nil {
		collKey = MustID(coll.ID)
	}
	fieldTerm := func(key string, values []string) Term {
		t := Term{Key: key, CollScoped: coll != nil}
		for _, v := range values {
			if v == "" {
				t.AbsentOK = true
				continue
			}
			for _, l := range lives {
				var pr []byte
				if coll != nil {
					pr = Cat([]byte{KindField}, collKey, Lstr(key), Lstr(v), []byte{l})
				} else {
					pr = Cat([]byte{KindFieldAll}, Lstr(key), Lstr(v), []byte{l})
				}
				t.Prefixes = append(t.Prefixes, pr)
				t.Count += CountOf(b, pr)
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
		if err := model.CheckFilterValues(fieldDefs(cs, coll, k), values); err != nil {
			return nil, nil, err
		}
		if def, ok := fieldDef(cs, coll, k); ok && def.Type == model.TypeNumber {
			for i, v := range values {
				if n, err := model.DecodeJSON([]byte(v)); err == nil && model.IsNumber(n) {
					values[i] = CanonicalNumber(n)
				}
			}
		}
		if len(values) == 0 {
			values = []string{""}
		}
		terms = append(terms, fieldTerm(k, values))
	}
	if p.Tag != "" {
		t := Term{CollScoped: coll != nil}
		for _, l := range lives {
			var pr []byte
			if coll != nil {
				pr = Cat([]byte{kindTag}, collKey, Lstr(p.Tag), []byte{l})
			} else {
				pr = Cat([]byte{kindTagAll}, Lstr(p.Tag), []byte{l})
			}
			t.Prefixes = append(t.Prefixes, pr)
			t.Count += CountOf(b, pr)
		}
		terms = append(terms, t)
	}
	if p.Parent != "" {
		id := FindItem(b, p.Parent)
		if id == nil {
			return nil, nil, model.NotFound("parent %q names no item in this workspace", p.Parent).With("ref", p.Parent)
		}
		t := Term{}
		for _, l := range lives {
			pr := Cat([]byte{kindParent}, id, []byte{l})
			t.Prefixes = append(t.Prefixes, pr)
			t.Count += CountOf(b, pr)
		}
		terms = append(terms, t)
	}
	if p.Unparented {
		t := Term{CollScoped: coll != nil}
		for _, l := range lives {
			var pr []byte
			if coll != nil {
				pr = Cat([]byte{kindUnparented}, collKey, []byte{l})
			} else {
				pr = []byte{kindUnparAll, l}
			}
			t.Prefixes = append(t.Prefixes, pr)
			t.Count += CountOf(b, pr)
		}
		terms = append(terms, t)
	}
	if p.Role != "" {
		id, err := ResolveRole(b, p.Role)
		if err != nil {
			return nil, nil, err
		}
		terms = append(terms, fieldTerm(KeyRole, []string{id}))
	}
	if p.Assignee != "" {
		terms = append(terms, fieldTerm(KeyAssignee, []string{p.Assignee}))
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

// fieldDefs is key's declaration in each live collection in scope that
// declares it.
func fieldDefs(cs []*model.Collection, coll *model.Collection, key string) []model.FieldDef {
	var out []model.FieldDef
	for _, c := range cs {
		if (coll == nil || c.ID == coll.ID) && c.ArchivedAt == nil {
			if f, ok := c.Schema.Field(key); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// merged iterates several index streams in suffix order. An item in
// more than one stream (a multi_select holding two of the OR'd values)
// comes out once.
type merged struct {
	curs []*Cursor
	pres [][]byte
	keys [][]byte
	vals [][]byte
	last []byte
	from int  // where in the suffix the comparison starts
	rev  bool // largest first
}

func NewMerged(ix *Bucket, prefixes [][]byte) *merged { return newMergedOrder(ix, prefixes, 0, false) }

// newMergedOrder merges the streams by their suffixes from byte from on,
// smallest first, or largest first with rev.
func newMergedOrder(ix *Bucket, prefixes [][]byte, from int, rev bool) *merged {
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
func seekLast(c *Cursor, p []byte) ([]byte, []byte) {
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

// Next returns the next suffix in the merge's order and its value, or nil
// at the end.
func (m *merged) Next() (suffix, val []byte) {
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
		c := bytes.Compare(k[len(k)-SuffixLen+m.from:], m.keys[best][len(m.keys[best])-SuffixLen+m.from:])
		if (c < 0) != m.rev && c != 0 {
			best = i
		}
	}
	if best < 0 {
		return nil, nil
	}
	k := m.keys[best]
	suffix = append([]byte(nil), k[len(k)-SuffixLen:]...)
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

func PageInIndexOrder(r *Rtx, driver *Term, accept acceptFn, p ListParams, colls map[string]*model.Collection, out *ListResult) error {
	m := NewMerged(r.WS.Index(), driver.Prefixes)
	pg := pager{r: r, accept: accept, p: p, colls: colls, out: out}
	for {
		suffix, collID := m.Next()
		if suffix == nil {
			break
		}
		if done, err := pg.offer(suffix, collID); done || err != nil {
			return err
		}
	}
	return nil
}

// ByUpdatedFromIndex turns pageByUpdated on; its test compares it with
// pageSorted.
var ByUpdatedFromIndex = true

// PageByUpdated pages a list sorted by updated_at alone straight from the
// index, whose streams are in (pinned, updated_at descending, id) order:
// it merges each stream's pinned and unpinned halves by (updated_at, id)
// and stops at the page's end, where pageSorted would read every match.
// Ascending, it walks the streams backwards, which gives equal times in
// descending id order: each such run is turned around, so ties still
// break by id ascending, as pageSorted's order does.
func PageByUpdated(r *Rtx, driver *Term, accept acceptFn, p ListParams, colls map[string]*model.Collection, out *ListResult, desc bool) error {
	var halves [][]byte
	for _, pr := range driver.Prefixes {
		halves = append(halves, Cat(pr, []byte{0}), Cat(pr, []byte{1}))
	}
	m := newMergedOrder(r.WS.Index(), halves, 1, !desc)
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
		suffix, collID := m.Next()
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
	r       *Rtx
	accept  acceptFn
	p       ListParams
	colls   map[string]*model.Collection
	out     *ListResult
	skipped int
}

// offer takes the next match in order; done says the page is full and
// whether more follow is known.
func (g *pager) offer(suffix, collID []byte) (done bool, err error) {
	if err := g.r.WS.Check(); err != nil {
		return true, err
	}
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
	it, err := GetItem(g.r.WS, suffix[9:], g.p.WithContent)
	if err != nil {
		return true, err
	}
	v, err := View(g.r.WS, it, g.colls)
	if err != nil {
		return true, err
	}
	g.out.Items = append(g.out.Items, v)
	return false, nil
}

// ReadList answers a list from the index: it reads the smallest
// matching stream in order and probes the others by key.
func ReadList(ctx context.Context, b *Base, ws string, p ListParams) (*ListResult, error) {
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
	err := b.ReadCtx(ctx, ws, func(r *Rtx) error {
		b := r.WS
		colls := map[string]*model.Collection{}
		cs, err := CollectionsOf(b)
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
			if coll, err = LiveCollection(b, p.Collection); err != nil {
				return err
			}
		}
		lives := []byte{LifeLive}
		if p.IncludeArchived {
			lives = []byte{LifeLive, LifeArchived}
		}
		terms, undeclared, err := BuildTerms(b, p, coll, cs, lives)
		if err != nil {
			return err
		}
		out.UndeclaredFilterKeys = undeclared

		// The base stream: the collection or the workspace.
		var base Term
		for _, l := range lives {
			if coll != nil {
				base.Prefixes = append(base.Prefixes, CollPrefix(MustID(coll.ID), l))
			} else {
				base.Prefixes = append(base.Prefixes, []byte{KindAll, l})
			}
		}
		base.CollScoped = true
		for _, pr := range base.Prefixes {
			base.Count += CountOf(b, pr)
		}
		driver := &base
		for i := range terms {
			if !terms[i].AbsentOK && terms[i].Count < driver.Count {
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
						terminal[c.ID] = append(terminal[c.ID], Cat([]byte{KindField}, MustID(c.ID), Lstr(key), Lstr(t), []byte{l}))
					}
				}
			}
		}
		accept := func(suffix []byte, collID []byte) (bool, error) {
			cid := IDString(collID)
			if coll != nil && cid != coll.ID {
				return false, nil
			}
			if archivedColl[cid] && !p.IncludeArchived {
				return false, nil
			}
			for _, pr := range terminal[cid] {
				if b.Index().Get(Cat(pr, suffix)) != nil {
					return false, nil
				}
			}
			id := suffix[9:]
			if only != nil && !only[IDString(id)] {
				return false, nil
			}
			var loaded *model.Item
			for i := range terms {
				t := &terms[i]
				if t == driver {
					continue
				}
				hit := false
				for _, pr := range t.Prefixes {
					if b.Index().Get(Cat(pr, suffix)) != nil {
						hit = true
						break
					}
				}
				if !hit && t.AbsentOK {
					if loaded == nil {
						var err error
						if loaded, err = GetItem(b, id, false); err != nil || loaded == nil {
							return false, err
						}
					}
					hit = len(IndexValues(loaded.Fields[t.Key])) == 0
				}
				if !hit {
					return false, nil
				}
			}
			return true, nil
		}

		if p.Sort == "" {
			return PageInIndexOrder(r, driver, accept, p, colls, out)
		}
		if parts := ParseSort(p.Sort); len(parts) == 1 && parts[0].Key == "updated_at" && ByUpdatedFromIndex {
			return PageByUpdated(r, driver, accept, p, colls, out, parts[0].Desc)
		}
		return PageSorted(r, driver, accept, p, colls, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
