package records

import (
	"time"

	"github.com/padd/padd/model"
)

// ReadStarred lists starred items, most recently starred first. Archived
// items (or items of archived collections) are left out, and so are
// items in a terminal state unless IncludeTerminal.
func ReadStarred(b *Base, ws string, p StarredParams) (*StarredResult, error) {
	if p.Limit <= 0 || p.Limit > MaxStarredPage {
		p.Limit = MaxStarredPage
	}
	if p.Offset < 0 {
		p.Offset = 0
	}
	out := &StarredResult{Items: []StarredItem{}}
	err := b.Read(ws, func(r *Rtx) error {
		b := r.WS
		colls := map[string]*model.Collection{}
		skipped := 0
		c := b.StarOrder().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 8+16 {
				continue
			}
			it, err := GetItem(b, k[8:], false)
			if err != nil {
				return err
			}
			if it == nil || it.DeletedAt != nil {
				continue
			}
			coll, err := CollOf(b, colls, it.CollectionID)
			if err != nil {
				return err
			}
			if coll.ArchivedAt != nil || !p.IncludeTerminal && coll.State(it.Fields) != model.StateOpen {
				continue
			}
			if skipped < p.Offset {
				skipped++
				continue
			}
			if len(out.Items) == p.Limit {
				out.HasMore = true
				out.NextOffset = p.Offset + len(out.Items)
				break
			}
			v, err := View(b, it, colls)
			if err != nil {
				return err
			}
			at := time.Unix(0, int64(^GetU64(k[:8]))).UTC()
			out.Items = append(out.Items, StarredItem{Item: v, StarredAt: at})
		}
		return nil
	})
	return out, err
}

// MaxStarredPage caps one Starred page (Pad's REST cap).
const MaxStarredPage = 1000

// StarredParams page the starred list.
type StarredParams struct {
	IncludeTerminal bool // keep done/abandoned items
	Limit           int  // default and cap MaxStarredPage
	Offset          int
}

// StarredItem is one starred item.
type StarredItem struct {
	Item      *ItemView
	StarredAt time.Time
}

// StarredResult is one page of starred items, newest star first.
type StarredResult struct {
	Items      []StarredItem
	HasMore    bool
	NextOffset int
}
