package syncer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/remote/merge"
	"github.com/padd/padd/storage"
)

// Relation fields (relation, multi_relation) name items by id, and each
// side has ids of its own: a value comes in with padd's id of the item it
// names (the id map, or the map of remote refs: Pad keeps a value as it
// was written, and a ref is one way to write it) and goes out with the
// remote's. Which keys are relations is the local collection's schema's
// word.
//
// A value naming an item padd has not got yet waits, and nothing of it
// is lost: its key keeps its old value in the item and in the base, and
// the remote's value is kept in the base (SyncBase.Waiting), written in
// the same transaction as the item, with the item marked
// (SetRelationWait). Once the item named is mapped (a later page of a
// clone, the other end of a cycle, a later pull), the remote's value is
// merged as a change of the remote's (resolveWaiting). The base never
// holds a value the local item lacks for want of its target, so a wait
// is never read as a local delete. A value naming an item the remote
// does not have (a 404 when padd reads it) is dropped, with a set-aside
// record saying so, and the item keeps the rest.
//
// Going out, a value naming an item the remote has not got yet (made
// here, not pushed yet) is held back: the key is sent as the base has
// it, the item stays marked, and it is pushed again once the item named
// is (the drain's last step): a local id never reaches the remote.

// isRelation says a field holds item ids.
func isRelation(def *model.FieldDef) bool {
	return def.Type == model.TypeRelation || def.Type == model.TypeMultiRelation
}

// hasRelationDefault says a schema has a relation field with a default.
func hasRelationDefault(s model.Schema) bool {
	return slices.ContainsFunc(s.Fields, func(f model.FieldDef) bool { return isRelation(&f) && f.Default != nil })
}

// hasRelations says a schema declares a relation field.
func hasRelations(s model.Schema) bool {
	return slices.ContainsFunc(s.Fields, func(f model.FieldDef) bool { return isRelation(&f) })
}

// relDrop is a relation value, or one element of a list, that came in
// naming no item either side has: it is dropped and the user told.
type relDrop struct {
	key   string
	value any
	why   string
}

// relationElems is a relation value's elements: a relation's one
// string, a multi_relation's list (a string is split at commas, as
// padd's own doors read one: Pad keeps a multi_relation as it is
// written, and its CLI writes a comma list as text). list says the
// value is a multi_relation's; ok is false for a value of another shape.
func relationElems(def *model.FieldDef, v any) (elems []any, list, ok bool) {
	if def.Type == model.TypeRelation {
		return []any{v}, false, true
	}
	switch x := v.(type) {
	case []any:
		return x, true, true
	case string:
		parts, _ := model.CoerceEntryValue(def, x)
		p, ok := parts.([]any)
		return p, true, ok
	}
	return nil, true, false
}

// relationIn maps one remote relation value to local ids by look. It
// waits (waits true, nothing dropped yet) when an element names an item
// look does not know and gone does not say the remote lacks. Otherwise
// out is the value in local ids (nil: the key is absent), with the
// elements dropped: one naming an item the remote lacks (gone), one that
// is no item's id (not a string, blank), one naming an item an earlier
// element named.
func relationIn(def *model.FieldDef, v any, look func(string) (string, bool), gone map[string]bool) (out any, waits bool, drops []relDrop) {
	elems, list, ok := relationElems(def, v)
	if !ok {
		return nil, false, []relDrop{{def.Key, v, "which is not a list of item ids"}}
	}
	mapped := make([]any, 0, len(elems))
	seen := map[string]bool{}
	for _, e := range elems {
		s, isStr := e.(string)
		s = strings.TrimSpace(s)
		if !isStr || s == "" {
			if isStr && !list {
				return nil, false, nil // a blank relation is no value: the key is absent
			}
			drops = append(drops, relDrop{def.Key, e, "which names no item"})
			continue
		}
		local, found := look(s)
		switch {
		case found && seen[local]:
			drops = append(drops, relDrop{def.Key, e, "an item an earlier element names too"})
		case found:
			seen[local] = true
			mapped = append(mapped, local)
		case gone[s]:
			drops = append(drops, relDrop{def.Key, e, "which names no item the remote has"})
		default:
			return nil, true, nil
		}
	}
	switch {
	case len(mapped) == 0:
		return nil, false, drops
	case !list:
		return mapped[0], false, drops
	}
	return mapped, false, drops
}

