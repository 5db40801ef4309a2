package views

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// The dashboard (Pad's PRJ-01). Every section reads counts, index
// streams, the due index and the item summaries; none reads the
// workspace's items. Reference collections (tracks_work false) count in
// the summary totals only.

// Dashboard section sizes, as Pad's.
const (
	dashboardActiveItems = 10
	dashboardRecent      = 10
	dashboardSuggestions = 3
)

// Dashboard is the read model behind GET /workspaces/{ws}/dashboard.
type Dashboard struct {
	Summary        DashboardSummary
	ActiveItems    []DashboardItem
	ActivePlans    []DashboardPlan
	ByRole         []RoleBreakdown
	Attention      []DashboardNotice
	RecentActivity []DashboardRecent
	SuggestedNext  []DashboardNotice
	// PendingReminders are fired, unacknowledged reminders: the
	// delivery path of a reminder when nothing else delivers it.
	PendingReminders []storage.ReminderView
	// AttentionTotals counts each attention type in full; the list
	// itself carries at most model.AttentionCap entries of each type.
	AttentionTotals  map[string]int
	Degraded         bool
	DegradedSections []string
}

// DashboardSummary counts live items, per collection per done-field value.
type DashboardSummary struct {
	TotalItems   int
	ByCollection map[string]map[string]int
}

// DashboardItem is an item in flight.
type DashboardItem struct {
	Slug           string
	Title          string
	CollectionSlug string
	CollectionIcon string
	Priority       string
	Status         string
	UpdatedAt      string
	ItemRef        string
}

// DashboardPlan is an active plan with its children's progress.
type DashboardPlan struct {
	Slug      string
	Ref       string
	Title     string
	Progress  int
	TaskCount int
	DoneCount int
}

// DashboardNotice is an item the dashboard points at, with why.
type DashboardNotice struct {
	Type       string
	ItemSlug   string
	ItemRef    string
	ItemTitle  string
	Collection string
	Reason     string
}

// DashboardActivity is one recent feed entry.
type DashboardActivity struct {
	Action         string
	Actor          string
	ActorName      string
	Source         string
	CreatedAt      string
	ItemTitle      string
	ItemSlug       string
	ItemRef        string
	CollectionSlug string
}

// DashboardRecent is a recent feed entry as the dashboard shows it.
// ReorderCount is how many rows a collapsed reorder batch stood for
// (the newest row of a run of "reordered" rows sharing a reorder_batch
// stands for them all); 0 for any other entry.
type DashboardRecent struct {
	DashboardActivity
	Metadata     string
	ReorderCount int
}

// RoleBreakdown is one by_role row: the open work assigned to a role,
// and a final "Unassigned" row (RoleID nil) for open work with none.
type RoleBreakdown struct {
	RoleID    *string
	RoleName  string
	RoleSlug  string
	RoleIcon  string
	Tools     string
	ItemCount int
	Users     []string
}

// DashboardParams are a dashboard request's inputs.
type DashboardParams struct {
	Now time.Time
	// Who is the caller, for suggested_next: work another claimant
	// holds a lease on is not suggested.
	Who model.Claimant
}

