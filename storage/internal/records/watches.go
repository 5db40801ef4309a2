package records

import (
	"sort"
	"time"

	"github.com/padd/padd/model"
)

// BWatches is the bucket of watches, keyed workspace id(16) | item
// id(16) (storage/watches.go).
var BWatches = []byte("watches")

type WatchRecord struct {
	ID        string    `json:"id"`
	Predicate string    `json:"predicate,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Watch is one watch with its item's names, as GET /watches lists it.
type Watch struct {
	ID            string
	WorkspaceID   string
	WorkspaceSlug string
	ItemID        string
	ItemRef       string
	ItemTitle     string
	ItemSlug      string
	Predicate     string
	CreatedAt     time.Time
}

// WatchTarget opens the workspace of a watch key whose item is still on
// file (archived or not), or nil.
func WatchTarget(tx *Txn, k []byte) *Wsb {
	if tx.Bucket(BWS).Bucket(k[:16]) == nil {
		return nil
	}
	b := OpenWS(tx, IDString(k[:16]))
	if b.Items().Get(k[16:]) == nil {
		return nil
	}
	return b
}

// ReadWatches lists every watch, newest first, with its item's names.
// A watch of an archived item, or of a deleted workspace not yet purged,
// is listed as Pad's server lists it; one whose workspace was purged is
// not.
func ReadWatches(b *Base) ([]Watch, error) {
	out := []Watch{}
	err := b.View(func(tx *Txn) error {
		bk := tx.Bucket(BWatches)
		if bk == nil {
			return nil
		}
		spaces := map[string]*model.Workspace{}
		return bk.ForEach(func(k, v []byte) error {
			if len(k) != 32 {
				return nil
			}
			b := WatchTarget(tx, k)
			if b == nil {
				return nil
			}
			wsRec, seen := spaces[b.ID]
			if !seen {
				var err error
				if wsRec, err = GetWorkspace(tx, k[:16]); err != nil {
					return err
				}
				spaces[b.ID] = wsRec
			}
			if wsRec == nil {
				return nil
			}
			it, err := GetItem(b, k[16:], false)
			if err != nil || it == nil {
				return err
			}
			c, err := GetCollection(b, MustID(it.CollectionID))
			if err != nil || c == nil {
				return err
			}
			var w WatchRecord
			if err := Decode(v, &w); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored watch on %s is unreadable: %v", it.ID, err)
			}
			out = append(out, Watch{ID: w.ID, WorkspaceID: b.ID, WorkspaceSlug: wsRec.Slug, ItemID: it.ID,
				ItemRef: RefOf(c, it.Number), ItemTitle: it.Title, ItemSlug: it.Slug, Predicate: w.Predicate, CreatedAt: w.CreatedAt})
			return nil
		})
	})
	// Within a second (Pad's resolution), the later watch first: ids are
	// time-ordered.
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, err
}