// relationsIn maps the relation values of rem, as schema (the local
// collection's) declares them, to local ids (relationIn). A key that
// waits leaves rem.side.Fields and is kept in rem.waiting as the remote
// sent it; settle gives it the base's value (holdWaiting).
func relationsIn(schema model.Schema, rem *remoteItem, look func(string) (string, bool), gone map[string]bool) {
	rem.waiting, rem.dropped = nil, nil
	for i := range schema.Fields {
		def := &schema.Fields[i]
		v, ok := rem.side.Fields[def.Key]
		if !isRelation(def) || !ok || v == nil {
			continue
		}
		out, waits, drops := relationIn(def, v, look, gone)
		rem.dropped = append(rem.dropped, drops...)
		switch {
		case waits:
			if rem.waiting == nil {
				rem.waiting = map[string]any{}
			}
			rem.waiting[def.Key] = v
			delete(rem.side.Fields, def.Key)
		case out == nil:
			delete(rem.side.Fields, def.Key)
		default:
			rem.side.Fields[def.Key] = out
		}
	}
}

// holdWaiting gives each waiting key of rem the value base holds (none
// without a base): the remote's change of it is merged once it can be
// mapped, and until then it is no change.
func (r *remoteItem) holdWaiting(base *merge.Item) {
	for k := range r.waiting {
		if base != nil {
			if v, ok := base.Fields[k]; ok {
				if r.side.Fields == nil {
					r.side.Fields = map[string]any{}
				}
				r.side.Fields[k] = v
				continue
			}
		}
		delete(r.side.Fields, k)
	}
}

// lookIn is how the engine, outside a transaction, finds the local item
// a remote relation value names: by the id map, else by the map of
// remote refs.
func (w *worker) lookIn(s string) (string, bool) {
	if id, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, s); err == nil && ok {
		return id, true
	}
	id, ok, err := w.m.sync.SyncItemByRemoteRef(w.wsID, s)
	return id, ok && err == nil
}

// lookInTx is lookIn inside a transaction.
func lookInTx(t *storage.SyncTx) func(string) (string, bool) {
	return func(s string) (string, bool) {
		if id, ok := t.LocalID(storage.SyncItem, s); ok {
			return id, true
		}
		return t.ItemByRemoteRef(s)
	}
}

// mapRelations maps rem's relation values by its (already mapped) local
// collection's schema, outside a transaction.
func (w *worker) mapRelations(rem *remoteItem, gone map[string]bool) error {
	if rem.side.Collection == "" || len(rem.side.Fields) == 0 {
		return nil
	}
	schema, err := w.m.views.CollectionSchema(w.wsID, rem.side.Collection)
	if model.IsNotFound(err) || err == nil && !hasRelations(schema) {
		return nil
	}
	if err != nil {
		return err
	}
	relationsIn(schema, rem, w.lookIn, gone)
	return nil
}