// Dashboard computes the workspace's dashboard.
func (s *Views) Dashboard(ctx context.Context, ws string, p DashboardParams) (*Dashboard, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	var out *Dashboard
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
		if err != nil {
			return err
		}
		out, err = x.dashboard(p.Who)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (x *projectCtx) dashboard(who model.Claimant) (*Dashboard, error) {
	d := &Dashboard{Summary: x.summary(), ActiveItems: []DashboardItem{}, ActivePlans: []DashboardPlan{},
		Attention: []DashboardNotice{}, RecentActivity: []DashboardRecent{}, SuggestedNext: []DashboardNotice{},
		AttentionTotals: map[string]int{}, DegradedSections: []string{}}

	active, _, err := x.suggest(suggestOpts{limit: dashboardActiveItems, tiers: []model.Tier{model.TierInProgress},
		excludePlans: true, workOnly: true})
	if err != nil {
		return nil, err
	}
	for _, g := range active {
		d.ActiveItems = append(d.ActiveItems, DashboardItem{Slug: g.sum.Slug, Title: g.sum.Title,
			CollectionSlug: g.vc.Slug, CollectionIcon: g.vc.Icon, Priority: g.rankV, Status: g.status,
			UpdatedAt: records.FmtTime(g.sum.UpdatedAt), ItemRef: x.ref(g.sum, g.vc)})
	}

	plans, err := x.activePlans()
	if err != nil {
		return nil, err
	}
	for _, pl := range plans {
		d.ActivePlans = append(d.ActivePlans, pl.DashboardPlan)
	}

	// Attention, in Pad's order: stalled, overdue, plan completion,
	// orphaned tasks, blocked; each capped, each counted in full.
	add := func(typ string, items []WorkItem, total int) {
		d.AttentionTotals[typ] = total
		for _, it := range items {
			d.Attention = append(d.Attention, it.DashboardNotice)
		}
	}
	stalled, n, err := x.stalled(model.StalledAfter, model.AttentionCap)
	if err != nil {
		return nil, err
	}
	add(model.NoticeStalled, stalled, n)
	overdue, n, err := x.overdue(model.AttentionCap)
	if err != nil {
		return nil, err
	}
	add(model.NoticeOverdue, overdue, n)
	var done []WorkItem
	for _, pl := range plans {
		if pl.TaskCount > 0 && pl.DoneCount == pl.TaskCount {
			done = append(done, x.workItem(model.NoticePlanCompletion, pl.sum, pl.vc, pl.status, model.PlanCompletionReason(pl.TaskCount)))
		}
	}
	add(model.NoticePlanCompletion, done[:min(len(done), model.AttentionCap)], len(done))
	if slices.ContainsFunc(plans, func(p planRow) bool { return p.TaskCount > 0 }) {
		orphans, n, err := x.orphanedTasks(model.AttentionCap)
		if err != nil {
			return nil, err
		}
		add(model.NoticeOrphanedTask, orphans, n)
	}
	blocked, n, err := x.blocked(model.AttentionCap)
	if err != nil {
		return nil, err
	}
	add(model.NoticeBlocked, blocked, n)

	if d.RecentActivity, err = x.recentActivity(dashboardRecent); err != nil {
		return nil, err
	}
	next, _, err := x.suggest(suggestOpts{limit: dashboardSuggestions, who: who, skipBlocked: true, skipLeased: true,
		padNotStarted: true, tiers: []model.Tier{model.TierMine, model.TierInProgress, model.TierUrgent, model.TierBacklog}})
	if err != nil {
		return nil, err
	}
	for _, g := range next {
		d.SuggestedNext = append(d.SuggestedNext, x.notice("", g.sum, g.vc, x.reason(g)))
	}
	if d.ByRole, err = x.byRole(); err != nil {
		return nil, err
	}
	d.PendingReminders, err = records.PendingReminders(x.b)
	return d, err
}

// summary counts the live items of live collections per done-field
// value ("unknown" for items without one), from the maintained counts.
func (x *projectCtx) summary() DashboardSummary {
	out := DashboardSummary{ByCollection: map[string]map[string]int{}}
	for _, vc := range x.list {
		live := int(records.CountOf(x.b, records.CollPrefix(vc.key, records.LifeLive)))
		if live == 0 {
			continue
		}
		out.TotalItems += live
		m := make(map[string]int, len(vc.values)+1)
		with := 0
		for v, n := range vc.values {
			m[v] = n
			with += n
		}
		if live > with {
			m["unknown"] = live - with
		}
		out.ByCollection[vc.Slug] = m
	}
	return out
}

// openCount is the open work of a work collection: its live items less
// those in a terminal state.
func (x *projectCtx) openCount(vc *vcoll) int {
	n := int(records.CountOf(x.b, records.CollPrefix(vc.key, records.LifeLive)))
	for v, c := range vc.values {
		if vc.state(v) != model.StateOpen {
			n -= c
		}
	}
	return n
}

// planRow is an active plan with the facts attention needs.
type planRow struct {
	DashboardPlan
	sum    *records.ItemSum
	vc     *vcoll
	status string
}

// activePlans lists the plans (items of a plans collection) whose done
// field says active, in list order, with their work children's
// progress read from the per-parent counts.
func (x *projectCtx) activePlans() ([]planRow, error) {
	var out []planRow
	for _, vc := range x.list {
		if !model.IsPlanCollection(vc.Collection) || !vc.work {
			continue
		}
		prefixes, _ := vc.statusStreams(func(v string) bool { return model.IsActivePlan(v) && vc.state(v) == model.StateOpen })
		err := walkStreams(x.b, prefixes, false, func(suffix []byte, _ int) (bool, error) {
			s, err := x.sums.Get(suffix[9:])
			if err != nil || s == nil {
				return err == nil, err
			}
			status, _, _ := s.Field(vc.doneKey)
			row := planRow{DashboardPlan: DashboardPlan{Slug: s.Slug, Ref: x.ref(s, vc), Title: s.Title}, sum: s, vc: vc, status: status}
			if row.TaskCount, row.DoneCount, err = x.progress(suffix[9:]); err != nil {
				return false, err
			}
			if row.TaskCount > 0 {
				row.Progress = row.DoneCount * 100 / row.TaskCount
			} else if row.Progress, err = x.declaredProgress(suffix[9:]); err != nil {
				return false, err
			}
			out = append(out, row)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// progress counts a parent's live children in live work collections and
// those of them in a terminal state (Pad's done, abandoned included):
// its children by parent from the parent's counts, read in place (a
// dashboard does this for every active plan), then the items that
// implement it, which Pad counts as children too (records.EachChild).
func (x *projectCtx) progress(parent []byte) (total, done int, err error) {
	total, done = x.parentProgress(parent)
	pid := records.IDString(parent)
	for _, id := range records.Implementers(x.b, parent) {
		s, err := x.sums.Get(id)
		if err != nil {
			return 0, 0, err
		}
		if s == nil || s.Archived || s.ParentID == pid {
			continue // archived, or counted above
		}
		vc, _, st, err := x.classify(s)
		if err != nil {
			return 0, 0, err
		}
		if vc == nil || !vc.work {
			continue
		}
		total++
		if st != model.StateOpen {
			done++
		}
	}
	return total, done, nil
}

// parentProgress is progress over the children by parent alone.
func (x *projectCtx) parentProgress(parent []byte) (total, done int) {
	p := records.Cat([]byte{records.KindParentValue}, parent)
	c := x.b.Vcounts().Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		rest := k[len(p):]
		if len(rest) < 16+2+2+1 || rest[len(rest)-1] != records.LifeLive {
			continue
		}
		vc := x.byKey[string(rest[:16])]
		if vc == nil || !vc.work {
			continue
		}
		key, value, ok := splitKeyValueBytes(rest[16 : len(rest)-1])
		if !ok {
			continue
		}
		switch {
		case string(key) == records.KeyScopeTotal:
			total += int(records.GetU64(v))
		case string(key) == vc.doneKey && vc.state(string(value)) != model.StateOpen:
			done += int(records.GetU64(v))
		}
	}
	return total, done
}

// splitKeyValueBytes reads lstr(key) lstr(value) without copying.
func splitKeyValueBytes(b []byte) (key, value []byte, ok bool) {
	if len(b) < 2 {
		return nil, nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	if len(b) < 2+n+2 {
		return nil, nil, false
	}
	key, rest := b[2:2+n], b[2+n:]
	m := int(binary.BigEndian.Uint16(rest))
	if len(rest) != 2+m {
		return nil, nil, false
	}
	return key, rest[2:], true
}

// declaredProgress is a childless plan's own progress field, as Pad
// falls back to it.
func (x *projectCtx) declaredProgress(id []byte) (int, error) {
	it, err := records.GetItem(x.b, id, false)
	if err != nil || it == nil {
		return 0, err
	}
	if v := it.Fields["progress"]; model.IsNumber(v) {
		if f, err := strconv.ParseFloat(records.CanonicalNumber(v), 64); err == nil {
			return int(f), nil
		}
	}
	return 0, nil
}

// stalled lists open work in an in-flight status that nobody touched for
// after, least recently touched first: at most limit entries, with the
// exact total. It reads index keys only (their sort key holds
// updated_at), oldest first, and a summary per entry kept.
func (x *projectCtx) stalled(after time.Duration, limit int) ([]WorkItem, int, error) {
	type hit struct {
		suffix []byte
		vc     *vcoll
		status string
	}
	var keep []hit // the least recently touched so far, in order
	total := 0
	// before orders suffixes by updated_at ascending (the sort key holds
	// it inverted), then id.
	before := func(a, b []byte) bool {
		if c := bytes.Compare(a[1:9], b[1:9]); c != 0 {
			return c > 0
		}
		return bytes.Compare(a[9:], b[9:]) < 0
	}
	cutoff := model.StalledCutoff(x.now, after)
	for _, vc := range x.list {
		if !vc.work {
			continue
		}
		for v := range vc.values {
			// model.Stalled, split: the status once per stream, the time
			// per entry.
			if vc.state(v) != model.StateOpen || !model.InFlightStatus(v) {
				continue
			}
			p := vc.valueStream(vc.doneKey, v)
			for _, section := range []byte{0, 1} { // pinned, then the rest
				err := x.b.EachReverse(x.b.Index().Cursor(), records.Cat(p, []byte{section}), nil, func(k, _ []byte) (bool, error) {
					suffix := suffixOf(k)
					if !suffixUpdated(suffix).Before(cutoff) {
						// Backwards is oldest first: the first recent entry
						// ends the unpinned section; pinned ones are all read.
						return section == 0, nil
					}
					total++
					if len(keep) == limit && !before(suffix, keep[limit-1].suffix) {
						return true, nil
					}
					i := sort.Search(len(keep), func(i int) bool { return before(suffix, keep[i].suffix) })
					keep = append(keep, hit{})
					copy(keep[i+1:], keep[i:])
					keep[i] = hit{append([]byte(nil), suffix...), vc, v}
					if len(keep) > limit {
						keep = keep[:limit]
					}
					return true, nil
				})
				if err != nil {
					return nil, 0, err
				}
			}
		}
	}
	out := make([]WorkItem, 0, len(keep))
	for _, h := range keep {
		s, err := x.sums.Get(h.suffix[9:])
		if err != nil {
			return nil, 0, err
		}
		if s != nil {
			out = append(out, x.workItem(model.NoticeStalled, s, h.vc, h.status, model.StalledReason(s.UpdatedAt, x.now)))
		}
	}
	return out, total, nil
}

// overdue lists open work whose due_date or end_date has passed,
// earliest first: at most limit entries, with the exact total. It reads
// the due index up to today; each entry carries the done value it was
// written with, so only entries of a collection whose done field changed
// since read their summary.
func (x *projectCtx) overdue(limit int) ([]WorkItem, int, error) {
	today := x.today()
	var out []WorkItem
	total := 0
	c := x.b.Due().Cursor()
	for k, v := c.First(); k != nil && string(k[:min(len(k), 10)]) < today; k, v = c.Next() {
		if err := x.b.Check(); err != nil {
			return nil, 0, err
		}
		e, ok := records.DecodeDue(k, v)
		if !ok {
			continue
		}
		vc := x.colls[records.IDString(e.Coll)]
		if vc == nil || !vc.work {
			continue
		}
		status := e.Done
		if e.DoneKey != vc.doneKey {
			_, _, st, open, err := x.openWork(e.ID)
			if err != nil {
				return nil, 0, err
			}
			if !open {
				continue
			}
			status = st
		} else if vc.state(e.Done) != model.StateOpen {
			continue
		}
		total++
		if len(out) == limit {
			continue
		}
		s, err := x.sums.Get(e.ID)
		if err != nil {
			return nil, 0, err
		}
		if s != nil {
			out = append(out, x.workItem(model.NoticeOverdue, s, vc, status, model.OverdueReason(e.DueKey, e.Day)))
		}
	}
	return out, total, nil
}

// orphanedTasks lists the unfinished items of the tasks collection
// that have no parent, as Pad's dashboard flags them once some active
// plan has children: no parent and no implements link (the collection's
// unparented stream), in the list's order (pinned first, then most
// recently updated); at most limit entries, with the exact total. Pad
// flags a task whose only parent is archived too; padd does not.
func (x *projectCtx) orphanedTasks(limit int) ([]WorkItem, int, error) {
	var vc *vcoll
	for _, c := range x.list {
		if c.Slug == model.OrphanCollection {
			vc = c
		}
	}
	if vc == nil {
		return nil, 0, nil
	}
	// Unfinished: in no stream of a terminal value (an item without one
	// is unfinished, as on Pad).
	var closed [][]byte
	for v := range vc.values {
		if vc.state(v) != model.StateOpen {
			closed = append(closed, vc.valueStream(vc.doneKey, v))
		}
	}
	q := collQuery{vc: vc, mustNot: closed}
	var out []WorkItem
	total := 0
	err := walkStreams(x.b, [][]byte{records.UnparentedPrefix(vc.key, records.LifeLive)}, false, func(suffix []byte, _ int) (bool, error) {
		if !q.accepts(x.b.Index(), suffix) {
			return true, nil
		}
		total++
		if len(out) == limit {
			return true, nil
		}
		s, err := x.sums.Get(suffix[9:])
		if err != nil || s == nil {
			return err == nil, err
		}
		status, _, _ := s.Field(vc.doneKey)
		out = append(out, x.workItem(model.NoticeOrphanedTask, s, vc, status, model.OrphanedTaskReason))
		return true, nil
	})
	return out, total, err
}

// blocked lists open work with an open blocker (a blocks link from
// unfinished work; LNK-03), newest item first: at most limit entries,
// with the exact total. It scans the blk index, whose entries carry both
// ends' states, and reads summaries only for the entries it keeps.
func (x *projectCtx) blocked(limit int) ([]WorkItem, int, error) {
	type hit struct{ target, blocker []byte }
	var hits []hit
	total := 0
	var cur []byte // the target being read
	var curOpen, curBlocked bool
	// Backwards: targets newest first, and each one's links newest first,
	// so the first open blocker met is the newest, the one Pad names.
	err := x.b.EachReverse(x.b.Blk().Cursor(), nil, nil, func(k, v []byte) (bool, error) {
		if len(k) != 32 {
			return true, nil
		}
		source, src, tgt, ok := records.DecodeBlk(v)
		if !ok {
			return false, records.ErrInternal("blocking-edge record %x is unreadable", k)
		}
		if !bytes.Equal(k[:16], cur) {
			cur, curBlocked = append(cur[:0:0], k[:16]...), false
			open, err := x.sideOpen(cur, tgt)
			if err != nil {
				return false, err
			}
			curOpen = open
		}
		if !curOpen || curBlocked {
			return true, nil
		}
		open, err := x.sideOpen(source, src)
		if err != nil || !open {
			return err == nil, err
		}
		curBlocked = true
		total++
		if len(hits) < limit {
			hits = append(hits, hit{target: cur, blocker: append([]byte(nil), source...)})
		}
		return true, nil
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]WorkItem, 0, len(hits))
	for _, h := range hits {
		s, err := x.sums.Get(h.target)
		if err != nil {
			return nil, 0, err
		}
		b, err := x.sums.Get(h.blocker)
		if err != nil {
			return nil, 0, err
		}
		if s == nil || b == nil {
			continue
		}
		vc, status, _, err := x.classify(s)
		if err != nil {
			return nil, 0, err
		}
		_, bstatus, _, err := x.classify(b)
		if err != nil {
			return nil, 0, err
		}
		if vc != nil {
			out = append(out, x.workItem(model.NoticeBlocked, s, vc, status, model.BlockedReason(b.Title, bstatus)))
		}
	}
	return out, total, nil
}

// recentActivity is the feed's newest n entries as the dashboard shows
// them.
func (x *projectCtx) recentActivity(n int) ([]DashboardRecent, error) {
	out := []DashboardRecent{}
	lastBatch := "" // the reorder_batch of out's last entry, when it is one
	en := newEnricher(x.b)
	err := x.b.EachReverse(x.b.Activity().Cursor(), nil, nil, func(_, raw []byte) (bool, error) {
		a, err := records.DecodeActivity(x.b, raw)
		if err != nil {
			return false, err
		}
		av, err := en.view(a)
		if err != nil {
			return false, err
		}
		if a.ItemID != "" && av.ItemRef == "" || a.Action == storage.ActionLeaseRenewed {
			return true, nil // its item is gone (no blank row), or a heartbeat
		}
		e := DashboardRecent{DashboardActivity: DashboardActivity{Action: a.Action, Actor: a.Actor.Kind,
			ActorName: a.Actor.Name, Source: a.Actor.Source, CreatedAt: records.FmtTime(a.CreatedAt), ItemTitle: av.ItemTitle,
			ItemSlug: av.ItemSlug, ItemRef: av.ItemRef, CollectionSlug: av.CollectionSlug}}
		if len(a.Metadata) > 0 {
			if b, err := records.Encode(a.Metadata); err == nil {
				e.Metadata = string(b)
			}
		}
		if a.Action == storage.ActionReordered {
			batch, _ := a.Metadata["reorder_batch"].(string)
			if last := len(out) - 1; batch != "" && last >= 0 && out[last].ReorderCount > 0 && batch == lastBatch {
				out[last].ReorderCount++
				return true, nil
			}
			e.ReorderCount, lastBatch = 1, batch
		}
		out = append(out, e)
		return len(out) < n, nil
	})
	return out, err
}

// byRole counts the open work of each role (every role, as Pad lists
// them) and, last, the open work with no role, from the maintained
// counts: a role's live items less its items in a terminal state.
func (x *projectCtx) byRole() ([]RoleBreakdown, error) {
	roles, err := records.SortedRoles(x.b)
	if err != nil {
		return nil, err
	}
	openTotal, assigned := 0, 0
	for _, vc := range x.list {
		if vc.work {
			openTotal += x.openCount(vc)
		}
	}
	var out []RoleBreakdown
	for _, r := range roles {
		rk := records.MustID(r.ID)
		n := 0
		for _, vc := range x.list {
			if !vc.work {
				continue
			}
			n += int(records.CountOf(x.b, vc.valueStream(records.KeyRole, r.ID)))
			for v := range vc.values {
				if vc.state(v) != model.StateOpen {
					n -= int(records.VcountOf(x.b, records.ScopeKey(records.KindRoleValue, rk, vc.key, vc.doneKey, v, records.LifeLive)))
				}
			}
		}
		assigned += n
		id := r.ID
		out = append(out, RoleBreakdown{RoleID: &id, RoleName: r.Name, RoleSlug: r.Slug, RoleIcon: r.Icon, Tools: r.Tools, ItemCount: n})
	}
	if rest := openTotal - assigned; rest > 0 {
		out = append(out, RoleBreakdown{RoleName: "Unassigned", RoleSlug: "unassigned", ItemCount: rest})
	}
	return out, nil
}
