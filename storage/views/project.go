package views

import (
	"slices"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The project views beyond the dashboard (PRJ-03..08): stale, standup,
// changelog, report and the catch-up digest, each in a file of its own
// (stale.go, standup.go, changelog.go, report.go, catchup.go; the last
// holds the one write, MarkSeen). What happened when is read
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
func eachActivity(b *records.Wsb, since, until time.Time, actions []string, fn func(a model.Activity) (bool, error)) error {
	head := b.Counter(records.KSeq)
	lo, hi := records.FirstAtOrAfter(b.Changes(), since, head), records.FirstAtOrAfter(b.Changes(), until, head)
	if lo >= hi {
		return nil
	}
	return b.EachReverse(b.Activity().Cursor(), nil, records.SeqKey(hi), func(k, v []byte) (bool, error) {
		if int64(records.GetU64(k)) < lo {
			return false, nil
		}
		if len(actions) > 0 {
			if act, ok := records.ActivityAction(v); ok && !slices.Contains(actions, act) {
				return true, nil
			}
		}
		a, err := records.DecodeActivity(b, v)
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
	sum    *records.ItemSum
	vc     *vcoll
	status string
	at     time.Time
	actor  model.Actor
}

// completions walks [since, until) for entries that moved live work
// items into a positive terminal value, newest first. Each completion
// is judged by the collection the item is in now.
func (x *projectCtx) completions(since, until time.Time, fn func(c completion) (bool, error)) error {
	return eachActivity(x.b, since, until, []string{"updated"}, func(a model.Activity) (bool, error) {
		k, ok := records.IDKey(a.ItemID)
		if !ok || a.Action != "updated" {
			return true, nil
		}
		s, err := x.sums.Get(k)
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
