package views

import (
	"context"
	"sort"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

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
func (s *Views) Stale(ctx context.Context, ws string, p StaleParams) (*StaleReport, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	days := p.Days
	if days <= 0 {
		days = int(model.StalledAfter / (24 * time.Hour))
	}
	days = min(days, MaxLookbackDays)
	limit := records.BoundLimit(p.Limit, DefaultViewLimit, MaxViewLimit)
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
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
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
	if err != nil {
		return nil, err
	}
	return out, nil
}

// outOfWorkflow lists open work whose done-field value is not one of the
// field's options (or is missing), so no board column shows it: at most
// limit entries, with the exact total.
func (x *projectCtx) outOfWorkflow(limit int) ([]WorkItem, int, error) {
	var out []WorkItem
	total := 0
	keep := func(suffix []byte, vc *vcoll, status string) (bool, error) {
		s, err := x.sums.Get(suffix[9:])
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
				err := walkStreams(x.b, [][]byte{vc.valueStream(vc.doneKey, v)}, false, func(suffix []byte, _ int) (bool, error) {
					return keep(suffix, vc, v)
				})
				if err != nil {
					return nil, 0, err
				}
			}
		}
		missing := int(records.CountOf(x.b, records.CollPrefix(vc.key, records.LifeLive))) - with
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
		err := walkStreams(x.b, [][]byte{records.CollPrefix(vc.key, records.LifeLive)}, false, func(suffix []byte, _ int) (bool, error) {
			for _, p := range valueStreams {
				if x.b.Index().Get(records.Cat(p, suffix)) != nil {
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