// waitingTargets are the values (ids or refs) that waiting's values
// name and look does not know, but for those in skip.
func waitingTargets(waiting map[string]any, schema model.Schema, look func(string) (string, bool), skip ...string) []string {
	var out []string
	for i := range schema.Fields {
		def := &schema.Fields[i]
		v, ok := waiting[def.Key]
		if !ok || !isRelation(def) {
			continue
		}
		elems, _, _ := relationElems(def, v)
		for _, e := range elems {
			s, _ := e.(string)
			s = strings.TrimSpace(s)
			if s == "" || slices.Contains(skip, s) || slices.Contains(out, s) {
				continue
			}
			if _, ok := look(s); !ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// fetchTargets reads from the remote each item that targets name (by id
// or ref) and pulls it, as a parent is pulled (depth 1: what it names in
// turn waits, so a cycle of relations is no recursion). It answers the
// targets the remote does not have: a 404, or an item that answers to
// the value by neither its id nor its ref (a slug). A target padd cannot
// take (set aside when pulled) stays unmapped, and its value waits.
func (w *worker) fetchTargets(ctx context.Context, c *remote.Client, link *storage.RemoteLink, targets []string) (map[string]bool, error) {
	gone := map[string]bool{}
	for _, s := range targets {
		if _, ok := w.lookIn(s); ok {
			continue // pulled meanwhile, as another's target
		}
		it, err := c.GetItem(ctx, link.RemoteWorkspaceID, s)
		switch {
		case remote.IsNotFound(err) && !remote.IsWorkspaceGone(err):
			gone[s] = true
			continue
		case err != nil:
			if err := w.asideIfRefused(err, "the remote's item "+s+", named by a relation field"); err != nil {
				return nil, err
			}
			continue
		case it.ID != s && !strings.EqualFold(it.Ref, s):
			gone[s] = true
			continue
		}
		if err := w.applyRemote(ctx, c, link, it, 1); err != nil {
			if err := w.asideIfRefused(err, "the remote's item "+it.Ref); err != nil {
				return nil, err
			}
		}
	}
	return gone, nil
}

// droppedRelations records the relation values rem came in with that
// name no item (relationIn), on local item localID: set aside, so the
// item is written without them and the user is told.
func droppedRelations(t *storage.SyncTx, localID string, rem *remoteItem) error {
	for _, d := range rem.dropped {
		raw, _ := json.Marshal(d.value)
		if _, err := t.AddConflict(storage.SyncConflict{Kind: storage.EntrySetAside, ItemID: localID, Part: "fields." + d.key,
			Remote: raw, Reason: fmt.Sprintf("the remote's field %s holds %s, %s: padd keeps the item without it", d.key, raw, d.why)}); err != nil {
			return err
		}
	}
	return nil
}

// noteWaits marks local item localID as waiting for a relation's item
// when the remote's values wait (waiting) or its own (fields, in
// collection coll, as the write left them) name an item the remote has
// not got yet, and unmarks it otherwise.
func noteWaits(t *storage.SyncTx, localID string, waiting map[string]any, coll string, fields map[string]any) error {
	on := len(waiting) > 0
	if !on {
		c, err := t.Collection(coll)
		if err != nil {
			return err
		}
		if c != nil && hasRelations(c.Schema) {
			on = len(unsentRelations(c.Schema, fields, func(id string) bool { _, ok := t.RemoteID(storage.SyncItem, id); return ok })) > 0
		}
	}
	return t.SetRelationWait(localID, on)
}

// unsentRelations are the relation keys of fields (by schema) whose
// value names a local item the remote has not got (onRemote false): an
// id-shaped element padd cannot map. Other text is no local id, and
// goes as it is.
func unsentRelations(schema model.Schema, fields map[string]any, onRemote func(string) bool) []string {
	var out []string
	for i := range schema.Fields {
		def := &schema.Fields[i]
		v, ok := fields[def.Key]
		if !ok || !isRelation(def) {
			continue
		}
		elems, _, _ := relationElems(def, v)
		for _, e := range elems {
			if s, _ := e.(string); isID(s) && !onRemote(s) {
				out = append(out, def.Key)
				break
			}
		}
	}
	return out
}

func isID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// onRemote says a local item has a remote twin.
func (w *worker) onRemote(id string) bool {
	_, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, id)
	return ok && err == nil
}

// withhold holds back from local (the item as it is to be sent) each
// relation key the remote cannot take yet, and answers them: one whose
// value names an item the remote has not got, and one whose remote value
// is waiting to be merged here (b.Waiting: sent now, it would overwrite
// the remote's change unseen). Such a key is sent as base has it (left
// out without a base).
func (w *worker) withhold(local, base *merge.Item, b *storage.SyncBase) ([]string, error) {
	schema, err := w.m.views.CollectionSchema(w.wsID, local.Collection)
	if model.IsNotFound(err) {
		return nil, nil
	}
	if err != nil || !hasRelations(schema) {
		return nil, err
	}
	held := unsentRelations(schema, local.Fields, w.onRemote)
	if b != nil {
		for k := range b.Waiting {
			if !slices.Contains(held, k) {
				held = append(held, k)
			}
		}
	}
	if len(held) == 0 {
		return nil, nil
	}
	fields := make(map[string]any, len(local.Fields))
	for k, v := range local.Fields {
		fields[k] = v
	}
	for _, k := range held {
		if v, ok := fieldOf(base, k); ok {
			fields[k] = v
		} else {
			delete(fields, k)
		}
	}
	local.Fields = fields
	return held, nil
}

// relationOut is a relation value in the remote's ids. held says an
// element names a local item the remote has not got yet (a local id it
// cannot map): the value cannot go. An id the remote's own (a default
// still as the remote has it) and other text go as they are.
func (w *worker) relationOut(def *model.FieldDef, v any) (out any, held bool, err error) {
	elems, list, ok := relationElems(def, v)
	if !ok {
		return v, false, nil
	}
	mapped := make([]any, 0, len(elems))
	for _, e := range elems {
		s, _ := e.(string)
		switch rid, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncItem, s); {
		case err != nil:
			return nil, false, err
		case ok:
			mapped = append(mapped, rid)
		case isID(s) && !w.remoteItemID(s):
			return nil, true, nil
		default:
			mapped = append(mapped, e)
		}
	}
	if list || len(mapped) != 1 {
		return mapped, false, nil
	}
	return mapped[0], false, nil
}

// relationsOut is fields (a create's, or a patch's) with each relation
// value, as coll's schema declares them, in the remote's ids (a value
// withhold did not hold back names nothing the remote lacks; one that
// does is left out all the same).
func (w *worker) relationsOut(coll string, fields map[string]any) (map[string]any, error) {
	if len(fields) == 0 {
		return fields, nil
	}
	schema, err := w.m.views.CollectionSchema(w.wsID, coll)
	if model.IsNotFound(err) {
		return fields, nil
	}
	if err != nil || !hasRelations(schema) {
		return fields, err
	}
	var out map[string]any
	for i := range schema.Fields {
		def := &schema.Fields[i]
		v, ok := fields[def.Key]
		if !ok || v == nil || !isRelation(def) {
			continue
		}
		mapped, held, err := w.relationOut(def, v)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make(map[string]any, len(fields))
			for k, v := range fields {
				out[k] = v
			}
		}
		if held {
			delete(out, def.Key)
		} else {
			out[def.Key] = mapped
		}
	}
	if out == nil {
		return fields, nil
	}
	return out, nil
}

