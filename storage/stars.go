package storage

import (
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Stars are the local user's personal pins, in two buckets:
//
//	stars       item id(16)                     -> starred_at (unix ns, 8 bytes)
//	star_order  ^starred_at(8) | item id(16)     -> nothing
//
// The inverted time makes a forward cursor read newest first. A star is
// not an edit of the item: the item's seq and updated_at stay.

// MaxStarredPage caps one Starred page (Pad's REST cap).
const MaxStarredPage = 1000

// StarResult answers Star and Unstar.
type StarResult struct {
	ItemID  string
	Ref     string
	Starred bool
	// Changed is false when the item already was so and nothing was
	// written. (Pad answers an unstar of an unstarred item with 404
	// "Item is not starred"; a door that wants that reads Changed.)
	Changed bool
}

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

func starOrderKey(at uint64, id []byte) []byte { return records.Cat(records.U64(^at), id) }

// Star stars a live item. Starring a starred item writes nothing.
func (s *Store) Star(ws, itemRef string, actor model.Actor) (*StarResult, error) {
	return s.setStar(ws, itemRef, actor, true)
}

// Unstar removes a star; an archived item can be unstarred. Unstarring
// an unstarred item writes nothing.
func (s *Store) Unstar(ws, itemRef string, actor model.Actor) (*StarResult, error) {
	return s.setStar(ws, itemRef, actor, false)
}

func (s *Store) setStar(ws, itemRef string, actor model.Actor, star bool) (*StarResult, error) {
	var out *StarResult
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.setStar(itemRef, star)
		return err
	})
	return out, err
}

// setStar is Star or Unstar in a write.
func (w *wtx) setStar(itemRef string, star bool) (*StarResult, error) {
	var out *StarResult
	err := func() error {
		b := w.ws
		var it *model.Item
		var err error
		if star {
			it, _, err = liveItemByRef(b, itemRef, false)
		} else {
			it, err = records.ItemByRef(b, itemRef, false)
		}
		if err != nil {
			return err
		}
		c, err := records.GetCollection(b, records.MustID(it.CollectionID))
		if err != nil {
			return err
		}
		id := records.MustID(it.ID)
		prev := b.Stars().Get(id)
		out = &StarResult{ItemID: it.ID, Ref: records.RefOf(c, it.Number), Starred: star}
		if (prev != nil) == star {
			return nil
		}
		op, action := model.OpCreated, "starred"
		if !star {
			op, action = model.OpDeleted, "unstarred"
		}
		seq, err := w.stamp(model.EntityStar, op, it.ID, it.ID, c.ID)
		if err != nil {
			return err
		}
		out.Changed = true
		if star {
			at := uint64(w.now.UnixNano())
			err = records.FirstErr(b.Stars().Put(id, records.U64(at)), b.StarOrder().Put(starOrderKey(at, id), nil))
		} else {
			err = records.FirstErr(b.Stars().Delete(id), b.StarOrder().Delete(starOrderKey(records.GetU64(prev), id)))
		}
		if err != nil {
			return err
		}
		return w.activity(seq, it.ID, action, map[string]any{"seq": seq, "ref": out.Ref})
	}()
	return out, err
}

// StarredIDs lists the ids of every starred item, archived ones too.
func (s *Store) StarredIDs(ws string) ([]string, error) {
	var out []string
	err := s.base.Read(ws, func(r *records.Rtx) error {
		return r.WS.Stars().ForEach(func(k, _ []byte) error {
			out = append(out, records.IDString(k))
			return nil
		})
	})
	return out, err
}

// Starred lists starred items, most recently starred first. Archived
// items (or items of archived collections) are left out, and so are
// items in a terminal state unless IncludeTerminal.
func (s *Store) Starred(ws string, p StarredParams) (*StarredResult, error) {
	if p.Limit <= 0 || p.Limit > MaxStarredPage {
		p.Limit = MaxStarredPage
	}
	if p.Offset < 0 {
		p.Offset = 0
	}
	out := &StarredResult{Items: []StarredItem{}}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		b := r.WS
		colls := map[string]*model.Collection{}
		skipped := 0
		c := b.StarOrder().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 8+16 {
				continue
			}
			it, err := records.GetItem(b, k[8:], false)
			if err != nil {
				return err
			}
			if it == nil || it.DeletedAt != nil {
				continue
			}
			coll, err := records.CollOf(b, colls, it.CollectionID)
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
			v, err := records.View(b, it, colls)
			if err != nil {
				return err
			}
			at := time.Unix(0, int64(^records.GetU64(k[:8]))).UTC()
			out.Items = append(out.Items, StarredItem{Item: v, StarredAt: at})
		}
		return nil
	})
	return out, err
}

// IsStarred reports whether an item (archived ones too) is starred.
func (s *Store) IsStarred(ws, itemRef string) (bool, error) {
	var out bool
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		out = r.WS.Stars().Get(records.MustID(it.ID)) != nil
		return nil
	})
	return out, err
}
