package views

import (
	"context"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

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
func (s *Views) Standup(ctx context.Context, ws string, p StandupParams) (*Standup, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	days := min(max(p.Days, 1), MaxLookbackDays)
	limit := records.BoundLimit(p.Limit, DefaultViewLimit, MaxViewLimit)
	until := model.Truncate1s(p.Now)
	since := until.Add(-time.Duration(days) * 24 * time.Hour)
	out := &Standup{Days: days, Since: records.FmtTime(since), Until: records.FmtTime(until),
		Done: Section{Items: []WorkItem{}}, InProgress: Section{Items: []WorkItem{}},
		Blockers: Section{Items: []WorkItem{}}}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
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
				wi := x.workItem("", c.sum, c.vc, c.status, "Marked "+c.status+" at "+records.FmtTime(c.at))
				wi.UpdatedAt = records.FmtTime(c.at)
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
	if err != nil {
		return nil, err
	}
	return out, nil
}
