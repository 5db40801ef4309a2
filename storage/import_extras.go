package storage

import (
	"bytes"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// What an import keeps beside the records themselves (docs/BUNDLES.md):
// a collection's former prefixes, and its relation defaults given the
// new ids.

// keepFormerPrefixes gives an imported collection the prefixes it had
// before, so its old refs resolve here too. A prefix another collection
// of the import already holds stays that collection's (refs under it
// name that one's items), and one that is not a prefix is left out.
func (w *wtx) keepFormerPrefixes(c *model.Collection, former []string) error {
	p := w.ws.Prefixes()
	for _, f := range former {
		if !model.ValidPrefix(f) || f == c.Prefix {
			continue
		}
		switch owner := p.Get([]byte(f)); {
		case owner == nil:
			if err := p.Put([]byte(f), records.MustID(c.ID)); err != nil {
				return err
			}
		case !bytes.Equal(owner, records.MustID(c.ID)):
			continue
		}
		c.FormerPrefixes = appendUnique(c.FormerPrefixes, f)
	}
	return nil
}

// remapRelationDefaults gives each relation's and multi relation's
// default in the imported collections the new ids of the items it names
// (Pad's BUG-3658): an id the import has no item for is dropped (a list
// keeps its other members) and counted; any other value, such as a ref,
// is kept. The items were made first, and with the fields they were
// exported with: no default filled them (itemImport).
func (w *wtx) remapRelationDefaults(colls map[string]*model.Collection, p *importPlan, o *ImportOutcome) error {
	for _, c := range colls {
		changed := false
		for i := range c.Schema.Fields {
			f := &c.Schema.Fields[i]
			if f.Default == nil || f.Type != model.TypeRelation && f.Type != model.TypeMultiRelation {
				continue
			}
			v, dropped := remapDefault(f.Default, p)
			o.Skipped[SkippedRelationDefaults] += dropped
			f.Default, changed = v, true
		}
		if changed {
			if err := putCollection(w.ws, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// SkippedRelationDefaults counts, in ImportOutcome.Skipped, the relation
// default values dropped for naming an item the import does not hold.
const SkippedRelationDefaults = "relation_default_not_in_export"

// remapDefault is a relation default with each id given the imported
// item's new id, and how many ids it dropped for naming no imported
// item; nil when nothing is left.
func remapDefault(v any, p *importPlan) (any, int) {
	switch x := v.(type) {
	case string:
		if n, ok := p.newID(x); ok {
			return n, 0
		}
		if _, isID := records.IDKey(x); isID {
			return nil, 1
		}
		return x, 0
	case []any:
		out, dropped := make([]any, 0, len(x)), 0
		for _, e := range x {
			r, d := remapDefault(e, p)
			dropped += d
			if r != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil, dropped
		}
		return out, dropped
	}
	return v, 0
}