// fieldOf is a field of an item side that may be nil.
func fieldOf(m *merge.Item, k string) (any, bool) {
	if m == nil {
		return nil, false
	}
	v, ok := m.Fields[k]
	return v, ok
}

// resolveWaiting merges the remote's relation values that waited for
// their items (SyncBase.Waiting), now that the items are mapped; with
// fetch, it first reads from the remote the items still missing
// (fetchTargets), and drops what names an item the remote does not
// have. Each item is merged in a write of its own, as a pull of the
// remote's version the base records (the remote's tokens are unchanged).
func (w *worker) resolveWaiting(ctx context.Context, c *remote.Client, link *storage.RemoteLink, fetch bool) error {
	ids, err := w.m.sync.SyncRelationWaits(w.wsID)
	if err != nil || len(ids) == 0 {
		return err
	}
	type waiter struct {
		id     string
		b      *storage.SyncBase
		schema model.Schema
	}
	var ws []waiter
	var targets []string
	for _, id := range ids {
		b, err := w.m.sync.SyncBase(w.wsID, id)
		if err != nil {
			return err
		}
		if b == nil || len(b.Waiting) == 0 {
			continue // a local value waits: the drain's (relationPushes)
		}
		if !w.onRemote(id) {
			// The remote no longer has the item (remoteGone): what its
			// values waited for is moot; a push makes it there again.
			if err := w.keepWaiting(id, false); err != nil {
				return err
			}
			continue
		}
		schema, err := w.m.views.CollectionSchema(w.wsID, b.CollectionID)
		if model.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		ws = append(ws, waiter{id, b, schema})
		if fetch {
			for _, s := range waitingTargets(b.Waiting, schema, w.lookIn) {
				if !slices.Contains(targets, s) {
					targets = append(targets, s)
				}
			}
		}
	}
	var gone map[string]bool
	if len(targets) > 0 {
		if gone, err = w.fetchTargets(ctx, c, link, targets); err != nil {
			return err
		}
	}
	for _, x := range ws {
		if !waitResolves(x.b.Waiting, x.schema, w.lookIn, gone) {
			continue
		}
		err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			return w.resolveItem(t, x.id, gone)
		})
		if isRefusal(err) {
			err = w.setAside(storage.SyncConflict{ItemID: x.id, Reason: "padd refused the remote's relation values, once their items arrived: " + err.Error()})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// waitResolves says some key of waiting can be mapped now (or dropped),
// or is no relation any more (the schema changed).
func waitResolves(waiting map[string]any, schema model.Schema, look func(string) (string, bool), gone map[string]bool) bool {
	for k, v := range waiting {
		def := relationDef(schema, k)
		if def == nil {
			return true
		}
		if _, waits, _ := relationIn(def, v, look, gone); !waits {
			return true
		}
	}
	return false
}

// relationDef is schema's relation field of key k; nil when it declares
// none.
func relationDef(schema model.Schema, k string) *model.FieldDef {
	for i := range schema.Fields {
		if def := &schema.Fields[i]; def.Key == k && isRelation(def) {
			return def
		}
	}
	return nil
}

// resolveItem merges, in t, the waiting relation values of local item id
// that can be mapped now: the remote's side is the base (the version the
// remote's tokens name) with them in it.
func (w *worker) resolveItem(t *storage.SyncTx, id string, gone map[string]bool) error {
	b, err := t.Base(id)
	if err != nil || b == nil || len(b.Waiting) == 0 {
		return err
	}
	coll, err := t.Collection(b.CollectionID)
	if err != nil || coll == nil {
		return err
	}
	rid, _ := t.RemoteID(storage.SyncItem, id)
	at, _ := time.Parse(time.RFC3339Nano, b.RemoteUpdatedAt)
	rem := &remoteItem{api: &api.Item{ID: rid, Seq: b.RemoteSeq, UpdatedAt: at}, side: *baseSide(b), held: b.Held,
		released: b.Released}
	fields := make(map[string]any, len(b.Fields)+len(b.Waiting))
	for k, v := range b.Fields {
		fields[k] = v
	}
	rem.side.Fields = fields
	look := lookInTx(t)
	for k, v := range b.Waiting {
		def := relationDef(coll.Schema, k)
		if def == nil { // no relation any more: the remote's value as it is
			fields[k] = v
			continue
		}
		out, waits, drops := relationIn(def, v, look, gone)
		switch {
		case waits:
			if rem.waiting == nil {
				rem.waiting = map[string]any{}
			}
			rem.waiting[k] = v
		case out == nil:
			delete(fields, k)
		default:
			fields[k] = out
		}
		rem.dropped = append(rem.dropped, drops...)
	}
	return w.settle(t, id, nil, rem)
}

// relationPushes adds to again the marked items (SetRelationWait) that
// the remote knows: an item whose relation value waited for its item to
// reach the remote is pushed once it has (an item still waiting sends
// nothing: updateRemote holds the key back and finds nothing to send).
func (w *worker) relationPushes(again map[string]bool) error {
	ids, err := w.m.sync.SyncRelationWaits(w.wsID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if w.onRemote(id) {
			again[id] = true
		}
	}
	return nil
}

// keepWaiting marks (on) or unmarks local item id when it is not so
// already: a push that held a relation key back and sent nothing else
// writes no base, and the mark is what finds it again after a restart.
func (w *worker) keepWaiting(id string, on bool) error {
	marked, err := w.m.sync.SyncRelationWait(w.wsID, id)
	if err != nil || marked == on {
		return err
	}
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error { return t.SetRelationWait(id, on) })
}

