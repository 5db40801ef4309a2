package records

import (
	"sort"

	"github.com/padd/padd/model"
)

// CollectionInfo is a collection with its live counts.
type CollectionInfo struct {
	model.Collection
	ItemCount       int `json:"item_count"`
	ActiveItemCount int `json:"active_item_count"`
}

func GetCollection(b *Wsb, id []byte) (*model.Collection, error) {
	v := b.Colls().Get(id)
	if v == nil {
		return nil, nil
	}
	return collCache.decode(id, v, "collection")
}

// collCache keeps decoded collections: nearly every read and write needs
// its item's collection, and decoding a schema costs more than the rest
// of a point read.
var collCache = newDecodedCache[model.Collection]()

// FindCollection resolves a collection by id, exact slug, then its
// singular/alias forms. Archived collections still claim their names.
func FindCollection(b *Wsb, ref string) (*model.Collection, error) {
	if id, ok := IDKey(ref); ok {
		return GetCollection(b, id)
	}
	if id := b.CollSlugs().Get([]byte(ref)); id != nil {
		return GetCollection(b, id)
	}
	for _, alt := range model.CollectionAliases(ref) {
		if id := b.CollSlugs().Get([]byte(alt)); id != nil {
			return GetCollection(b, id)
		}
	}
	return nil, nil
}

func CollectionsOf(b *Wsb) ([]*model.Collection, error) {
	var out []*model.Collection
	err := b.Colls().ForEach(func(k, _ []byte) error {
		c, err := GetCollection(b, k)
		if err == nil {
			out = append(out, c)
		}
		return err
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SortOrder != out[j].SortOrder {
			return out[i].SortOrder < out[j].SortOrder
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

func CollectionInfoOf(b *Wsb, c *model.Collection) CollectionInfo {
	live := int(CountOf(b, CollPrefix(MustID(c.ID), LifeLive)))
	key, terms := model.TerminalOptions(c.Schema, c.Settings)
	values := FieldValueCounts(b, c.ID, key)
	done := 0
	for _, t := range terms {
		done += values[t]
	}
	return CollectionInfo{Collection: *c, ItemCount: live, ActiveItemCount: live - done}
}

// Rtx is a read transaction on one live workspace.
type Rtx struct {
	tx    *Txn
	WS    *Wsb
	WSRec *model.Workspace
}

func (s *Base) Read(wsRef string, fn func(r *Rtx) error) error {
	return s.View(func(tx *Txn) error {
		rec, err := LiveWorkspace(tx, wsRef)
		if err != nil {
			return err
		}
		b := OpenWS(tx, rec.ID)
		b.Now = s.Clock()
		return fn(&Rtx{tx: tx, WS: b, WSRec: rec})
	})
}

// LiveCollection is FindCollection that refuses a missing or archived
// one with Pad's message.
func LiveCollection(b *Wsb, ref string) (*model.Collection, error) {
	c, err := FindCollection(b, ref)
	if err != nil {
		return nil, err
	}
	if c == nil || c.ArchivedAt != nil {
		return nil, model.CollectionNotFound(ref)
	}
	return c, nil
}

// AnyCollection is FindCollection that refuses a missing one, archived
// or not.
func AnyCollection(b *Wsb, ref string) (*model.Collection, error) {
	c, err := FindCollection(b, ref)
	if err == nil && c == nil {
		err = model.CollectionNotFound(ref)
	}
	return c, err
}

// CollectionInfos lists a workspace's live (or archived) collections
// with their counts, in a read of its own.
func CollectionInfos(b *Base, ws string, archived bool) ([]CollectionInfo, error) {
	var out []CollectionInfo
	err := b.Read(ws, func(r *Rtx) error {
		cs, err := CollectionsOf(r.WS)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if (c.ArchivedAt != nil) != archived {
				continue
			}
			out = append(out, CollectionInfoOf(r.WS, c))
		}
		return nil
	})
	return out, err
}

// ReadCollectionInfo is the collection find resolves ref to, with its
// counts, in a read of its own.
func ReadCollectionInfo(b *Base, ws, ref string, find func(*Wsb, string) (*model.Collection, error)) (*CollectionInfo, error) {
	var out *CollectionInfo
	err := b.Read(ws, func(r *Rtx) error {
		c, err := find(r.WS, ref)
		if err != nil {
			return err
		}
		ci := CollectionInfoOf(r.WS, c)
		out = &ci
		return nil
	})
	return out, err
}
