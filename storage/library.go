package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Built-in library activation (Pad's LIB-01) and the origin records of
// activated items (LIB-02).
//
//	builtin_origin  item id(16) -> builtinOrigin JSON
//
// The origin lives beside the item rather than in its fields: it is
// padd's bookkeeping, not something a user edits, exports or filters
// on, and keeping it out of the fields keeps it out of every write door.

// LibraryActivate names the entry to activate: by key, else by title.
type LibraryActivate struct {
	Key   string
	Title string
	Idem  Idem
}

// ActivateResult is an activation's answer.
type ActivateResult struct {
	*ItemResult
	Entry    model.LibraryEntry
	SeedHash string
	// OptionsAdded lists, per select field, the library words added to
	// the destination collection's options so the entry's values fit.
	OptionsAdded map[string][]string
}

// ensureWSSubBuckets creates every per-workspace sub-bucket a workspace
// made by an older padd lacks. It is idempotent, so any layout step
// that only adds buckets to wsSubBuckets can be this function.
func ensureWSSubBuckets(tx *records.Txn) error {
	root := tx.Bucket(records.BWS)
	if root == nil {
		return nil
	}
	return root.ForEachBucket(func(k []byte) error {
		ws := root.Bucket(k)
		for _, name := range records.WSSubBuckets {
			if _, err := ws.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// ActivateLibrary copies a library entry into the workspace as an item
// of the collection holding its kind, in one transaction with the
// item's origin record. A convention also gets its reserved convention
// metadata. When the destination's trigger or scope select does not
// list the entry's word, the word is added to the options (Pad's
// COL-10 widening, limited to library words) and reported. Activating
// an entry twice makes two items, unless a unique field such as a
// playbook's invocation_slug refuses (409 conflict).
func (s *Store) ActivateLibrary(ws string, in LibraryActivate, actor model.Actor) (*ActivateResult, error) {
	entry, ok := model.FindLibraryEntry(in.Key, in.Title)
	if !ok {
		return nil, model.LibraryNotFound(in.Key, in.Title)
	}
	var res *ActivateResult
	err := s.write(ws, actor, func(w *wtx) error {
		res = &ActivateResult{Entry: entry, SeedHash: entry.Hash()}
		if replay, err := w.idemReplay(in.Idem); err != nil || replay != nil {
			if replay != nil {
				res.ItemResult, err = w.replayItem(replay)
			}
			return err
		}
		r, added, err := w.activate(entry)
		if err != nil {
			return err
		}
		res.ItemResult, res.OptionsAdded = r, added
		return w.idemSave(in.Idem, idemRecord{ItemID: r.Item.ID})
	})
	return res, err
}

func (w *wtx) activate(entry model.LibraryEntry) (*ItemResult, map[string][]string, error) {
	b := w.ws
	dests, err := records.KindCollections(b, entry.Kind)
	if err != nil {
		return nil, nil, err
	}
	if len(dests) == 0 {
		return nil, nil, model.NotFound("this workspace has no collection for %ss (one whose schema has the %s fields); create it, or restore an archived one", entry.Kind, entry.Kind).
			With("kind", entry.Kind)
	}
	c := dests[0]
	fields := map[string]any{}
	for k, v := range entry.Fields() {
		if c.Schema.Declares(k) { // what the schema lacks still rides in the reserved copy
			fields[k] = v
		}
	}
	added, err := w.widenLibraryOptions(c, fields)
	if err != nil {
		return nil, nil, err
	}
	r, err := w.createItem(ItemCreate{Collection: c.ID, Title: entry.Title(), Content: entry.Content(), Fields: fields})
	if err != nil {
		return nil, nil, err
	}
	if cp := entry.ConventionCopy(); len(cp) > 0 {
		// Reserved keys are refused at every write door, so the system
		// writes the copy itself, into the record just created, under the
		// create's own seq.
		it, err := records.GetItem(b, records.MustID(r.Item.ID), true)
		if err != nil {
			return nil, nil, err
		}
		it.Fields[model.FieldConvention] = cp
		if err := putItem(b, it); err != nil {
			return nil, nil, err
		}
		r.Item.Fields = it.Fields
	}
	orig, err := b.Sub(records.BOrigins)
	if err != nil {
		return nil, nil, err
	}
	v, err := records.Encode(records.BuiltinOrigin{Key: entry.Key(), SeedHash: entry.Hash(), Kind: entry.Kind})
	if err != nil {
		return nil, nil, err
	}
	if err := orig.Put(records.MustID(r.Item.ID), v); err != nil {
		return nil, nil, err
	}
	return r, added, nil
}

// widenLibraryOptions adds the entry's trigger and scope words to the
// destination's select options when they are missing, as one stamped
// collection update. Other selects are left to the item's validation.
func (w *wtx) widenLibraryOptions(c *model.Collection, fields map[string]any) (map[string][]string, error) {
	var added map[string][]string
	for i, f := range c.Schema.Fields {
		v, ok := fields[f.Key].(string)
		if !ok || f.Type != model.TypeSelect || f.Key != "trigger" && f.Key != "scope" || f.HasOption(v) {
			continue
		}
		opts := append([]string(nil), f.Options...)
		c.Schema.Fields[i].Options = append(opts, v)
		if added == nil {
			added = map[string][]string{}
		}
		added[f.Key] = append(added[f.Key], v)
	}
	if added == nil {
		return nil, nil
	}
	c.UpdatedAt = records.Tstamp(w.now)
	seq, err := w.stamp(model.EntityCollection, model.OpUpdated, c.ID, "", c.ID)
	if err != nil {
		return nil, err
	}
	c.Seq = seq
	if err := putCollection(w.ws, c); err != nil {
		return nil, err
	}
	return added, w.activity(seq, "", "collection_updated", map[string]any{"collection": c.Slug,
		"options_added": added, "options_added_collection": c.Slug})
}

// builtinOrigin reports the library entry an item was activated from:
// its key and the version activated; ok is false for other items.
func (s *Store) builtinOrigin(ws, ref string) (key, seedHash string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, ref, false)
		if err != nil {
			return err
		}
		orig, err := r.WS.Sub(records.BOrigins)
		if err != nil {
			return err
		}
		raw := orig.Get(records.MustID(it.ID))
		if raw == nil {
			return nil
		}
		var o records.BuiltinOrigin
		if err := records.Decode(raw, &o); err != nil {
			return records.ErrInternal("origin record of %s is unreadable: %v", ref, err)
		}
		key, seedHash, ok = o.Key, o.SeedHash, true
		return nil
	})
	return key, seedHash, ok, err
}

// originOf is an origin record as an export writes it; nil when there is
// none or it cannot be read (the item then travels without one).
func originOf(raw []byte) *LibraryOrigin {
	var o records.BuiltinOrigin
	if raw == nil || records.Decode(raw, &o) != nil || o.Key == "" {
		return nil
	}
	return &LibraryOrigin{Key: o.Key, SeedHash: o.SeedHash}
}

// putOrigin records that item id was activated from o (an import's
// origin). The kind is the entry's when this padd's library has it.
func putOrigin(b *records.Wsb, id string, o LibraryOrigin) error {
	orig, err := b.Sub(records.BOrigins)
	if err != nil {
		return err
	}
	rec := records.BuiltinOrigin{Key: o.Key, SeedHash: o.SeedHash}
	if e, ok := model.FindLibraryEntry(o.Key, ""); ok {
		rec.Kind = e.Kind
	}
	v, err := records.Encode(rec)
	if err != nil {
		return err
	}
	return orig.Put(records.MustID(id), v)
}
