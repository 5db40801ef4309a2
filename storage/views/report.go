package views

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

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
	Collections  []string // slugs; empty: every live collection
	IncludeItems bool
	TZ           string
}

// Report is the windowed insights report: created and completed per
// bucket (in the caller's zone), totals, completions per collection,
// the status distribution, cycle time and work in progress. The status
// distribution and WIP are the current ones, also for a past window.
func (s *Views) Report(ctx context.Context, ws string, p ReportParams) (*Report, error) {
	loc, err := model.ReportZone(p.TZ)
	if err != nil {
		return nil, err
	}
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	window, lookback, gran := model.ReportWindow(p.Window)
	offset := max(p.Offset, 0)
	end := model.Truncate1s(p.Now).Add(-time.Duration(offset) * lookback)
	start := end.Add(-lookback)
	out := &Report{Window: window, Offset: offset, Granularity: gran, RangeStart: records.FmtTime(start), RangeEnd: records.FmtTime(end),
		TZ: p.TZ, Collections: []string{}, CompletedByCollection: []CollectionCount{}, StatusDistribution: []StatusCount{},
		CycleTime: CycleTime{ByCollection: []Duration{}},
		WIP:       WIP{AgingBuckets: []AgingBucket{}, ByCollection: []Duration{}}}
	label := func(t time.Time) string {
		if gran == "hour" {
			return t.In(loc).Format("2006-01-02T15")
		}
		return t.In(loc).Format(time.DateOnly)
	}
	err = s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
		if err != nil {
			return err
		}
		scope := map[string]*vcoll{}
		if len(p.Collections) == 0 {
			// Every live collection, as Pad's report covers them all
			// when none is named (reference and system ones included).
			for _, vc := range x.list {
				scope[vc.ID] = vc
			}
		} else {
			for _, slug := range p.Collections {
				c, err := records.FindCollection(r.WS, strings.TrimSpace(slug))
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
		err = eachActivity(r.WS, start, end, []string{"created", "updated"}, func(a model.Activity) (bool, error) {
			k, ok := records.IDKey(a.ItemID)
			if !ok || a.Action != "created" && a.Action != "updated" {
				return true, nil
			}
			sm, err := x.sums.Get(k)
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
						Collection: vc.Slug, CompletedAt: records.FmtTime(a.CreatedAt)})
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
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reportSnapshot fills the status distribution and the work in progress
// (open items' ages, read from the summaries of the open streams).
func (x *projectCtx) reportSnapshot(scope map[string]*vcoll, out *Report) error {
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
		err := walkStreams(x.b, open, false, func(suffix []byte, _ int) (bool, error) {
			s, err := x.sums.Get(suffix[9:])
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
