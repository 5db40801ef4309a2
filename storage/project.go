package storage

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/model"
)

// The project views beyond the dashboard (PRJ-03..08): stale, standup,
// changelog, report and the catch-up digest. What happened when is read
// from the activity feed (its entries are in seq order and their times
// never go back, so a time window is a seq range found by binary
// search); what stands now from the views' records.

// View page bounds.
const (
	DefaultViewLimit  = 50
	MaxViewLimit      = 500
	DefaultChangelog  = 100
	MaxChangelogLimit = 1000
	MaxLookbackDays   = 366
)

// eachActivity visits the feed entries in [since, until), newest first;
// fn returns false to stop. With actions, entries of other actions are
// passed over undecoded.
func eachActivity(b *wsb, since, until time.Time, actions []string, fn func(a model.Activity) (bool, error)) error {
	head := b.counter(kSeq)
	lo, hi := firstAtOrAfter(b.changes(), since, head), firstAtOrAfter(b.changes(), until, head)
	if lo >= hi {
		return nil
	}
	return eachReverse(b.activity().Cursor(), nil, seqKey(hi), func(k, v []byte) (bool, error) {
		if int64(getU64(k)) < lo {
			return false, nil
		}
		if len(actions) > 0 {
			if act, ok := activityAction(v); ok && !slices.Contains(actions, act) {
				return true, nil
			}
		}
		a, err := decodeActivity(b, v)
		if err != nil {
			return false, err
		}
		return fn(a)
	})
}

// doneChange is the done-field change an update entry records.
func doneChange(a model.Activity, key string) (from, to string, ok bool) {
	if a.Action != "updated" {
		return "", "", false
	}
	changes, _ := a.Metadata["changes"].(map[string]any)
	c, _ := changes["fields."+key].(map[string]any)
	if c == nil {
		return "", "", false
	}
	from, _ = c["from"].(string)
	to, _ = c["to"].(string)
	return from, to, true
}

// completion is an item reaching a positive terminal value (Pad's
// "completed": done, not dropped).
type completion struct {
	sum    *itemSum
	vc     *vcoll
	status string
	at     time.Time
	actor  model.Actor
}

// completions walks [since, until) for entries that moved live work
// items into a positive terminal value, newest first. Each completion
// is judged by the collection the item is in now.
func (x *viewCtx) completions(since, until time.Time, fn func(c completion) (bool, error)) error {
	return eachActivity(x.b, since, until, []string{"updated"}, func(a model.Activity) (bool, error) {
		k, ok := idKey(a.ItemID)
		if !ok || a.Action != "updated" {
			return true, nil
		}
		s, err := x.sums.get(k)
		if err != nil || s == nil || s.Archived {
			return err == nil, err
		}
		vc := x.colls[s.CollectionID]
		if vc == nil || !vc.work {
			return true, nil
		}
		from, to, ok := doneChange(a, vc.doneKey)
		if !ok || vc.state(to) != model.StateDone || vc.state(from) == model.StateDone {
			return true, nil
		}
		return fn(completion{sum: s, vc: vc, status: to, at: a.CreatedAt, actor: a.Actor})
	})
}

// StaleReport is the read model behind GET /workspaces/{ws}/stale.
type StaleReport struct {
	Days    int
	Totals  map[string]int
	Items   []WorkItem
	HasMore bool
}

// StaleParams ask for the stale view.
type StaleParams struct {
	Now time.Time
	// Days is the stalled threshold (default 3, Pad's).
	Days int
	// Type keeps one category: stalled, blocked, overdue or
	// out_of_workflow; "" keeps all.
	Type  string
	Limit int
}

var staleTypes = []string{model.NoticeStalled, model.NoticeBlocked, model.NoticeOverdue, model.NoticeOutOfWorkflow}

