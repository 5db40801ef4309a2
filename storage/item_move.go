package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// MoveInput moves an item to another collection of the same workspace.
type MoveInput struct {
	Target string         // destination collection slug (or alias)
	Fields map[string]any // overrides: values for the destination's fields
	Force  bool           // skip the open-children guard only
}

// MoveItem moves an item between collections with Pad's field-migration
// rules. Its number stays; its ref takes the destination's prefix and
// the old ref keeps resolving.
func (s *Store) MoveItem(ws, ref string, in MoveInput, actor model.Actor) (*ItemResult, error) {
	var res *ItemResult
	err := s.write(ws, actor, func(w *wtx) error {
		r, err := w.moveItem(ref, in)
		res = r
		return err
	})
	return res, err
}

func (w *wtx) moveItem(ref string, in MoveInput) (*ItemResult, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	b := w.ws
	it, src, err := liveItemByRef(b, ref, true)
	if err != nil {
		return nil, err
	}
	dst, err := records.LiveCollection(b, in.Target)
	if err != nil {
		return nil, err
	}
	if dst.ID == src.ID {
		return nil, model.BadRequest("%s is already in %q", records.RefOf(src, it.Number), dst.Slug)
	}
	migrated, dropped := model.MigrateFields(it.Fields, src.Schema, dst.Schema)
	var warn model.Warnings
	// Carried values that collide on a unique field are dropped, not refused.
	for _, f := range dst.Schema.Fields {
		if f.UniqueScope == "" {
			continue
		}
		if _, overridden := in.Fields[f.Key]; overridden {
			continue
		}
		if v, ok := migrated[f.Key]; ok {
			if h := uniqueHolder(b, dst, f.Key, v, it.ID); h != nil {
				holder, _ := records.GetItem(b, h, false)
				warn.NotUnique = append(warn.NotUnique, model.NotUnique{Key: f.Key, Value: v, Holder: records.RefOf(dst, holder.Number),
					Message: "dropped: another item in " + dst.Slug + " holds this value"})
				delete(migrated, f.Key)
			}
		}
	}
	if err := model.CheckMoveOverrides(dst, in.Fields); err != nil {
		return nil, err
	}
	for k, v := range in.Fields {
		migrated[k] = v
	}
	out, fwarn, err := model.FieldWrite{Schema: dst.Schema, Full: migrated, Stored: reservedOnly(it.Fields), Resolver: txResolver{b, w.replica}}.Apply()
	if err != nil {
		return nil, err
	}
	if err := model.CheckMoveState(it.Fields, out, src, dst, in.Fields); err != nil {
		return nil, err
	}
	supplied := map[string]bool{}
	for k := range in.Fields {
		supplied[k] = true
	}
	if err := checkUnique(b, dst, out, supplied, it.ID); err != nil {
		return nil, err
	}
	if !in.Force {
		if err := openChildrenGuard(b, it, dst, out); err != nil {
			return nil, err
		}
	}
	warn.DroppedFields = model.StillDropped(append(dropped, fwarn.DroppedFields...), out)

	old := *it
	oldRef := records.RefOf(src, it.Number)
	it.CollectionID = dst.ID
	it.Fields = out
	it.UpdatedAt = records.Tstamp(w.now)
	it.LastModifiedBy = w.actor
	seq, err := w.stamp(model.EntityItem, model.OpMoved, it.ID, it.ID, dst.ID)
	if err != nil {
		return nil, err
	}
	it.Seq = seq
	newRef := records.RefOf(dst, it.Number)
	unpar := records.IsUnparented(b, it)
	for _, e := range []error{
		putDerived(b, &old, src, true),
		putDerived(b, it, dst, false),
		putItem(b, it),
		b.Refs().Put([]byte(newRef), records.MustID(it.ID)),
		w.reindex(&old, it, unpar, unpar),
		w.activity(seq, it.ID, "moved", withMoveStatus(map[string]any{"seq": seq, "prev_seq": old.Seq,
			"from": src.Slug, "to": dst.Slug, "from_ref": oldRef, "to_ref": newRef, "dropped_fields": warn.DroppedFields}, old.Fields, it.Fields, dst)),
	} {
		if e != nil {
			return nil, e
		}
	}
	v, err := records.View(b, it, map[string]*model.Collection{dst.ID: dst})
	if err != nil {
		return nil, err
	}
	return &ItemResult{Item: v, Warnings: warn, Changed: true}, nil
}

