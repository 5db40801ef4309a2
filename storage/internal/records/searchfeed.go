package records

import (
	"bytes"
	"context"

	"github.com/padd/padd/model"
)

// The search index's reads (storage/views' IndexDocs and ScanItems).

// IndexDoc is what the search index needs to know about one item: its
// current view, its comments' text and its attachments' filenames. Gone
// means the item no longer exists (a purged workspace): drop it from the
// index.
type IndexDoc struct {
	ID        string
	Item      *ItemView
	Comments  []string
	Filenames []string
	Gone      bool
}

// ReadIndexDocs reads the named items (by id) for indexing, in one read
// transaction.
func ReadIndexDocs(base *Base, ws string, ids []string) ([]IndexDoc, error) {
	out := make([]IndexDoc, 0, len(ids))
	err := base.Read(ws, func(r *Rtx) error {
		colls := map[string]*model.Collection{}
		for _, id := range ids {
			k, ok := IDKey(id)
			if !ok {
				continue
			}
			d, err := indexDocOrSkip(base, r.WS, k, colls)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// indexDocOrSkip is indexDoc, except that an item whose stored record
// cannot be read is left out of the index (as if gone) and logged: one
// damaged record must not stop every other item from being indexed.
func indexDocOrSkip(base *Base, b *Wsb, id []byte, colls map[string]*model.Collection) (IndexDoc, error) {
	d, err := indexDoc(b, id, colls)
	if e, ok := model.AsError(err); ok && e.Code == model.CodeStoredStateUnreadable {
		base.Log.Error("item left out of the search index: its stored record is unreadable (reading it answers stored_state_unreadable); "+
			"every other item is indexed as usual. Keep a copy of padd.db and report this with padd's log",
			"workspace", b.ID, "item", IDString(id), "err", err)
		return IndexDoc{ID: IDString(id), Gone: true}, nil
	}
	return d, err
}

func indexDoc(b *Wsb, id []byte, colls map[string]*model.Collection) (IndexDoc, error) {
	it, err := GetItem(b, id, true)
	if err != nil {
		return IndexDoc{}, err
	}
	if it == nil {
		return IndexDoc{ID: IDString(id), Gone: true}, nil
	}
	v, err := View(b, it, colls)
	if err != nil {
		return IndexDoc{}, err
	}
	cs, err := CommentsOf(b, id)
	if err != nil {
		return IndexDoc{}, err
	}
	d := IndexDoc{ID: it.ID, Item: v}
	for _, c := range cs {
		if c.DeletedAt == nil && c.Body != "" {
			d.Comments = append(d.Comments, c.Body)
		}
	}
	// An attachment's filename is searchable text of its item.
	d.Filenames = ItemAttachmentNames(b, id)
	return d, nil
}

// ScanIndexDocs reads a workspace's items in id order for a full index
// build, a page at a time (after: the last id of the previous page), so
// no read transaction stays open across a long rebuild.
func ScanIndexDocs(ctx context.Context, base *Base, ws, after string, limit int) (docs []IndexDoc, next string, err error) {
	err = base.ReadCtx(ctx, ws, func(r *Rtx) error {
		colls := map[string]*model.Collection{}
		c := r.WS.Items().Cursor()
		var k []byte
		if a, ok := IDKey(after); ok {
			k, _ = c.Seek(a)
			if k != nil && bytes.Equal(k, a) {
				k, _ = c.Next()
			}
		} else {
			k, _ = c.First()
		}
		for ; k != nil && len(docs) < limit; k, _ = c.Next() {
			if err := r.WS.Check(); err != nil {
				return err
			}
			d, err := indexDocOrSkip(base, r.WS, k, colls)
			if err != nil {
				return err
			}
			docs = append(docs, d)
		}
		if k != nil && len(docs) > 0 {
			next = docs[len(docs)-1].ID
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return docs, next, nil
}
