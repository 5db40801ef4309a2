package storage

import (
	"bytes"

	"github.com/padd/padd/model"
)

// What an import keeps beside the records themselves (docs/BUNDLES.md):
// a collection's former prefixes.

// keepFormerPrefixes gives an imported collection the prefixes it had
// before, so its old refs resolve here too. A prefix another collection
// of the import already holds stays that collection's (refs under it
// name that one's items), and one that is not a prefix is left out.
func (w *wtx) keepFormerPrefixes(c *model.Collection, former []string) error {
	p := w.ws.prefixes()
	for _, f := range former {
		if !model.ValidPrefix(f) || f == c.Prefix {
			continue
		}
		switch owner := p.Get([]byte(f)); {
		case owner == nil:
			if err := p.Put([]byte(f), mustID(c.ID)); err != nil {
				return err
			}
		case !bytes.Equal(owner, mustID(c.ID)):
			continue
		}
		c.FormerPrefixes = appendUnique(c.FormerPrefixes, f)
	}
	return nil
}

// heldDefaults are the schema defaults of an import's collections, by
// collection and field position, held back while the items are made:
// an item is made with the fields it was exported with, and a default
// fills only what a new item leaves out (an exported item that lacks a
// field with a default lacked it there too). A required field's default
// stays, to fill an item that lacks the field (as a create would), but
// a relation's is held whatever: it names the exported items' ids until
// restore gives it the new ones.
type heldDefaults map[*model.Collection]map[int]any

// hold takes c's defaults out of its schema until restore.
func (h heldDefaults) hold(c *model.Collection) {
	for i := range c.Schema.Fields {
		f := &c.Schema.Fields[i]
		if f.Default == nil || f.Required && f.Type != model.TypeRelation && f.Type != model.TypeMultiRelation {
			continue
		}
		if h[c] == nil {
			h[c] = map[int]any{}
		}
		h[c][i], f.Default = f.Default, nil
	}
}

// restore puts the defaults back, a relation's and a multi relation's
// naming the imported items by their new ids (Pad's BUG-3658): an id
// the import has no item for is dropped (a list keeps its other
// members) and counted; any other value, such as a ref, is kept.
func (h heldDefaults) restore(w *wtx, ids map[string]string, o *ImportOutcome) error {
	for c, defs := range h {
		for i, v := range defs {
			f := &c.Schema.Fields[i]
			if f.Type == model.TypeRelation || f.Type == model.TypeMultiRelation {
				var dropped int
				v, dropped = remapDefault(v, ids)
				if dropped > 0 {
					o.Skipped[SkippedRelationDefaults] += dropped
				}
			}
			f.Default = v
		}
		if err := putCollection(w.ws, c); err != nil {
			return err
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
func remapDefault(v any, ids map[string]string) (any, int) {
	switch x := v.(type) {
	case string:
		if n, ok := ids[x]; ok {
			return n, 0
		}
		if _, isID := idKey(x); isID {
			return nil, 1
		}
		return x, 0
	case []any:
		out, dropped := make([]any, 0, len(x)), 0
		for _, e := range x {
			r, d := remapDefault(e, ids)
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