func reservedOnly(fields map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range fields {
		if model.IsReservedField(k) {
			out[k] = v
		}
	}
	return out
}

// openChildrenGuard refuses to close a parent (its done field becoming
// terminal) while children in work collections are still open.
func openChildrenGuard(b *records.Wsb, it *model.Item, c *model.Collection, newFields map[string]any) error {
	key, terms := model.TerminalOptions(c.Schema, c.Settings)
	nv, _ := newFields[key].(string)
	if model.StateOfValue(nv, terms) == model.StateOpen {
		return nil
	}
	if ov, _ := it.Fields[key].(string); it.CollectionID == c.ID && model.StateOfValue(ov, terms) != model.StateOpen {
		return nil // already closed
	}
	var open []map[string]any
	err := records.EachChild(b, it.ID, func(child *model.Item, cc *model.Collection) error {
		if !cc.TracksWork() || cc.State(child.Fields) != model.StateOpen {
			return nil
		}
		ck := model.DoneField(cc.Schema, cc.Settings)
		status, _ := child.Fields[ck].(string)
		open = append(open, map[string]any{"ref": records.RefOf(cc, child.Number), "title": child.Title,
			"status": status, "collection_slug": cc.Slug})
		return nil
	})
	if err != nil || len(open) == 0 {
		return err
	}
	noun := "children"
	if len(open) == 1 {
		noun = "child"
	}
	return model.Errorf(model.CodeOpenChildren,
		"cannot mark %s %s: %d open %s still in a non-terminal state. Close them first or pass force to override.",
		records.RefOf(c, it.Number), nv, len(open), noun).
		With("open_children", open).With("hidden_blocker_count", 0).With("done_field", key).With("attempted_value", nv)
}

// BulkOp is one item's part of a bulk request: exactly one of Update,
// Move, Archive or Restore.
type BulkOp struct {
	Ref     string
	Update  *ItemUpdate
	Move    *MoveInput
	Archive bool
	Restore bool
}

// BulkOutcome is one item's result: Item on success, Err on refusal.
type BulkOutcome struct {
	Ref  string
	Item *ItemView
	Err  error
}

// BulkApply applies ops in one transaction. Each item is refused on its
// own; every check runs before that item's first write, so a refused
// item leaves nothing behind and the others still apply.
func (s *Store) BulkApply(ws string, ops []BulkOp, actor model.Actor) ([]BulkOutcome, error) {
	out := make([]BulkOutcome, 0, len(ops))
	err := s.write(ws, actor, func(w *wtx) error {
		for _, op := range ops {
			var r *ItemResult
			var err error
			switch {
			case op.Update != nil:
				r, err = w.updateItem(op.Ref, *op.Update)
			case op.Move != nil:
				r, err = w.moveItem(op.Ref, *op.Move)
			case op.Archive || op.Restore:
				r, err = w.setArchived(op.Ref, op.Archive)
			default:
				err = model.BadRequest("bulk operation for %s names nothing to do", op.Ref)
			}
			if err != nil {
				if _, coded := model.AsError(err); !coded {
					return err // storage failure: roll the whole request back
				}
				out = append(out, BulkOutcome{Ref: op.Ref, Err: err})
				continue
			}
			out = append(out, BulkOutcome{Ref: op.Ref, Item: r.Item})
		}
		return nil
	})
	return out, err
}
