package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// DescribeChanges is the read the event stream needs beside the entity
// APIs: what change-log entries touched.

// ChangeSubject is what a change-log entry touched, as it stands now:
// its workspace's slug, and the item's title and ref and the collection's
// slug when the entry names them (empty when they are gone).
type ChangeSubject struct {
	WorkspaceSlug  string
	ItemTitle      string
	ItemRef        string
	CollectionSlug string
}

// DescribeChanges resolves the subjects of journal entries in one read.
// Deleted (not yet purged) workspaces are read too, so the entry that
// deleted one can still be described; a purged one describes as empty.
func (s *Views) DescribeChanges(entries []storage.JournalEntry) ([]ChangeSubject, error) {
	out := make([]ChangeSubject, len(entries))
	err := s.base.View(func(tx *records.Txn) error {
		type space struct {
			b     *records.Wsb
			slug  string
			colls map[string]*model.Collection
		}
		spaces := map[string]*space{}
		for i, e := range entries {
			sp, seen := spaces[e.WorkspaceID]
			if !seen {
				sp = &space{colls: map[string]*model.Collection{}}
				if k, ok := records.IDKey(e.WorkspaceID); ok {
					if rec, err := records.GetWorkspace(tx, k); err != nil {
						return err
					} else if rec != nil {
						sp.slug = rec.Slug
						sp.b = records.OpenWS(tx, rec.ID)
					}
				}
				spaces[e.WorkspaceID] = sp
			}
			d := ChangeSubject{WorkspaceSlug: sp.slug}
			if sp.b == nil {
				out[i] = d
				continue
			}
			collID := e.Change.CollectionID
			var it *model.Item
			if k, ok := records.IDKey(e.Change.ItemID); ok {
				var err error
				if it, err = records.GetItem(sp.b, k, false); err != nil {
					return err
				}
				if it != nil {
					d.ItemTitle = it.Title
					collID = it.CollectionID // where it is now, after a move
				}
			}
			c, err := collOrNil(sp.b, sp.colls, collID)
			if err != nil {
				return err
			}
			if c != nil {
				d.CollectionSlug = c.Slug
				if it != nil {
					d.ItemRef = records.RefOf(c, it.Number)
				}
			}
			out[i] = d
		}
		return nil
	})
	return out, err
}

// collOrNil is collOf for an id that may be empty or name nothing.
func collOrNil(b *records.Wsb, colls map[string]*model.Collection, id string) (*model.Collection, error) {
	k, ok := records.IDKey(id)
	if !ok {
		return nil, nil
	}
	if c, seen := colls[id]; seen {
		return c, nil
	}
	c, err := records.GetCollection(b, k)
	if err != nil {
		return nil, err
	}
	colls[id] = c
	return c, nil
}
