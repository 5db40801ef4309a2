package views

import (
	"context"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

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
func (s *Views) Changelog(ctx context.Context, ws string, p ChangelogParams) (*Changelog, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	limit := records.BoundLimit(p.Limit, DefaultChangelog, MaxChangelogLimit)
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
	out := &Changelog{Since: records.FmtTime(since), Until: records.FmtTime(until), Items: []ChangelogEntry{}}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		x, err := newProjectCtx(r.WS, p.Now)
		if err != nil {
			return err
		}
		parent := ""
		if p.Parent != "" {
			it, err := records.ItemByRef(r.WS, p.Parent, false)
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
				Status: status, CompletedAt: records.FmtTime(c.at)}
			if k, ok := records.IDKey(c.sum.ParentID); ok {
				if ps, _ := x.sums.Get(k); ps != nil {
					if pc := x.colls[ps.CollectionID]; pc != nil {
						e.ParentRef, e.ParentTitle = x.ref(ps, pc), ps.Title
					}
				}
			}
			out.Items = append(out.Items, e)
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// retagSince renames an invalid_since refusal's parameter.
func retagSince(err error, param string) error {
	if e, ok := model.AsError(err); ok {
		return model.Errorf(e.Code, "%s", strings.Replace(e.Message, "since", param, 1)).With(param, e.Details["since"])
	}
	return err
}
