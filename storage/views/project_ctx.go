package views

import (
	"bytes"
	"context"
	"encoding/binary"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// The project views read the list index and the records of project_records.go.
// A view never walks a workspace's items: it reads the index streams of
// the statuses it wants (each already ordered pinned-first, then by
// updated_at), probes the other conditions by key, and reads a
// summary only for what it keeps.

// vcoll is a collection as the views classify its items.
type vcoll struct {
	*model.Collection
	key     []byte // the id as 16 bytes
	doneKey string
	terms   []string
	rankKey string
	work    bool // live and tracking work: its open items are open work
	suggest bool // its open items may be suggested (model.SuggestsWork)
	noun    string
	// values and ranks are the live values of the done field and of
	// the rank key, with their counts.
	values, ranks map[string]int
}

func (v *vcoll) state(value string) model.State { return model.StateOfValue(value, v.terms) }

// projectCtx is one view's read: the live collections, the time, the
// summaries read so far.
type projectCtx struct {
	b     *records.Wsb
	now   time.Time
	colls map[string]*vcoll // live collections by id
	byKey map[string]*vcoll // the same, by the id's 16 bytes
	list  []*vcoll          // live collections in their order
	sums  *records.SumCache
}

func newProjectCtx(b *records.Wsb, now time.Time) (*projectCtx, error) {
	cs, err := records.CollectionsOf(b)
	if err != nil {
		return nil, err
	}
	x := &projectCtx{b: b, now: now, colls: map[string]*vcoll{}, byKey: map[string]*vcoll{}, sums: records.NewSumCache(b)}
	for _, c := range cs {
		if c.ArchivedAt != nil {
			continue
		}
		key, terms := model.TerminalOptions(c.Schema, c.Settings)
		v := &vcoll{Collection: c, key: records.MustID(c.ID), doneKey: key, terms: terms, rankKey: model.RankKey(c.Schema),
			work: c.TracksWork(), suggest: model.SuggestsWork(c), noun: model.Noun(c),
			values: records.FieldValueCounts(b, c.ID, key)}
		if v.rankKey != "" {
			v.ranks = records.FieldValueCounts(b, c.ID, v.rankKey)
		}
		x.colls[c.ID] = v
		x.byKey[string(v.key)] = v
		x.list = append(x.list, v)
	}
	return x, nil
}

// today is the UTC day the overdue rule compares against.
func (x *projectCtx) today() string { return x.now.UTC().Format(time.DateOnly) }

// classify reads an item's state through its summary: its live
// collection (nil when the collection is archived or gone) and its
// done-field value.
func (x *projectCtx) classify(s *records.ItemSum) (*vcoll, string, model.State, error) {
	vc := x.colls[s.CollectionID]
	if vc == nil {
		return nil, "", "", nil
	}
	v, _, long := s.Field(vc.doneKey)
	if long {
		it, err := records.GetItem(x.b, records.MustID(s.ID), false)
		if err != nil || it == nil {
			return nil, "", "", err
		}
		v = records.StrField(it.Fields, vc.doneKey)
	}
	return vc, v, vc.state(v), nil
}

// openWork reads an item as open work: live, in a live work collection,
// not terminal. vc and status are set whenever the collection is live.
func (x *projectCtx) openWork(id []byte) (s *records.ItemSum, vc *vcoll, status string, ok bool, err error) {
	if s, err = x.sums.Get(id); err != nil || s == nil || s.Archived {
		return s, nil, "", false, err
	}
	vc, status, st, err := x.classify(s)
	if err != nil || vc == nil {
		return s, vc, status, false, err
	}
	return s, vc, status, vc.work && st == model.StateOpen, nil
}

// sideOpen says whether one end of a blocking link is open work, from
// the blk entry: its collection live and tracking work, the item live,
// its done value not terminal. An entry written under another done
// field than the collection's current one is judged from the summary.
func (x *projectCtx) sideOpen(id []byte, s records.BlkSide) (bool, error) {
	vc := x.byKey[string(s.Coll)]
	if vc == nil || !vc.work || s.Life != records.LifeLive {
		return false, nil
	}
	if s.DoneKey != vc.doneKey {
		_, _, _, ok, err := x.openWork(id)
		return ok, err
	}
	return vc.state(s.Done) == model.StateOpen, nil
}

// openBlockerID is the newest open blocker of an item (LNK-03: a blocks
// link from live, unfinished work) and its done value, or nil. Link ids
// are time-ordered, so the entries are read newest first.
func (x *projectCtx) openBlockerID(id []byte) ([]byte, string, error) {
	var found []byte
	status := ""
	err := x.b.EachReverse(x.b.Blk().Cursor(), id, nil, func(_, v []byte) (bool, error) {
		source, src, _, ok := records.DecodeBlk(v)
		if !ok {
			return false, records.ErrInternal("blocking-edge record of %s is unreadable", records.IDString(id))
		}
		open, err := x.sideOpen(source, src)
		if err != nil || !open {
			return err == nil, err
		}
		found, status = append([]byte(nil), source...), src.Done
		return false, nil
	})
	return found, status, err
}

// openBlocker is openBlockerID with the blocker's summary.
func (x *projectCtx) openBlocker(id []byte) (*records.ItemSum, string, error) {
	k, status, err := x.openBlockerID(id)
	if err != nil || k == nil {
		return nil, "", err
	}
	s, err := x.sums.Get(k)
	return s, status, err
}

// rankOf is an item's rank in its collection, with the raw value.
func (x *projectCtx) rankOf(s *records.ItemSum, vc *vcoll) (model.Rank, string) {
	if vc.rankKey == "" {
		return model.RankNone, ""
	}
	v, _, _ := s.Field(vc.rankKey)
	return model.PriorityRank(v), v
}

func (x *projectCtx) ref(s *records.ItemSum, vc *vcoll) string {
	return records.RefOf(vc.Collection, s.Number)
}

// WorkItem is a suggested or listed item with why.
type WorkItem struct {
	DashboardNotice
	Status    string
	Priority  string
	Tier      string
	UpdatedAt string
	ParentRef string
}

// notice is an item as an attention entry or suggestion.
func (x *projectCtx) notice(typ string, s *records.ItemSum, vc *vcoll, reason string) DashboardNotice {
	return DashboardNotice{Type: typ, ItemSlug: s.Slug, ItemRef: x.ref(s, vc), ItemTitle: s.Title,
		Collection: vc.Slug, Reason: reason}
}

// workItem is a notice with the item's status and priority.
func (x *projectCtx) workItem(typ string, s *records.ItemSum, vc *vcoll, status, reason string) WorkItem {
	w := WorkItem{DashboardNotice: x.notice(typ, s, vc, reason), Status: status,
		UpdatedAt: records.FmtTime(s.UpdatedAt)}
	_, w.Priority = x.rankOf(s, vc)
	if k, ok := records.IDKey(s.ParentID); ok {
		if p, _ := x.sums.Get(k); p != nil {
			if pc := x.colls[p.CollectionID]; pc != nil {
				w.ParentRef = x.ref(p, pc)
			}
		}
	}
	return w
}

// suffixOf is the sort key and id ending an index key.
func suffixOf(k []byte) []byte { return k[len(k)-records.SuffixLen:] }

func suffixUpdated(suffix []byte) time.Time {
	return time.Unix(int64(^binary.BigEndian.Uint64(suffix[1:9])), 0).UTC()
}

func suffixPinned(suffix []byte) bool { return suffix[0] == 0 }

// streams merges index streams in suffix order, forwards or backwards,
// each stream tagged so a caller knows which one an entry came from.
type streams struct {
	curs []*records.Cursor
	pres [][]byte
	keys [][]byte
	back bool
	last []byte
}

func newStreams(ix *records.Bucket, prefixes [][]byte, back bool) *streams {
	m := &streams{back: back}
	for _, p := range prefixes {
		c := ix.Cursor()
		var k []byte
		if back {
			if end := records.PrefixEnd(p); end == nil {
				k, _ = c.Last()
			} else if k, _ = c.Seek(end); k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		} else {
			k, _ = c.Seek(p)
		}
		if k != nil && !bytes.HasPrefix(k, p) {
			k = nil
		}
		m.curs, m.pres, m.keys = append(m.curs, c), append(m.pres, p), append(m.keys, k)
	}
	return m
}

// next returns the next suffix and the index of its stream, or nil.
func (m *streams) next() ([]byte, int) {
	for {
		best := -1
		for i, k := range m.keys {
			if k == nil {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			c := bytes.Compare(suffixOf(k), suffixOf(m.keys[best]))
			if m.back && c > 0 || !m.back && c < 0 {
				best = i
			}
		}
		if best < 0 {
			return nil, -1
		}
		suffix := append([]byte(nil), suffixOf(m.keys[best])...)
		var k []byte
		if m.back {
			k, _ = m.curs[best].Prev()
		} else {
			k, _ = m.curs[best].Next()
		}
		if k != nil && !bytes.HasPrefix(k, m.pres[best]) {
			k = nil
		}
		m.keys[best] = k
		if !bytes.Equal(suffix, m.last) {
			m.last = suffix
			return suffix, best
		}
	}
}

// walkStreams visits the entries of streams in the list's order (pinned
// first, then most recently updated) or, oldestFirst, pinned first and
// then least recently updated, of b's list index. fn returns false to
// stop; the walk stops with b's read (check).
func walkStreams(b *records.Wsb, prefixes [][]byte, oldestFirst bool, fn func(suffix []byte, stream int) (bool, error)) error {
	sections := [][]byte{nil}
	if oldestFirst {
		// Backwards, the unpinned section would come first: read the
		// pinned section (sort byte 0) and then the rest, each backwards.
		sections = [][]byte{{0}, {1}}
	}
	for _, sec := range sections {
		ps := prefixes
		if sec != nil {
			ps = make([][]byte, len(prefixes))
			for i, p := range prefixes {
				ps[i] = records.Cat(p, sec)
			}
		}
		m := newStreams(b.Index(), ps, oldestFirst)
		for {
			suffix, i := m.next()
			if suffix == nil {
				break
			}
			if err := b.Check(); err != nil {
				return err
			}
			more, err := fn(suffix, i)
			if err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// valueStream is the live stream of one field value of a collection.
func (v *vcoll) valueStream(key, value string) []byte {
	return records.Cat([]byte{records.KindField}, v.key, records.Lstr(key), records.Lstr(value), []byte{records.LifeLive})
}

// statusStreams are a collection's live streams of the done-field
// values keep accepts.
func (v *vcoll) statusStreams(keep func(value string) bool) (prefixes [][]byte, n int) {
	vals := make([]string, 0, len(v.values))
	for val := range v.values {
		vals = append(vals, val)
	}
	sort.Strings(vals)
	for _, val := range vals {
		if keep(val) {
			prefixes = append(prefixes, v.valueStream(v.doneKey, val))
			n += v.values[val]
		}
	}
	return prefixes, n
}

// collQuery is one collection's part of a group walk: the streams that
// drive it and the conditions probed on each entry.
type collQuery struct {
	vc      *vcoll
	must    [][][]byte // each: the entry is in one of these streams
	mustNot [][]byte   // the entry is in none of these
}

func (q *collQuery) accepts(ix *records.Bucket, suffix []byte) bool {
	for _, term := range q.must {
		hit := false
		for _, p := range term {
			if ix.Get(records.Cat(p, suffix)) != nil {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	for _, p := range q.mustNot {
		if ix.Get(records.Cat(p, suffix)) != nil {
			return false
		}
	}
	return true
}

// groupFilter says which collections and statuses a tier draws from.
type groupFilter struct {
	tier         model.Tier
	roleID       string // only items of this role; "": any
	excludePlans bool
	workOnly     bool // any work collection, not only suggestible ones
}

func (f groupFilter) eligible(vc *vcoll) bool {
	switch {
	case f.excludePlans && model.IsPlanCollection(vc.Collection):
		return false
	case f.workOnly:
		return vc.work
	}
	return vc.suggest
}

// status keeps the open done-field values whose items the ranking places
// in the filter's tier at rank (model.TierOf).
func (f groupFilter) status(vc *vcoll, rank model.Rank) func(string) bool {
	return func(v string) bool {
		if vc.state(v) != model.StateOpen {
			return false
		}
		t, ok := model.TierOf(v, rank, vc.rankKey != "", false)
		return ok && t == f.tier
	}
}

// groupStreams builds the walk of one (tier, rank) group: per
// collection, the smallest term drives and the others are probed.
func (x *projectCtx) groupStreams(f groupFilter, rank model.Rank) (prefixes [][]byte, owners []*collQuery) {
	for _, vc := range x.list {
		if !f.eligible(vc) {
			continue
		}
		status, n := vc.statusStreams(f.status(vc, rank))
		if n == 0 {
			continue
		}
		type term struct {
			prefixes [][]byte
			n        int
		}
		terms := []term{{status, n}}
		q := &collQuery{vc: vc}
		if vc.rankKey != "" {
			var in [][]byte
			inN := 0
			for val, cnt := range vc.ranks {
				r, p := model.PriorityRank(val), vc.valueStream(vc.rankKey, val)
				switch {
				case rank != model.RankNone && r == rank:
					in, inN = append(in, p), inN+cnt
				case rank == model.RankNone && r != model.RankNone:
					q.mustNot = append(q.mustNot, p)
				}
			}
			if rank != model.RankNone {
				if inN == 0 {
					continue
				}
				if pairs, pn := x.pairTerm(vc, f.status(vc, rank), rank); pairs != nil {
					if pn == 0 {
						continue
					}
					terms[0] = term{pairs, pn} // exactly the candidates: nothing to probe
				} else {
					terms = append(terms, term{in, inN})
				}
			}
		} else if rank != model.RankNone {
			continue // an unranked collection's items are all RankNone
		}
		if f.roleID != "" {
			p := vc.valueStream(records.KeyRole, f.roleID)
			cnt := int(records.CountOf(x.b, p))
			if cnt == 0 {
				continue
			}
			terms = append(terms, term{[][]byte{p}, cnt})
		}
		drive := 0
		for i, t := range terms {
			if t.n < terms[drive].n {
				drive = i
			}
		}
		for i, t := range terms {
			if i != drive {
				q.must = append(q.must, t.prefixes)
			}
		}
		for _, p := range terms[drive].prefixes {
			prefixes = append(prefixes, p)
			owners = append(owners, q)
		}
	}
	return prefixes, owners
}

// pairTerm is the (status, rank) pair streams of a collection's items
// whose status keep accepts and whose rank is rank, with their total
// count; nil when the collection's done field is not the one pair
// streams follow.
func (x *projectCtx) pairTerm(vc *vcoll, keep func(string) bool, rank model.Rank) (prefixes [][]byte, n int) {
	if vc.doneKey != records.PairStatusKey {
		return nil, 0
	}
	var ranks []string
	for _, r := range slices.Sorted(maps.Keys(vc.ranks)) {
		if model.PriorityRank(r) == rank {
			ranks = append(ranks, r)
		}
	}
	prefixes = [][]byte{}
	for _, s := range slices.Sorted(maps.Keys(vc.values)) {
		if !keep(s) {
			continue
		}
		for _, r := range ranks {
			p := records.PairStream(vc.key, vc.rankKey, s, r, records.LifeLive)
			if c := int(records.CountOf(x.b, p)); c > 0 {
				prefixes, n = append(prefixes, p), n+c
			}
		}
	}
	return prefixes, n
}

// suggestion is one ranked item.
type suggestion struct {
	sum    *records.ItemSum
	vc     *vcoll
	tier   model.Tier
	rank   model.Rank
	status string
	rankV  string
}

// suggestOpts drive a ranked walk.
type suggestOpts struct {
	limit        int
	who          model.Claimant
	roleID       string
	tiers        []model.Tier
	skipBlocked  bool // never offer blocked work (next, ready, suggested_next)
	skipLeased   bool // never offer work another claimant holds
	excludePlans bool
	workOnly     bool
	// padNotStarted keeps, of the work not yet started (the urgent and
	// backlog tiers), what Pad's dashboard suggests: status "open", and
	// below high priority only a child of an active plan (by parent or
	// implements link). Pad's CLI reads next and ready from there.
	padNotStarted bool
}

// padSuggests says Pad's dashboard would suggest a not-yet-started
// item of tier t (suggestOpts.padNotStarted).
func (x *projectCtx) padSuggests(s *records.ItemSum, t model.Tier, status string) bool {
	switch t {
	case model.TierUrgent:
		return status == "open"
	case model.TierBacklog:
		return status == "open" && x.planTitle(s) != ""
	}
	return true
}

// suggest walks the tiers in order and returns up to limit items in the
// ranking's order (model.Candidate), and whether more were there.
func (x *projectCtx) suggest(o suggestOpts) ([]suggestion, bool, error) {
	var out []suggestion
	seen := map[string]bool{}
	full := func() bool { return len(out) > o.limit }
	// take screens one candidate by its id; false skips it. It needs no
	// summary: the walks read one only for the candidates it takes, as
	// the top of a backlog is often work blocked by other work, passed
	// over on every call.
	take := func(id []byte) (bool, error) {
		if seen[string(id)] {
			return false, nil
		}
		seen[string(id)] = true
		if o.skipBlocked {
			blocker, _, err := x.openBlockerID(id)
			if err != nil || blocker != nil {
				return false, err
			}
		}
		if o.skipLeased {
			if l := records.LiveLeaseAt(x.b, id, x.now); l != nil && !l.Ours(o.who) {
				return false, nil
			}
		}
		return true, nil
	}
	for _, t := range o.tiers {
		if full() {
			break
		}
		if t == model.TierMine {
			mine, err := x.mine(o)
			if err != nil {
				return nil, false, err
			}
			for _, m := range mine {
				if ok, err := take(records.MustID(m.sum.ID)); err != nil {
					return nil, false, err
				} else if ok {
					out = append(out, m)
				}
				if full() {
					break
				}
			}
			continue
		}
		f := groupFilter{tier: t, roleID: o.roleID, excludePlans: o.excludePlans, workOnly: o.workOnly}
		for _, r := range model.TierRanks(t) {
			if full() {
				break
			}
			prefixes, owners := x.groupStreams(f, r)
			if len(prefixes) == 0 {
				continue
			}
			err := walkStreams(x.b, prefixes, t.OldestFirst(), func(suffix []byte, i int) (bool, error) {
				q := owners[i]
				if !q.accepts(x.b.Index(), suffix) {
					return true, nil
				}
				id := suffix[9:]
				if ok, err := take(id); err != nil || !ok {
					return err == nil, err
				}
				s, err := x.sums.Get(id)
				if err != nil || s == nil {
					return err == nil, err
				}
				status, _, _ := s.Field(q.vc.doneKey)
				if o.padNotStarted && !x.padSuggests(s, t, status) {
					return true, nil
				}
				_, rv := x.rankOf(s, q.vc)
				out = append(out, suggestion{sum: s, vc: q.vc, tier: t, rank: r, status: status, rankV: rv})
				return !full(), nil
			})
			if err != nil {
				return nil, false, err
			}
		}
	}
	more := full()
	if more {
		out = out[:o.limit]
	}
	return out, more, nil
}

// mine lists the open work the caller holds live leases on, ranked.
func (x *projectCtx) mine(o suggestOpts) ([]suggestion, error) {
	if o.who.Holder == "" && o.who.Worker == "" {
		return nil, nil
	}
	var out []suggestion
	err := records.EachLiveLease(x.b, x.now, func(id []byte, l *model.Lease) error {
		if !l.Ours(o.who) {
			return nil
		}
		s, vc, status, ok, err := x.openWork(id)
		if err != nil || !ok || !vc.suggest {
			return err
		}
		if o.roleID != "" && s.RoleID != o.roleID {
			return nil
		}
		r, rv := x.rankOf(s, vc)
		out = append(out, suggestion{sum: s, vc: vc, tier: model.TierMine, rank: r, status: status, rankV: rv})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return candidateOf(out[i]).Before(candidateOf(out[j])) })
	return out, err
}

func candidateOf(s suggestion) model.Candidate {
	return model.Candidate{ID: s.sum.ID, Tier: s.tier, Rank: s.rank, Pinned: s.sum.Pinned, Updated: s.sum.UpdatedAt}
}

// planTitle is the title of the active plan s is a child of, for the
// reason text: its parent's, else that of an item it implements (Pad
// counts an implements link as a parent link).
func (x *projectCtx) planTitle(s *records.ItemSum) string {
	var parents [][]byte
	if k, ok := records.IDKey(s.ParentID); ok {
		parents = append(parents, k)
	}
	for _, e := range records.EdgesOf(x.b.LinkSrc(), records.MustID(s.ID), model.LinkImplements) {
		parents = append(parents, e.Other)
	}
	for _, k := range parents {
		p, _ := x.sums.Get(k)
		if p == nil || p.Archived {
			continue
		}
		pc, status, _, _ := x.classify(p)
		if pc != nil && model.IsPlanCollection(pc.Collection) && model.IsActivePlan(status) {
			return p.Title
		}
	}
	return ""
}

func (x *projectCtx) reason(sg suggestion) string {
	return model.SuggestionReason(sg.tier, sg.vc.noun, sg.status, sg.rankV, x.planTitle(sg.sum))
}

// NextWork is the read model behind GET /workspaces/{ws}/next and
// /ready: ranked, actionable items (never blocked, never leased to
// someone else) and, apart, the fired reminders waiting for an
// acknowledgement (not lease-filtered).
type NextWork struct {
	Items     []WorkItem
	Reminders []storage.ReminderView
	HasMore   bool
	Role      string
}

// NextParams ask for suggestions.
type NextParams struct {
	Now   time.Time
	Who   model.Claimant
	Role  string // role slug or id: only that role's items
	Limit int
}

// Next answers GET /next (limit 3) and /ready (the actionable backlog):
// open work in ranking order, never blocked, never leased to another
// claimant, with the fired reminders waiting for an acknowledgement.
func (s *Views) Next(ctx context.Context, ws string, p NextParams) (*NextWork, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	if p.Limit <= 0 {
		p.Limit = 3
	}
	out := &NextWork{Items: []WorkItem{}, Role: p.Role}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
		if err != nil {
			return err
		}
		var roleID string
		if p.Role != "" {
			if roleID, err = records.ResolveRole(r.WS, p.Role); err != nil {
				return err
			}
		}
		sg, more, err := x.suggest(suggestOpts{limit: p.Limit, who: p.Who, roleID: roleID, skipBlocked: true, skipLeased: true,
			tiers: []model.Tier{model.TierMine, model.TierInProgress, model.TierUrgent, model.TierBacklog}})
		if err != nil {
			return err
		}
		for _, g := range sg {
			wi := x.workItem("", g.sum, g.vc, g.status, x.reason(g))
			wi.Tier = g.tier.String()
			out.Items = append(out.Items, wi)
		}
		out.HasMore = more
		out.Reminders, err = records.PendingReminders(r.WS)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
