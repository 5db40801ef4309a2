package views

import (
	"context"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// A collection's progress badges (Pad's GET .../collections/{coll}/
// child-progress, .../checkbox-progress and .../plans-progress): one
// row per item of the collection, read in one transaction. A request
// reads the collection's items (and, for children, their children) once:
// its cost is the collection's size, and it stops when the request ends.

// ItemProgress is one item's count: children done of children, or
// checked boxes of boxes.
type ItemProgress struct {
	ItemID string
	Total  int
	Done   int
}

// collectionItems visits the collection's live items, archived ones
// too with archived, in the default list order.
func collectionItems(b *records.Wsb, c *model.Collection, archived, withContent bool, fn func(*model.Item) error) error {
	streams := [][]byte{records.CollPrefix(records.MustID(c.ID), records.LifeLive)}
	if archived {
		streams = append(streams, records.CollPrefix(records.MustID(c.ID), records.LifeArchived))
	}
	return records.EachInStreams(b, streams, withContent, func(it *model.Item) (bool, error) {
		return true, fn(it)
	})
}

// ChildProgress counts, for every item of the collection, its live
// children (the items implementing it included, records.EachChild) and how many of them are in a terminal state of their own
// collection (abandoned ones included), as Pad's parent progress does:
// an item with no children is a row of zeros. A collection the
// workspace does not have is not_found, unless orEmpty (Pad's
// plans-progress answers [] when there is no plans collection).
func (s *Views) ChildProgress(ctx context.Context, ws, collRef string, archived, orEmpty bool) ([]ItemProgress, error) {
	out := []ItemProgress{}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		c, err := progressCollection(r.WS, collRef, orEmpty)
		if err != nil || c == nil {
			return err
		}
		return collectionItems(r.WS, c, archived, false, func(it *model.Item) error {
			p := ItemProgress{ItemID: it.ID}
			err := records.EachChild(r.WS, it.ID, func(kid *model.Item, kc *model.Collection) error {
				p.Total++
				if kc.State(kid.Fields) != model.StateOpen {
					p.Done++
				}
				return nil
			})
			out = append(out, p)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CheckboxProgress counts the Markdown task boxes of each item of the
// collection whose body has any: "- [ ]" and "- [x]" (lower-case x, as
// Pad counts them), checked ones as done.
func (s *Views) CheckboxProgress(ctx context.Context, ws, collRef string, archived bool) ([]ItemProgress, error) {
	out := []ItemProgress{}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		c, err := progressCollection(r.WS, collRef, false)
		if err != nil {
			return err
		}
		return collectionItems(r.WS, c, archived, true, func(it *model.Item) error {
			done := strings.Count(it.Content, "- [x]")
			if total := done + strings.Count(it.Content, "- [ ]"); total > 0 {
				out = append(out, ItemProgress{ItemID: it.ID, Total: total, Done: done})
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func progressCollection(b *records.Wsb, ref string, orEmpty bool) (*model.Collection, error) {
	c, err := records.FindCollection(b, ref)
	if err != nil {
		return nil, err
	}
	if c == nil && !orEmpty {
		return nil, model.NotFound("Collection not found").With("collection", ref)
	}
	return c, nil
}