// Stale lists work that is not moving (PRJ-04): stalled, blocked,
// overdue and out of the workflow, in that order, with exact totals.
func (s *Store) Stale(ws string, p StaleParams) (*StaleReport, error) {
	if p.Now.IsZero() {
		p.Now = s.clock()
	}
	days := p.Days
	if days <= 0 {
		days = int(model.StalledAfter / (24 * time.Hour))
	}
	days = min(days, MaxLookbackDays)
	limit := boundLimit(p.Limit, DefaultViewLimit, MaxViewLimit)
	types := staleTypes
	if p.Type != "" {
		ok := false
		for _, t := range staleTypes {
			ok = ok || t == p.Type
		}
		if !ok {
			return nil, model.Invalid("type %q is not a stale category (stalled, blocked, overdue, out_of_workflow)", p.Type).With("field", "type")
		}
		types = []string{p.Type}
	}
	out := &StaleReport{Days: days, Totals: map[string]int{}, Items: []WorkItem{}}
	err := s.read(ws, func(r *rtx) error {
		x, err := newViewCtx(r.ws, p.Now)
		if err != nil {
			return err
		}
		for _, t := range types {
			var items []WorkItem
			var n int
			switch t {
			case model.NoticeStalled:
				items, n, err = x.stalled(time.Duration(days)*24*time.Hour, limit)
			case model.NoticeBlocked:
				items, n, err = x.blocked(limit)
			case model.NoticeOverdue:
				items, n, err = x.overdue(limit)
			default:
				items, n, err = x.outOfWorkflow(limit)
			}
			if err != nil {
				return err
			}
			out.Totals[t] = n
			room := limit - len(out.Items)
			out.Items = append(out.Items, items[:min(len(items), room)]...)
			out.HasMore = out.HasMore || n > min(len(items), room)
		}
		return nil
	})
	return out, err
}

