package records

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/padd/padd/model"
)

// Links live in three buckets:
//
//	links     link id(16)                           -> model.Link JSON (canonical form)
//	link_src  source id(16) | lstr(type) | link id(16) -> target id(16)
//	link_dst  target id(16) | lstr(type) | link id(16) -> source id(16)
//
// The two edge buckets carry the other end as their value so the graph
// walks (cycle refusal, deps) never decode a link record. isUnparented
// probes link_src for source|lstr("implements"), so that layout is fixed.

// ItemBrief is another item as a link, dependency, backlink or star row
// shows it.
type ItemBrief struct {
	ID             string
	Ref            string
	Slug           string
	Title          string
	Status         string // the value of the collection's done field
	State          model.State
	CollectionSlug string
	CollectionIcon string
	UpdatedAt      string // RFC 3339, as Pad's backlink rows carry it
	Archived       bool   // the item or its collection is archived
}

// CollOf caches collections for a read that touches many items.
func CollOf(b *Wsb, colls map[string]*model.Collection, id string) (*model.Collection, error) {
	if c := colls[id]; c != nil {
		return c, nil
	}
	c, err := GetCollection(b, MustID(id))
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, ErrInternal("item names a missing collection %s", id)
	}
	colls[id] = c
	return c, nil
}

func BriefOf(b *Wsb, it *model.Item, colls map[string]*model.Collection) (ItemBrief, error) {
	c, err := CollOf(b, colls, it.CollectionID)
	if err != nil {
		return ItemBrief{}, err
	}
	status, _ := it.Fields[model.DoneField(c.Schema, c.Settings)].(string)
	return ItemBrief{ID: it.ID, Ref: RefOf(c, it.Number), Slug: it.Slug, Title: it.Title,
		Status: status, State: c.State(it.Fields), CollectionSlug: c.Slug, CollectionIcon: c.Icon,
		UpdatedAt: it.UpdatedAt.UTC().Format(time.RFC3339),
		Archived:  it.DeletedAt != nil || c.ArchivedAt != nil}, nil
}

// Edge is one entry of link_src or link_dst.
type Edge struct {
	LinkID []byte
	Other  []byte
	Typ    string
}

// EdgesOf lists an item's entries in link_src or link_dst, of one type
// or (typ "") of all.
func EdgesOf(bk *Bucket, end []byte, typ string) []Edge {
	p := end
	if typ != "" {
		p = Cat(end, Lstr(typ))
	}
	var out []Edge
	c := bk.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if len(k) < 16+2+16 {
			continue
		}
		n := int(binary.BigEndian.Uint16(k[16:18]))
		if len(k) != 16+2+n+16 {
			continue
		}
		out = append(out, Edge{LinkID: append([]byte(nil), k[18+n:]...),
			Other: append([]byte(nil), v...), Typ: string(k[18 : 18+n])})
	}
	return out
}

func GetLink(b *Wsb, id []byte) (*model.Link, error) {
	v := b.Links().Get(id)
	if v == nil {
		return nil, nil
	}
	var l model.Link
	if err := Decode(v, &l); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored link %s is unreadable: %v", IDString(id), err)
	}
	return &l, nil
}
