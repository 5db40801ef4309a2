package syncer

import (
	"context"
	"fmt"
	"maps"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Implementation notes and decisions (model.IsEntryList) only grow, and
// no server takes them as a field change: padd and Pad both refuse them
// in a fields_patch (400 validation_error). A push sends the entries the
// local side added since the base on their own, as the server takes
// them:
//
//   - where it advertises item_field_append (padd; a Pad newer than
//     August 2026's), one append_implementation_note or append_decision
//     a request, with the entry's own key where keys are honoured and the
//     agent that wrote it; the server gives the entry an id and a time of
//     its own, which padd then takes (the merge knows it by its words);
//   - elsewhere (the Pad of August 2026: its handler ignores both
//     members, answers 200 and writes nothing) the way Pad's own clients
//     append one: the item read, and its whole fields written back with
//     the entries after the remote's, guarded by the version read. Pad
//     keeps them as written, id and time included.
//
// An entry the remote already holds among those the base lacks (the same
// id, or the same words: a write whose answer was lost, or padd killed
// before it kept the answer) is not sent again. A create carries none:
// padd refuses them in a create, so they follow as appends once it is
// answered. An entry edited or removed here cannot be said to either
// server (neither lets a client edit one): the change is set aside with
// padd's entries in the record, and the remote's list stays in the item.

// entryPlan is what a push does with an item's note and decision lists.
type entryPlan struct {
	added   map[string][]any // per list, the local entries after the base's, in order
	changed []string         // lists whose local entries are not the base's plus entries after them
}

// planEntries compares the note and decision lists of base and local
// (local ids).
func planEntries(base, local map[string]any) entryPlan {
	var p entryPlan
	for _, k := range model.EntryLists() {
		added, extends := model.EntriesAdded(base[k], local[k])
		switch {
		case !extends:
			p.changed = append(p.changed, k)
		case len(added) > 0:
			if p.added == nil {
				p.added = map[string][]any{}
			}
			p.added[k] = added
		}
	}
	return p
}

// withoutEntries is fields without the note and decision lists (fields
// itself is not changed).
func withoutEntries(fields map[string]any) map[string]any {
	for _, k := range model.EntryLists() {
		if _, ok := fields[k]; ok {
			out := maps.Clone(fields)
			for _, k := range model.EntryLists() {
				delete(out, k)
			}
			return out
		}
	}
	return fields
}

// sentFields is the local fields as the push says it sent them, for the
// merge of the remote's answer (a copy when it differs): a list the plan
// adds to as the base has it, so that the remote's list, which holds the
// entries (under the server's ids, or as sent), is the one both sides
// keep; a changed list as the local side has it, so that the remote's
// stands.
func (p entryPlan) sentFields(local, base map[string]any) map[string]any {
	if len(p.added) == 0 {
		return local
	}
	out := maps.Clone(local)
	for k := range p.added {
		if v, ok := base[k]; ok {
			out[k] = v
		} else {
			delete(out, k)
		}
	}
	return out
}

// setAsideEntries records the lists whose entries were edited or removed
// here: neither server lets a client change an entry, so the change
// cannot be sent. The record keeps padd's entries the base lacks (local)
// and the base's it lacks (base); the remote's list stays in the item.
func (w *worker) setAsideEntries(itemID string, p entryPlan, base, local map[string]any) error {
	for _, k := range p.changed {
		mine, _ := model.EntriesAdded(base[k], local[k])
		gone, _ := model.EntriesAdded(local[k], base[k])
		if err := w.setAside(storage.SyncConflict{ItemID: itemID, Part: "fields." + k, Base: rawJSON(gone), Local: rawJSON(mine),
			Reason: fmt.Sprintf("%s: an entry edited or removed here cannot be sent (the remote takes new entries only); the remote's entries stay in the item, padd's are kept here", k)}); err != nil {
			return err
		}
	}
	return nil
}

// pushEntries sends the entries add (per list, local ids) to the remote
// item rid, whose latest version this push holds is it, and answers the
// remote's item after them. base is the base's fields (local ids).
func (w *worker) pushEntries(ctx context.Context, c *remote.Client, rws, rid string, it *api.Item, base map[string]any, add map[string][]any) (*api.Item, error) {
	theirs, err := api.DecodeObject(it.Fields)
	if err != nil {
		return nil, &remote.Error{Kind: remote.KindBadAnswer, Method: "GET", Path: "items/" + rid, Err: err}
	}
	pending := map[string][]any{}
	for _, k := range model.EntryLists() {
		if len(add[k]) == 0 {
			continue
		}
		out := w.outFields(map[string]any{k: add[k], "base": base[k]}) // attachment ids as the remote has them
		mine, _ := model.Entries(out[k])
		held, _ := model.EntriesAdded(out["base"], theirs[k])
		taken := make([]bool, len(held))
		for _, e := range mine {
			if !holds(k, held, taken, e) {
				pending[k] = append(pending[k], e)
			}
		}
	}
	if len(pending) == 0 {
		return it, nil
	}
	if w.caps != nil && w.caps.Has("item_field_append") {
		for _, k := range model.EntryLists() {
			for _, e := range pending[k] {
				in, key, agent := appendOf(k, e)
				x, err := c.AppendToItem(ctx, rws, rid, in, key, agent)
				if err != nil {
					return nil, err
				}
				it = x
			}
		}
		return it, nil
	}
	fields := maps.Clone(theirs)
	for k, es := range pending {
		list, _ := model.Entries(theirs[k])
		fields[k] = append(append([]any{}, list...), es...)
	}
	// Force: the open-children guard held where the entries were written.
	return c.UpdateItem(ctx, rws, rid, api.ItemUpdate{Fields: flex(fields), Force: true}, remote.Base{Seq: it.Seq, UpdatedAt: it.UpdatedAt})
}

// holds says list held (entries the remote has that the base lacks)
// holds entry e not yet taken by another, and takes it.
func holds(key string, held []any, taken []bool, e any) bool {
	for i, h := range held {
		if !taken[i] && model.SameEntry(key, e, h) {
			taken[i] = true
			return true
		}
	}
	return false
}

// appendOf is the append of entry e of list key: the request, its key
// (the entry's id: the same entry is always the same request) and the
// agent that wrote it.
func appendOf(key string, e any) (in api.ItemUpdate, opKey, agent string) {
	m, _ := e.(map[string]any)
	str := func(k string) string { s, _ := m[k].(string); return s }
	kind := "note"
	if key == model.FieldDecisionLog {
		kind = "decision"
		in.AppendDecision = &api.DecisionEntry{Decision: str("decision"), Rationale: str("rationale")}
	} else {
		in.AppendImplementationNote = &api.NoteEntry{Summary: str("summary"), Details: str("details")}
	}
	if id := str("id"); id != "" {
		opKey = "padd-" + kind + "-" + id
	}
	if str("created_by") == model.ActorAgent {
		agent = str("agent")
	}
	return in, opKey, agent
}
