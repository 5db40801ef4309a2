package storage

import (
	"github.com/padd/padd/model"
)

// Reads the HTTP door needs beside the entity APIs: a comment by id
// alone (the workspace-scoped reply route names no item), an item's star
// state, and what change-log entries touched (the event stream).

// GetComment reads a comment by id, tombstones included.
func (s *Store) GetComment(ws, commentID string) (*model.Comment, error) {
	var out *model.Comment
	err := s.read(ws, func(r *rtx) error {
		c, err := findComment(r.ws, "", commentID)
		out = c
		return err
	})
	return out, err
}

// IsStarred reports whether an item (archived ones too) is starred.
func (s *Store) IsStarred(ws, itemRef string) (bool, error) {
	var out bool
	err := s.read(ws, func(r *rtx) error {
		it, err := itemByRef(r.ws, itemRef, false)
		if err != nil {
			return err
		}
		out = r.ws.stars().Get(mustID(it.ID)) != nil
		return nil
	})
	return out, err
}

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
func (s *Store) DescribeChanges(entries []JournalEntry) ([]ChangeSubject, error) {
	out := make([]ChangeSubject, len(entries))
	err := s.view(func(tx *txn) error {
		type space struct {
			b     *wsb
			slug  string
			colls map[string]*model.Collection
		}
		spaces := map[string]*space{}
		for i, e := range entries {
			sp, seen := spaces[e.WorkspaceID]
			if !seen {
				sp = &space{colls: map[string]*model.Collection{}}
				if k, ok := idKey(e.WorkspaceID); ok {
					if rec, err := getWorkspace(tx, k); err != nil {
						return err
					} else if rec != nil {
						sp.slug = rec.Slug
						sp.b = openWS(tx, rec.ID)
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
			if k, ok := idKey(e.Change.ItemID); ok {
				var err error
				if it, err = getItem(sp.b, k, false); err != nil {
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
					d.ItemRef = refOf(c, it.Number)
				}
			}
			out[i] = d
		}
		return nil
	})
	return out, err
}

// collOrNil is collOf for an id that may be empty or name nothing.
func collOrNil(b *wsb, colls map[string]*model.Collection, id string) (*model.Collection, error) {
	k, ok := idKey(id)
	if !ok {
		return nil, nil
	}
	if c, seen := colls[id]; seen {
		return c, nil
	}
	c, err := getCollection(b, k)
	if err != nil {
		return nil, err
	}
	colls[id] = c
	return c, nil
}