// relationsOf maps a pulled item's relation values (mapRelations); for
// the item a pull asked for (depth 0), the items they name that padd has
// not got are pulled first, as a parent is, and what the remote does
// not have is dropped. What is still missing (the item itself, the
// other end of a cycle being pulled, an item padd set aside) waits.
func (w *worker) relationsOf(ctx context.Context, c *remote.Client, link *storage.RemoteLink, rem *remoteItem, depth int) error {
	sent := make(map[string]any, len(rem.side.Fields)) // the remote's values, to map again
	for k, v := range rem.side.Fields {
		sent[k] = v
	}
	if err := w.mapRelations(rem, nil); err != nil || len(rem.waiting) == 0 || depth > 0 {
		return err
	}
	schema, err := w.m.views.CollectionSchema(w.wsID, rem.side.Collection)
	if err != nil {
		return err
	}
	targets := waitingTargets(rem.waiting, schema, w.lookIn, rem.api.ID, rem.api.Ref)
	if len(targets) == 0 {
		return nil
	}
	gone, err := w.fetchTargets(ctx, c, link, targets)
	if err != nil {
		return err
	}
	rem.side.Fields = sent
	return w.mapRelations(rem, gone)
}

// A relation field's default names an item too (a new item gets it).
// It comes in mapped where every item it names is mapped, and as the
// remote has it otherwise: the collections come before the items in a
// clone, so the items it names are pulled later, and the schema is read
// again then (defaultsArrived), which the merge takes as the remote's
// change. It goes out mapped; one naming an item the remote has not got
// yet is sent as the remote has it (the next push of the collection
// after that item's sends it: pushAll pushes the collections that have
// one again after the items).

