package records

import (
	"sort"
	"sync"

	"github.com/padd/padd/model"
)

// Built-in library activation (Pad's LIB-01) and the origin records of
// activated items (LIB-02).
//
//	builtin_origin  item id(16) -> builtinOrigin JSON
//
// The origin lives beside the item rather than in its fields: it is
// padd's bookkeeping, not something a user edits, exports or filters
// on, and keeping it out of the fields keeps it out of every write door.

// BuiltinOrigin says which library entry an item was activated from and
// which version of it.
type BuiltinOrigin struct {
	Key      string `json:"key"`
	SeedHash string `json:"seed_hash"`
	Kind     string `json:"kind"`
}

// Sub opens one of the sub-buckets wsb does not carry as a member.
func (b *Wsb) Sub(name []byte) (*Bucket, error) {
	bk := b.Root.Bucket(name)
	if bk == nil {
		return nil, ErrInternal("workspace %s has no %s bucket; restart padd to migrate it", b.ID, name)
	}
	return bk, nil
}

// OfKind is KindCollections over collections already read.
func OfKind(cs []*model.Collection, kind string) []*model.Collection {
	var out []*model.Collection
	for _, c := range cs {
		if c.ArchivedAt == nil && model.CollectionKind(c) == kind {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].IsSystem && !out[j].IsSystem })
	return out
}

// libraryHashes is each library entry's current version, by key.
var libraryHashes = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, cat := range model.ConventionLibrary() {
		for i := range cat.Conventions {
			e := model.LibraryEntry{Kind: model.KindConvention, Convention: &cat.Conventions[i]}
			out[e.Key()] = e.Hash()
		}
	}
	for _, cat := range model.PlaybookLibrary() {
		for i := range cat.Playbooks {
			e := model.LibraryEntry{Kind: model.KindPlaybook, Playbook: &cat.Playbooks[i]}
			out[e.Key()] = e.Hash()
		}
	}
	return out
})

// BuiltinUpdates counts live activated items whose library entry has
// changed since activation: the updates bootstrap tells the agent about.
func BuiltinUpdates(b *Wsb) (int, error) {
	orig, err := b.Sub(BOrigins)
	if err != nil {
		return 0, err
	}
	hashes := libraryHashes()
	n := 0
	err = orig.ForEach(func(k, v []byte) error {
		var o BuiltinOrigin
		if Decode(v, &o) != nil {
			return nil // an unreadable origin is unknown_origin, not an update
		}
		h, known := hashes[o.Key]
		if !known || h == o.SeedHash {
			return nil
		}
		if it, err := GetItem(b, k, false); err != nil || it == nil || it.DeletedAt != nil {
			return err
		}
		n++
		return nil
	})
	return n, err
}

// KindCollections lists the live collections holding a library kind,
// system ones first, then in sort order. The kind is read from the
// schema (model.CollectionKind), not the slug, so a renamed
// conventions or playbooks collection keeps its role.
func KindCollections(b *Wsb, kind string) ([]*model.Collection, error) {
	cs, err := CollectionsOf(b)
	return OfKind(cs, kind), err
}
