package storage

import (
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
const MaxStarredPage = records.MaxStarredPage

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

// StarredParams is records.StarredParams, the type storage's callers name.
type StarredParams = records.StarredParams

// StarredItem is records.StarredItem, the type storage's callers name.
type StarredItem = records.StarredItem

// StarredResult is records.StarredResult, the type storage's callers name.
type StarredResult = records.StarredResult

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
