package views

import (
	"context"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Activity-feed page sizes.
const (
	DefaultActivityLimit = 50
	MaxActivityLimit     = 1000
	// MaxActivityOffset bounds Pad's offset paging (each page walks the
	// rows it skips); a reader past it pages by before_id.
	MaxActivityOffset = 100_000
)

// ActivityQuery filters the activity feed (Pad's ACT-01). Every filter
// applies before Limit.
type ActivityQuery struct {
	Action string
	Actor  string // "user" or "agent"
	Source string
	// Since is YYYY-MM-DD (that UTC day's start) or an RFC3339 instant
	// (taken in UTC at whole seconds); entries at or after it.
	Since string
	// Collection is a collection slug (or alias); one the workspace does
	// not have gives an empty feed, not not_found, as Pad's does.
	Collection string
	// ItemRef restricts the feed to one item (archived included).
	ItemRef string
	Limit   int
	// Before is a keyset cursor: entries with seq below it.
	Before int64
	// Offset skips that many matching entries first (Pad's paging), up to
	// MaxActivityOffset.
	Offset int
}

// ActivityView is a feed entry with its item's ref, title and slug and
// its collection's slug (the item's current collection).
type ActivityView struct {
	model.Activity
	ItemRef        string
	ItemTitle      string
	ItemSlug       string
	CollectionSlug string
	// RoleNames names the roles a role change records by id (Pad's
	// line says "role: Builder → Reviewer"); a deleted role is absent.
	RoleNames map[string]string
}

// ActivityPage is one page of the feed, newest first.
type ActivityPage struct {
	Entries []ActivityView
	HasMore bool
	// NextBefore is the Before of the next page when HasMore.
	NextBefore int64
}

// parseSince reads an activity since: a date or an RFC3339 instant.
func parseSince(s string) (time.Time, error) {
	bad := func(why string) error {
		return model.Errorf(model.CodeInvalidSince, "since %q %s", s, why).With("since", s)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		if t, err = time.Parse(time.RFC3339, s); err != nil {
			return time.Time{}, bad("must be a date (YYYY-MM-DD) or an RFC3339 instant")
		}
	}
	t = t.UTC().Truncate(time.Second)
	if t.Year() > 9999 {
		return time.Time{}, bad("is past year 9999 UTC")
	}
	return t, nil
}

// ListActivity reads the workspace's activity feed newest first. With
// ItemRef it reads only that item's entries (through the per-item index);
// otherwise it walks the feed from Before down and stops at Since, which
// the seq order allows because entry times never go backwards.
func (s *Views) ListActivity(ctx context.Context, ws string, q ActivityQuery) (*ActivityPage, error) {
	limit := records.BoundLimit(q.Limit, DefaultActivityLimit, MaxActivityLimit)
	switch q.Actor {
	case "", model.ActorUser, model.ActorAgent:
	default:
		return nil, model.Invalid("actor must be %q or %q", model.ActorUser, model.ActorAgent).With("actor", q.Actor)
	}
	if q.Offset < 0 || q.Offset > MaxActivityOffset {
		return nil, model.Invalid("offset must be from 0 to %d; page further with before_id", MaxActivityOffset).With("offset", q.Offset)
	}
	skip := q.Offset
	var since time.Time
	if q.Since != "" {
		var err error
		if since, err = parseSince(q.Since); err != nil {
			return nil, err
		}
	}
	out := &ActivityPage{Entries: []ActivityView{}}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		b := r.WS
		var collID string
		if q.Collection != "" {
			c, err := records.FindCollection(b, q.Collection)
			if err != nil || c == nil {
				return err
			}
			collID = c.ID
		}
		en := newEnricher(b)
		// visit takes one entry; false stops the walk.
		visit := func(raw []byte) (bool, error) {
			a, err := records.DecodeActivity(b, raw)
			if err != nil {
				return false, err
			}
			if !since.IsZero() && a.CreatedAt.Before(since) {
				return false, nil
			}
			if q.Action != "" && a.Action != q.Action || q.Actor != "" && a.Actor.Kind != q.Actor ||
				q.Source != "" && a.Actor.Source != q.Source {
				return true, nil
			}
			v, err := en.view(a)
			if err != nil {
				return false, err
			}
			if collID != "" && en.collID(a.ItemID) != collID {
				return true, nil
			}
			if skip > 0 {
				skip--
				return true, nil
			}
			if len(out.Entries) == limit {
				out.HasMore = true
				return false, nil
			}
			out.Entries = append(out.Entries, v)
			out.NextBefore = a.Seq
			return true, nil
		}
		// take passes over an entry before its metadata is decoded when
		// its seq is older than since (the change log's times say which
		// seq that is) or its action is not the one asked for.
		lo := int64(0)
		if !since.IsZero() {
			lo = records.FirstAtOrAfter(b.Changes(), since, b.Counter(records.KSeq))
		}
		take := func(seq, raw []byte) (bool, error) {
			if int64(records.GetU64(seq)) < lo {
				return false, nil
			}
			if q.Action != "" {
				if act, ok := records.ActivityAction(raw); ok && act != q.Action {
					return true, nil
				}
			}
			return visit(raw)
		}
		var before []byte
		if q.ItemRef == "" {
			if q.Before > 0 {
				before = records.SeqKey(q.Before)
			}
			return b.EachReverse(b.Activity().Cursor(), nil, before, take)
		}
		it, err := records.ItemByRef(b, q.ItemRef, false)
		if err != nil {
			return err
		}
		p := records.MustID(it.ID)
		if q.Before > 0 {
			before = records.Cat(p, records.SeqKey(q.Before))
		}
		return b.EachReverse(b.ActItem().Cursor(), p, before, func(k, _ []byte) (bool, error) {
			raw := b.Activity().Get(k[16:])
			if raw == nil {
				return false, records.ErrInternal("activity index names a missing entry %d", records.GetU64(k[16:]))
			}
			return take(k[16:], raw)
		})
	})
	if !out.HasMore {
		out.NextBefore = 0
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// enricher resolves feed entries' items and collections once each.
type enricher struct {
	b     *records.Wsb
	items map[string]*model.Item
	colls map[string]*model.Collection
}

func newEnricher(b *records.Wsb) *enricher {
	return &enricher{b: b, items: map[string]*model.Item{}, colls: map[string]*model.Collection{}}
}

func (e *enricher) item(id string) (*model.Item, error) {
	if id == "" {
		return nil, nil
	}
	it, ok := e.items[id]
	if !ok {
		if k, isID := records.IDKey(id); isID {
			var err error
			if it, err = records.GetItem(e.b, k, false); err != nil {
				return nil, err
			}
		}
		e.items[id] = it
	}
	return it, nil
}

func (e *enricher) coll(id string) (*model.Collection, error) {
	c, ok := e.colls[id]
	if !ok {
		var err error
		if c, err = records.GetCollection(e.b, records.MustID(id)); err != nil {
			return nil, err
		}
		e.colls[id] = c
	}
	return c, nil
}

// collID is the current collection of an item already enriched.
func (e *enricher) collID(itemID string) string {
	if it := e.items[itemID]; it != nil {
		return it.CollectionID
	}
	return ""
}

func (e *enricher) view(a model.Activity) (ActivityView, error) {
	v := ActivityView{Activity: a}
	if err := e.roleNames(&v); err != nil {
		return v, err
	}
	it, err := e.item(a.ItemID)
	if err != nil || it == nil {
		return v, err
	}
	v.ItemTitle, v.ItemSlug = it.Title, it.Slug
	c, err := e.coll(it.CollectionID)
	if err != nil || c == nil {
		return v, err
	}
	v.ItemRef, v.CollectionSlug = records.RefOf(c, it.Number), c.Slug
	return v, nil
}

// roleNames fills v.RoleNames for the ends of a role change.
func (e *enricher) roleNames(v *ActivityView) error {
	changes, _ := v.Metadata["changes"].(map[string]any)
	c, _ := changes["agent_role_id"].(map[string]any)
	for _, end := range []string{"from", "to"} {
		id, _ := c[end].(string)
		k, ok := records.IDKey(id)
		if !ok {
			continue
		}
		r, err := records.GetRole(e.b, k)
		if err != nil {
			return err
		}
		if r != nil {
			if v.RoleNames == nil {
				v.RoleNames = map[string]string{}
			}
			v.RoleNames[id] = r.Name
		}
	}
	return nil
}