// schemaIn is schema with its relation defaults in padd's ids, where
// look maps every item they name (nil look: as it is).
func schemaIn(schema model.Schema, look func(string) (string, bool)) model.Schema {
	if look == nil {
		return schema
	}
	var out []model.FieldDef
	for i := range schema.Fields {
		def := &schema.Fields[i]
		if !isRelation(def) || def.Default == nil {
			continue
		}
		mapped, waits, drops := relationIn(def, def.Default, look, nil)
		if waits || len(drops) > 0 || mapped == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(schema.Fields)
		}
		out[i].Default = mapped
	}
	if out != nil {
		schema.Fields = out
	}
	return schema
}

// schemaOut is schema with its relation defaults in the remote's ids;
// one naming an item the remote has not got yet is the default the
// remote has for that key (theirs; none without).
func (w *worker) schemaOut(schema model.Schema, theirs *model.Schema) (model.Schema, error) {
	var out []model.FieldDef
	for i := range schema.Fields {
		def := &schema.Fields[i]
		if !isRelation(def) || def.Default == nil {
			continue
		}
		mapped, held, err := w.relationOut(def, def.Default)
		if err != nil {
			return schema, err
		}
		if out == nil {
			out = slices.Clone(schema.Fields)
		}
		out[i].Default = mapped
		if held {
			out[i].Default = nil
			if theirs != nil {
				if j := slices.IndexFunc(theirs.Fields, func(f model.FieldDef) bool { return f.Key == def.Key }); j >= 0 {
					out[i].Default = theirs.Fields[j].Default
				}
			}
		}
	}
	if out != nil {
		schema.Fields = out
	}
	return schema, nil
}

// remoteItemID says s is the remote's id of an item padd has: a default
// still as the remote has it, which goes back as it is.
func (w *worker) remoteItemID(s string) bool {
	_, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, s)
	return ok && err == nil
}

// defaultsArrived reads the remote's collections again when a local
// collection's relation default still names an item as the remote has it
// and that item is here now, so that the default is mapped.
func (w *worker) defaultsArrived(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	colls, err := w.m.views.ListCollections(w.wsID)
	if err != nil {
		return err
	}
	for _, lc := range colls {
		for i := range lc.Schema.Fields {
			def := &lc.Schema.Fields[i]
			if !isRelation(def) || def.Default == nil {
				continue
			}
			if mapped, _, _ := relationIn(def, def.Default, w.lookIn, nil); mapped != nil {
				return w.pullCollections(ctx, c, link)
			}
		}
	}
	return nil
}