// outOfWorkflow lists open work whose done-field value is not one of the
// field's options (or is missing), so no board column shows it: at most
// limit entries, with the exact total.
func (x *viewCtx) outOfWorkflow(limit int) ([]WorkItem, int, error) {
	var out []WorkItem
	total := 0
	keep := func(suffix []byte, vc *vcoll, status string) (bool, error) {
		s, err := x.sums.get(suffix[9:])
		if err != nil || s == nil {
			return err == nil, err
		}
		out = append(out, x.workItem(model.NoticeOutOfWorkflow, s, vc, status, model.OutOfWorkflowReason(vc.doneKey, status)))
		return len(out) < limit, nil
	}
	for _, vc := range x.list {
		f, ok := vc.Schema.Field(vc.doneKey)
		if !vc.work || !ok || f.Type != model.TypeSelect || len(f.Options) == 0 {
			continue
		}
		with := 0
		var vals []string
		for v, n := range vc.values {
			with += n
			if !f.HasOption(v) && vc.state(v) == model.StateOpen {
				vals = append(vals, v)
				total += n
			}
		}
		sort.Strings(vals)
		for _, v := range vals {
			if len(out) < limit {
				err := walkStreams(x.b.index(), [][]byte{vc.valueStream(vc.doneKey, v)}, false, func(suffix []byte, _ int) (bool, error) {
					return keep(suffix, vc, v)
				})
				if err != nil {
					return nil, 0, err
				}
			}
		}
		missing := int(countOf(x.b, collPrefix(vc.key, lifeLive))) - with
		if missing <= 0 {
			continue
		}
		total += missing
		if len(out) == limit {
			continue
		}
		// Items with no value have no stream of their own: read the
		// collection's and keep the entries no value stream holds.
		var valueStreams [][]byte
		for v := range vc.values {
			valueStreams = append(valueStreams, vc.valueStream(vc.doneKey, v))
		}
		found := 0
		err := walkStreams(x.b.index(), [][]byte{collPrefix(vc.key, lifeLive)}, false, func(suffix []byte, _ int) (bool, error) {
			for _, p := range valueStreams {
				if x.b.index().Get(cat(p, suffix)) != nil {
					return true, nil
				}
			}
			found++
			more, err := keep(suffix, vc, "")
			return more && found < missing, err
		})
		if err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Section is a counted list.
type Section struct {
	Total int
	Items []WorkItem
}

// Standup is the read model behind GET /workspaces/{ws}/standup.
type Standup struct {
	Days       int
	Since      string
	Until      string
	Done       Section
	InProgress Section
	Blockers   Section
}

// StandupParams ask for a standup.
type StandupParams struct {
	Now   time.Time
	Days  int // lookback, default 1
	Limit int // per section
}

// Standup is what got done over the lookback, what is in progress and
// what is blocked (PRJ-05).
func (s *Store) Standup(ws string, p StandupParams) (*Standup, error) {
	if p.Now.IsZero() {
		p.Now = s.clock()
	}
	days := min(max(p.Days, 1), MaxLookbackDays)
	limit := boundLimit(p.Limit, DefaultViewLimit, MaxViewLimit)
	until := model.Truncate1s(p.Now)
	since := until.Add(-time.Duration(days) * 24 * time.Hour)
	out := &Standup{Days: days, Since: fmtTime(since), Until: fmtTime(until),
		Done: Section{Items: []WorkItem{}}, InProgress: Section{Items: []WorkItem{}},
		Blockers: Section{Items: []WorkItem{}}}
	err := s.read(ws, func(r *rtx) error {
		x, err := newViewCtx(r.ws, p.Now)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		err = x.completions(since, until.Add(time.Second), func(c completion) (bool, error) {
			if seen[c.sum.ID] {
				return true, nil
			}
			seen[c.sum.ID] = true
			_, status, st, err := x.classify(c.sum)
			if err != nil || st != model.StateDone {
				return err == nil, err // reopened since
			}
			c.status = status
			out.Done.Total++
			if len(out.Done.Items) < limit {
				wi := x.workItem("", c.sum, c.vc, c.status, "Marked "+c.status+" at "+fmtTime(c.at))
				wi.UpdatedAt = fmtTime(c.at)
				out.Done.Items = append(out.Done.Items, wi)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, vc := range x.list {
			if !vc.work {
				continue
			}
			for v, n := range vc.values {
				if vc.state(v) == model.StateOpen && model.InFlightStatus(v) {
					out.InProgress.Total += n
				}
			}
		}
		active, _, err := x.suggest(suggestOpts{limit: limit, tiers: []model.Tier{model.TierInProgress}, workOnly: true})
		if err != nil {
			return err
		}
		for _, g := range active {
			out.InProgress.Items = append(out.InProgress.Items, x.workItem("", g.sum, g.vc, g.status, x.reason(g)))
		}
		out.Blockers.Items, out.Blockers.Total, err = x.blocked(limit)
		return err
	})
	return out, err
}

// ChangelogEntry is one completed item.
type ChangelogEntry struct {
	Ref         string
	Slug        string
	Title       string
	Collection  string
	Status      string
	CompletedAt string
	ParentRef   string
	ParentTitle string
}

// Changelog is the read model behind GET /workspaces/{ws}/changelog:
// work that reached a positive terminal state in [since, until], newest
// first.
type Changelog struct {
	Since   string
	Until   string
	Total   int
	Items   []ChangelogEntry
	HasMore bool
}

// ChangelogParams ask for a changelog. Since and Until are a date (that
// UTC day's start) or an RFC 3339 instant, both inclusive at second
// precision; Until defaults to now.
type ChangelogParams struct {
	Now          time.Time
	Since, Until string
	Days         int    // when Since is empty: the lookback from Until (default 7)
	Parent       string // only children of this item
	Limit        int
}

// Changelog lists the work items that reached a positive terminal state
// (done, not dropped) in [since, until], newest completion first, each
// once (PRJ-06). Reference collections are left out.
func (s *Store) Changelog(ws string, p ChangelogParams) (*Changelog, error) {
	if p.Now.IsZero() {
		p.Now = s.clock()
	}
	limit := boundLimit(p.Limit, DefaultChangelog, MaxChangelogLimit)
	until := model.Truncate1s(p.Now)
	if p.Until != "" {
		t, err := parseSince(p.Until)
		if err != nil {
			return nil, retagSince(err, "until")
		}
		until = t
	}
	days := p.Days
	if days <= 0 {
		days = 7
	}
	since := until.Add(-time.Duration(min(days, MaxLookbackDays)) * 24 * time.Hour)
	if p.Since != "" {
		t, err := parseSince(p.Since)
		if err != nil {
			return nil, err
		}
		since = t
	}
	out := &Changelog{Since: fmtTime(since), Until: fmtTime(until), Items: []ChangelogEntry{}}
	err := s.read(ws, func(r *rtx) error {
		x, err := newViewCtx(r.ws, p.Now)
		if err != nil {
			return err
		}
		parent := ""
		if p.Parent != "" {
			it, err := itemByRef(r.ws, p.Parent, false)
			if err != nil {
				return err
			}
			parent = it.ID
		}
		seen := map[string]bool{}
		return x.completions(since, until.Add(time.Second), func(c completion) (bool, error) {
			if seen[c.sum.ID] || parent != "" && c.sum.ParentID != parent {
				return true, nil
			}
			seen[c.sum.ID] = true
			_, status, st, err := x.classify(c.sum)
			if err != nil || st != model.StateDone {
				return err == nil, err // reopened or dropped since
			}
			out.Total++
			if len(out.Items) == limit {
				out.HasMore = true
				return true, nil
			}
			e := ChangelogEntry{Ref: x.ref(c.sum, c.vc), Slug: c.sum.Slug, Title: c.sum.Title, Collection: c.vc.Slug,
				Status: status, CompletedAt: fmtTime(c.at)}
			if k, ok := idKey(c.sum.ParentID); ok {
				if ps, _ := x.sums.get(k); ps != nil {
					if pc := x.colls[ps.CollectionID]; pc != nil {
						e.ParentRef, e.ParentTitle = x.ref(ps, pc), ps.Title
					}
				}
			}
			out.Items = append(out.Items, e)
			return true, nil
		})
	})
	return out, err
}

// retagSince renames an invalid_since refusal's parameter.
func retagSince(err error, param string) error {
	if e, ok := model.AsError(err); ok {
		return model.Errorf(e.Code, "%s", strings.Replace(e.Message, "since", param, 1)).With(param, e.Details["since"])
	}
	return err
}

// Report is the read model behind GET /workspaces/{ws}/report (Pad's ReportData).
type Report struct {
	Window                 string
	Offset                 int
	Granularity            string
	RangeStart             string
	RangeEnd               string
	TZ                     string
	Collections            []string
	Buckets                []ReportBucket
	Totals                 ReportTotals
	CompletedByCollection  []CollectionCount
	StatusDistribution     []StatusCount
	CycleTime              CycleTime
	WIP                    WIP
	CompletedItems         []CompletedItem
	CompletedItemsOverflow int
}

// ReportItemsCap bounds a report's completed_items.
const ReportItemsCap = 500

// ReportBucket is one time-series point, labelled in the report's zone
// ("YYYY-MM-DD", or "YYYY-MM-DDTHH" for the day window).
type ReportBucket struct {
	Bucket    string
	Created   int
	Completed int
}

// ReportTotals are the window's roll-ups.
type ReportTotals struct {
	Created   int
	Completed int
	NetFlow   int
}

// CollectionCount is a per-collection tally.
type CollectionCount struct {
	Collection string
	Count      int
}

// StatusCount is one cell of the status distribution.
type StatusCount struct {
	Collection string
	Status     string
	Count      int
}

// Duration is a per-collection median, in hours.
type Duration struct {
	Collection  string
	Count       int
	MedianHours float64
}

// CycleTime is creation-to-completion time of the window's completions.
type CycleTime struct {
	SampleSize   int
	MedianHours  float64
	P90Hours     float64
	ByCollection []Duration
}

// AgingBucket counts open items of an age band.
type AgingBucket struct {
	Label string
	Count int
}

// WIP is the open work now: how much and how old.
type WIP struct {
	OpenCount      int
	MedianAgeHours float64
	AgingBuckets   []AgingBucket
	ByCollection   []Duration
}

// CompletedItem is one entry of the report's "what shipped" list.
type CompletedItem struct {
	Ref         string
	Title       string
	Collection  string
	CompletedAt string
}

// ReportParams ask for the windowed report (PRJ-07).
type ReportParams struct {
	Now          time.Time
	Window       string
	Offset       int
	Collections  []string // slugs; empty: the work collections that are not system ones
	IncludeItems bool
	TZ           string
}

// Report is the windowed insights report: created and completed per
// bucket (in the caller's zone), totals, completions per collection,
// the status distribution, cycle time and work in progress. The status
// distribution and WIP are the current ones, also for a past window.
func (s *Store) Report(ws string, p ReportParams) (*Report, error) {
	loc, err := model.ReportZone(p.TZ)
	if err != nil {
		return nil, err
	}
	if p.Now.IsZero() {
		p.Now = s.clock()
	}
	window, lookback, gran := model.ReportWindow(p.Window)
	offset := max(p.Offset, 0)
	end := model.Truncate1s(p.Now).Add(-time.Duration(offset) * lookback)
	start := end.Add(-lookback)
	out := &Report{Window: window, Offset: offset, Granularity: gran, RangeStart: fmtTime(start), RangeEnd: fmtTime(end),
		TZ: p.TZ, Collections: []string{}, CompletedByCollection: []CollectionCount{}, StatusDistribution: []StatusCount{},
		CycleTime: CycleTime{ByCollection: []Duration{}},
		WIP:       WIP{AgingBuckets: []AgingBucket{}, ByCollection: []Duration{}}}
	label := func(t time.Time) string {
		if gran == "hour" {
			return t.In(loc).Format("2006-01-02T15")
		}
		return t.In(loc).Format(time.DateOnly)
	}
	err = s.read(ws, func(r *rtx) error {
		x, err := newViewCtx(r.ws, p.Now)
		if err != nil {
			return err
		}
		scope := map[string]*vcoll{}
		if len(p.Collections) == 0 {
			for _, vc := range x.list {
				if vc.suggest {
					scope[vc.ID] = vc
				}
			}
		} else {
			for _, slug := range p.Collections {
				c, err := findCollection(r.ws, strings.TrimSpace(slug))
				if err != nil {
					return err
				}
				if c != nil && x.colls[c.ID] != nil {
					scope[c.ID] = x.colls[c.ID]
				}
			}
		}
		for _, vc := range x.list {
			if scope[vc.ID] != nil {
				out.Collections = append(out.Collections, vc.Slug)
			}
		}
		// Zero-filled buckets from the window's start to its end, labelled
		// in the report's zone (a zone's day can start mid-UTC-day, so the
		// labels are collected rather than computed).
		step := 24 * time.Hour
		if gran == "hour" {
			step = time.Hour
		}
		var labels []string
		for t := start; ; t = t.Add(step) {
			if t.After(end) {
				t = end
			}
			if l := label(t); len(labels) == 0 || labels[len(labels)-1] != l {
				labels = append(labels, l)
			}
			if t.Equal(end) {
				break
			}
		}
		out.Buckets = make([]ReportBucket, len(labels))
		buckets := map[string]*ReportBucket{}
		for i, l := range labels {
			out.Buckets[i].Bucket = l
			buckets[l] = &out.Buckets[i]
		}
		byColl := map[string]int{}
		cycle := map[string][]float64{}
		var allCycle []float64
		seen := map[string]bool{}
		err = eachActivity(r.ws, start, end, []string{"created", "updated"}, func(a model.Activity) (bool, error) {
			k, ok := idKey(a.ItemID)
			if !ok || a.Action != "created" && a.Action != "updated" {
				return true, nil
			}
			sm, err := x.sums.get(k)
			if err != nil || sm == nil || sm.Archived {
				return err == nil, err
			}
			vc := scope[sm.CollectionID]
			if vc == nil {
				return true, nil
			}
			b := buckets[label(a.CreatedAt)]
			if a.Action == "created" {
				if b != nil {
					b.Created++
				}
				return true, nil
			}
			from, to, ok := doneChange(a, vc.doneKey)
			if !ok || vc.state(to) != model.StateDone || vc.state(from) == model.StateDone {
				return true, nil
			}
			if b != nil {
				b.Completed++
			}
			byColl[vc.Slug]++
			h := a.CreatedAt.Sub(sm.CreatedAt).Hours()
			cycle[vc.Slug] = append(cycle[vc.Slug], h)
			allCycle = append(allCycle, h)
			if p.IncludeItems && !seen[sm.ID] {
				seen[sm.ID] = true
				if len(out.CompletedItems) < ReportItemsCap {
					out.CompletedItems = append(out.CompletedItems, CompletedItem{Ref: x.ref(sm, vc), Title: sm.Title,
						Collection: vc.Slug, CompletedAt: fmtTime(a.CreatedAt)})
				} else {
					out.CompletedItemsOverflow++
				}
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, b := range out.Buckets {
			out.Totals.Created += b.Created
			out.Totals.Completed += b.Completed
		}
		out.Totals.NetFlow = out.Totals.Created - out.Totals.Completed
		for slug, n := range byColl {
			out.CompletedByCollection = append(out.CompletedByCollection, CollectionCount{Collection: slug, Count: n})
		}
		sort.Slice(out.CompletedByCollection, func(i, j int) bool {
			a, b := out.CompletedByCollection[i], out.CompletedByCollection[j]
			if a.Count != b.Count {
				return a.Count > b.Count
			}
			return a.Collection < b.Collection
		})
		out.CycleTime = CycleTime{SampleSize: len(allCycle), MedianHours: quantile(allCycle, 0.5),
			P90Hours: quantile(allCycle, 0.9), ByCollection: durations(cycle)}
		return x.reportSnapshot(scope, out)
	})
	return out, err
}

// reportSnapshot fills the status distribution and the work in progress
// (open items' ages, read from the summaries of the open streams).
func (x *viewCtx) reportSnapshot(scope map[string]*vcoll, out *Report) error {
	ages := map[string][]float64{}
	var all []float64
	for _, vc := range x.list {
		if scope[vc.ID] == nil {
			continue
		}
		vals := make([]string, 0, len(vc.values))
		for v := range vc.values {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		var open [][]byte
		for _, v := range vals {
			out.StatusDistribution = append(out.StatusDistribution, StatusCount{Collection: vc.Slug, Status: v, Count: vc.values[v]})
			if vc.state(v) == model.StateOpen {
				open = append(open, vc.valueStream(vc.doneKey, v))
			}
		}
		err := walkStreams(x.b.index(), open, false, func(suffix []byte, _ int) (bool, error) {
			s, err := x.sums.get(suffix[9:])
			if err != nil || s == nil {
				return err == nil, err
			}
			h := x.now.Sub(s.CreatedAt).Hours()
			ages[vc.Slug] = append(ages[vc.Slug], h)
			all = append(all, h)
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	bands := []AgingBucket{{Label: "<1d"}, {Label: "1-7d"}, {Label: "7-30d"}, {Label: ">30d"}}
	for _, h := range all {
		switch {
		case h < 24:
			bands[0].Count++
		case h < 7*24:
			bands[1].Count++
		case h < 30*24:
			bands[2].Count++
		default:
			bands[3].Count++
		}
	}
	out.WIP = WIP{OpenCount: len(all), MedianAgeHours: quantile(all, 0.5), AgingBuckets: bands, ByCollection: durations(ages)}
	return nil
}

// quantile is the q-quantile (nearest rank) in hours, rounded to 0.1.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return math.Round(s[max(i, 0)]*10) / 10
}

func durations(by map[string][]float64) []Duration {
	out := []Duration{}
	for slug, hs := range by {
		out = append(out, Duration{Collection: slug, Count: len(hs), MedianHours: quantile(hs, 0.5)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Collection < out[j].Collection })
	return out
}

// seenKey is whose seen cursor: the user's, or one agent's (an agent
// catching up should not move the user's cursor, nor another agent's).
func seenKey(caller model.Actor) []byte {
	if caller.Kind == model.ActorAgent {
		return lstr("agent:" + caller.Name)
	}
	return lstr(model.ActorUser)
}

func readSeen(b *wsb, caller model.Actor) *time.Time {
	raw := b.seen().Get(seenKey(caller))
	if len(raw) != 8 {
		return nil
	}
	t := time.Unix(int64(getU64(raw)), 0).UTC()
	return &t
}

// MarkSeen moves the caller's seen cursor to now, never backwards, and
// returns it. The cursor is the caller's own reading position, not
// workspace content: it is not stamped (no change-log entry, no seq).
func (s *Store) MarkSeen(ws string, caller model.Actor, now time.Time) (time.Time, error) {
	if now.IsZero() {
		now = s.clock()
	}
	at := model.Truncate1s(now)
	err := s.update(func(tx *txn) error {
		rec, err := liveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := openWS(tx, rec.ID)
		if cur := readSeen(b, caller); cur != nil && cur.After(at) {
			at = *cur
			return nil
		}
		return b.seen().Put(seenKey(caller), u64(uint64(at.Unix())))
	})
	return at, err
}

// CatchUp is the read model behind GET /workspaces/{ws}/catch-up.
type CatchUp struct {
	Window         CatchUpWindow
	NeedsYou       CatchUpSection
	Finished       CatchUpSection
	NewAndReopened CatchUpSection
	Comments       CatchUpSection
	Agents         CatchUpAgents
	Degraded       []string
}

// CatchUpWindow is the digest's span.
type CatchUpWindow struct {
	Since           string
	Until           string
	HasCursor       bool
	CappedAtCeiling bool
}

// CatchUpSection is a counted list of at most model.CatchUpLines lines.
type CatchUpSection struct {
	Total int
	Lines []CatchUpLine
}

// CatchUpLine is one thing that happened (or needs doing).
type CatchUpLine struct {
	Ref        string
	Title      string
	Collection string
	What       string
	Actor      string
	Agent      string
	At         string
}

// CatchUpAgents groups agent work by agent name.
type CatchUpAgents struct {
	Total  int
	Groups []CatchUpAgent
}

// CatchUpAgent is one agent's work in the window.
type CatchUpAgent struct {
	Agent   string
	Changes int
	Items   int
	Lines   []CatchUpLine
}

// CatchUpParams ask for the digest.
type CatchUpParams struct {
	Now    time.Time
	Caller model.Actor
}

// CatchUp is the caller's digest since its seen cursor (at most 14 days
// back): what needs the caller, what finished, what is new or reopened,
// comments, and agents' work by agent, leaving out the caller's own
// actions (PRJ-08). It never moves the cursor.
func (s *Store) CatchUp(ws string, p CatchUpParams) (*CatchUp, error) {
	if p.Now.IsZero() {
		p.Now = s.clock()
	}
	out := &CatchUp{}
	for _, sec := range []*CatchUpSection{&out.NeedsYou, &out.Finished, &out.NewAndReopened, &out.Comments} {
		sec.Lines = []CatchUpLine{}
	}
	out.Agents.Groups = []CatchUpAgent{}
	err := s.read(ws, func(r *rtx) error {
		x, err := newViewCtx(r.ws, p.Now)
		if err != nil {
			return err
		}
		cursor := readSeen(r.ws, p.Caller)
		since, capped := model.CatchUpSince(cursor, p.Now)
		until := model.Truncate1s(p.Now)
		out.Window = CatchUpWindow{Since: fmtTime(since), Until: fmtTime(until), HasCursor: cursor != nil, CappedAtCeiling: capped}
		line := func(s *itemSum, vc *vcoll, what string, a model.Activity) CatchUpLine {
			l := CatchUpLine{Ref: x.ref(s, vc), Title: s.Title, Collection: vc.Slug, What: what, At: fmtTime(a.CreatedAt)}
			if a.Actor.Kind == model.ActorAgent {
				l.Agent = a.Actor.Name
			} else {
				l.Actor = a.Actor.Name
			}
			return l
		}
		add := func(sec *CatchUpSection, l CatchUpLine) {
			sec.Total++
			if len(sec.Lines) < model.CatchUpLines {
				sec.Lines = append(sec.Lines, l)
			}
		}
		finished, fresh := map[string]bool{}, map[string]bool{}
		agents := map[string]*CatchUpAgent{}
		agentItems := map[string]map[string]bool{}
		var agentOrder []string
		err = eachActivity(r.ws, since, until.Add(time.Second), nil, func(a model.Activity) (bool, error) {
			if model.OwnAction(a.Actor, p.Caller) || a.Action == ActionLeaseRenewed {
				return true, nil
			}
			k, ok := idKey(a.ItemID)
			if !ok {
				return true, nil
			}
			sm, err := x.sums.get(k)
			if err != nil || sm == nil {
				return err == nil, err
			}
			vc := x.colls[sm.CollectionID]
			if vc == nil {
				return true, nil
			}
			what := a.Action
			switch a.Action {
			case "created":
				if !fresh[sm.ID] {
					fresh[sm.ID] = true
					add(&out.NewAndReopened, line(sm, vc, "created", a))
				}
			case "commented":
				add(&out.Comments, line(sm, vc, "commented", a))
			case "updated":
				if from, to, ok := doneChange(a, vc.doneKey); ok {
					was, now := vc.state(from), vc.state(to)
					what = "marked " + to
					switch {
					case now != model.StateOpen && was == model.StateOpen && !finished[sm.ID]:
						finished[sm.ID] = true
						add(&out.Finished, line(sm, vc, what, a))
					case now == model.StateOpen && was != model.StateOpen && !fresh[sm.ID]:
						fresh[sm.ID] = true
						what = "reopened as " + to
						add(&out.NewAndReopened, line(sm, vc, what, a))
					}
				}
			}
			if a.Actor.Kind == model.ActorAgent {
				g := agents[a.Actor.Name]
				if g == nil {
					g = &CatchUpAgent{Agent: a.Actor.Name, Lines: []CatchUpLine{}}
					agents[a.Actor.Name], agentItems[a.Actor.Name] = g, map[string]bool{}
					agentOrder = append(agentOrder, a.Actor.Name)
				}
				g.Changes++
				agentItems[a.Actor.Name][sm.ID] = true
				if len(g.Lines) < model.CatchUpLines {
					g.Lines = append(g.Lines, line(sm, vc, what, a))
				}
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, name := range agentOrder {
			g := agents[name]
			g.Items = len(agentItems[name])
			out.Agents.Groups = append(out.Agents.Groups, *g)
			out.Agents.Total += g.Changes
		}
		return x.needsYou(p.Caller, &out.NeedsYou, add)
	})
	return out, err
}

// needsYou lists the caller's open work that unfinished work blocks:
// for the user, items assigned to a user (padd has one); for an agent,
// items it holds the lease on.
func (x *viewCtx) needsYou(caller model.Actor, sec *CatchUpSection, add func(*CatchUpSection, CatchUpLine)) error {
	var ids [][]byte
	if caller.Kind == model.ActorAgent {
		err := eachLiveLease(x.b, x.now, func(id []byte, l *model.Lease) error {
			if l.Holder == caller.Name {
				ids = append(ids, append([]byte(nil), id...))
			}
			return nil
		})
		if err != nil {
			return err
		}
	} else {
		p := cat([]byte{kindFieldAll}, lstr(keyAssignee))
		var streams [][]byte
		c := x.b.counts().Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			if k[len(k)-1] == lifeLive {
				streams = append(streams, append([]byte(nil), k...))
			}
		}
		err := walkStreams(x.b.index(), streams, false, func(suffix []byte, _ int) (bool, error) {
			ids = append(ids, append([]byte(nil), suffix[9:]...))
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	for _, id := range ids {
		s, vc, _, ok, err := x.openWork(id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		blocker, bstatus, err := x.openBlocker(id)
		if err != nil {
			return err
		}
		if blocker == nil {
			continue
		}
		bvc := x.colls[blocker.CollectionID]
		what := "blocked by " + x.ref(blocker, bvc)
		if bstatus != "" {
			what += " (still " + bstatus + ")"
		}
		add(sec, CatchUpLine{Ref: x.ref(s, vc), Title: s.Title, Collection: vc.Slug, What: what})
	}
	return nil
}
