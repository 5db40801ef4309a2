package syncer

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/remote/merge"
	"github.com/padd/padd/storage"
)

// A remote item may hold a part past padd's limits (model/limits.go): a
// server with other limits, or none (Pad takes any title, tag or field
// value a 2 MiB body holds), or a hostile one. padd takes the item with
// its other parts and holds that part without the remote's value:
//
//   - a new item gets a stand-in: the title's first characters, cut to
//     the limit and ended with "…" (an item needs a title); no content;
//     its other tags; no value for the field;
//   - an item padd has keeps its own value of the part (the user's edits
//     of it too), and takes the remote's other parts as a pull does;
//   - the part is set aside with the reason (`padctl sync conflicts`),
//     and held in the base (SyncBase.Held, written in the same write as
//     the item): the base holds it as the local item does, so the merge
//     reads no change of the remote's in it, and a push sends it as the
//     base has it, which is no change: the remote keeps its value, never
//     overwritten by padd's stand-in (tags go as a whole list on Pad's
//     wire, so a held tag holds the item's tags back);
//   - a later remote version with the part within the limits is merged
//     as any pull (the base's value against the local one and the
//     remote's new one: a local edit made meanwhile is a conflict, kept),
//     and its set-aside entries are settled; one past them again holds
//     it still;
//   - resolving the entry keeping the remote's leaves the part held (not
//     set aside again for the same value); keeping padd's (or a merge)
//     releases it (SyncBase.Released): the next push sends the item's
//     value over the remote's, and a pull before that push holds it over
//     without undoing the choice.
//
// A field key past its limit names a field padd cannot hold at all: it is
// set aside and left out, and since the local item never has it, no push
// touches it.

// overPart is a part of a remote item past padd's limits: which, and
// why, as its set-aside entry says it.
type overPart struct{ part, why string }

// limitsIn holds the parts of rem past padd's limits: each is noted in
// rem.over (with its reason) and rem.held (but a field key past its
// limit, which padd cannot hold), and rem.side takes a new item's
// stand-in for it; settle gives an item padd has its own value
// (holdOver).
func (r *remoteItem) limitsIn() {
	r.checked, r.held, r.over = true, nil, nil
	s := &r.side
	ref := r.api.Ref
	if ref == "" {
		ref = r.api.ID
	}
	// hold notes part: what is the remote's value as the reason names
	// it, held what padd does not send.
	hold := func(part, what, held string, err error) {
		why := fmt.Sprintf("padd holds %s without the remote's %s: %v; the remote keeps it", ref, what, err)
		if part == "fields" {
			why += ", and padd, which has no such field, never changes it"
		} else {
			why += fmt.Sprintf(", and padd sends the remote no %s of its own until the remote's is within the limit or you keep padd's (`padctl sync resolve %s --keep local`)", held, ref)
			if !slices.Contains(r.held, part) {
				r.held = append(r.held, part)
			}
		}
		r.over = append(r.over, overPart{part, why})
	}
	if err := model.LimitTitle.Check(s.Title); err != nil {
		hold("title", "title", "title", err)
		s.Title = cutTitle(s.Title)
	}
	if err := model.LimitContent.Check(s.Content); err != nil {
		hold("content", "content", "content", err)
		s.Content = ""
	}
	var tags []string
	for _, t := range s.Tags {
		if err := model.LimitTag.Check(t); err != nil {
			hold("tags", "tag", "tags", err)
			continue
		}
		tags = append(tags, t)
	}
	if len(tags) < len(s.Tags) {
		s.Tags = tags
	}
	for _, k := range slices.Sorted(maps.Keys(s.Fields)) {
		err := fieldPastLimits(k, s.Fields[k])
		if err == nil {
			continue
		}
		if s.Fields = maps.Clone(s.Fields); model.LimitFieldKey.Check(k) != nil {
			hold("fields", "field (its key is past the limit)", "", err)
		} else {
			hold("fields."+k, "value of field "+k, "value of "+k, err)
		}
		delete(s.Fields, k)
	}
}

// fieldPastLimits is the refusal of one field as storage writes it: a
// reserved key's value by its rules, another by the field limits.
func fieldPastLimits(k string, v any) error {
	if model.IsReservedField(k) {
		if v == nil {
			return nil
		}
		return model.CheckReserved(k, v)
	}
	return model.CheckFields(map[string]any{k: v})
}

// cutTitle is a title past the limit cut to it, ended with "…".
func cutTitle(s string) string {
	n := 0
	for i := range s {
		if n == model.LimitTitle.Max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// keepReleased carries the parts the user released (stored.Released,
// LocalWrite.ReleaseHeld) that this remote version still holds past the
// limits: held over as a held part is, not set aside again, and still
// sent by the next push. A part within the limits now ends its release:
// the remote's value is merged as any change.
func (r *remoteItem) keepReleased(stored *storage.SyncBase) {
	if stored == nil {
		return
	}
	for _, p := range stored.Released {
		if r.checked && !slices.Contains(r.held, p) {
			continue
		}
		r.held = slices.DeleteFunc(r.held, func(h string) bool { return h == p })
		r.over = slices.DeleteFunc(r.over, func(o overPart) bool { return o.part == p })
		if !slices.Contains(r.released, p) {
			r.released = append(r.released, p)
		}
	}
}

// releasedWaits keeps local item localID marked to be pushed (the mark
// noteWaits sets or clears, which the drain pushes) while a released
// part of rem is still to be sent; noteWaits, called first, decides
// otherwise.
func releasedWaits(t *storage.SyncTx, localID string, rem *remoteItem) error {
	if len(rem.released) == 0 {
		return nil
	}
	return t.SetRelationWait(localID, true)
}

// holdOver gives each part rem holds, or carries released, the value
// base holds (a new item, without a base, keeps its stand-in): the
// remote's value of it is no change.
func (r *remoteItem) holdOver(base *merge.Item) {
	if base == nil {
		return
	}
	for _, p := range slices.Concat(r.held, r.released) {
		switch {
		case p == "title":
			r.side.Title = base.Title
		case p == "content":
			r.side.Content = base.Content
		case strings.HasPrefix(p, "fields."):
			k := strings.TrimPrefix(p, "fields.")
			r.side.Fields = maps.Clone(r.side.Fields)
			if v, ok := base.Fields[k]; ok {
				if r.side.Fields == nil {
					r.side.Fields = map[string]any{}
				}
				r.side.Fields[k] = v
			} else {
				delete(r.side.Fields, k)
			}
		}
		// tags: the remote's others are taken as a set; the held one was
		// left out of them.
	}
}

// holdBack gives each part base holds (b.Held) in local, the item about
// to be sent, the value base has: it goes as no change. local's fields
// and tags are replaced, not changed.
func holdBack(local, base *merge.Item, b *storage.SyncBase) {
	if b == nil || base == nil {
		return
	}
	for _, p := range b.Held {
		switch {
		case p == "title":
			local.Title = base.Title
		case p == "content":
			local.Content = base.Content
		case p == "tags":
			local.Tags = slices.Clone(base.Tags)
		case strings.HasPrefix(p, "fields."):
			k := strings.TrimPrefix(p, "fields.")
			local.Fields = maps.Clone(local.Fields)
			if v, ok := base.Fields[k]; ok {
				if local.Fields == nil {
					local.Fields = map[string]any{}
				}
				local.Fields[k] = v
			} else {
				delete(local.Fields, k)
			}
		}
	}
}

// heldEntries records, in the write that applies remote item rem to
// local item localID, the set-aside entry of each part it holds past the
// limits (one already open for the same value is not recorded again, nor,
// for a part held before, one the user settled keeping the remote's),
// and settles the entries of the parts held before (prev, the stored
// base's) that this version brings within the limits or past them with
// another value.
func heldEntries(t *storage.SyncTx, localID string, rem *remoteItem, prev []string) error {
	if !rem.checked {
		return nil // not a version of the remote's read now: the holds stand
	}
	for _, o := range rem.over {
		if slices.Contains(prev, o.part) {
			continue // with the part's other entries, below
		}
		if _, err := t.AddConflict(storage.SyncConflict{Kind: storage.EntrySetAside, ItemID: localID, Part: o.part, Reason: o.why}); err != nil {
			return err
		}
	}
	for _, p := range prev {
		var reasons []string
		for _, o := range rem.over {
			if o.part == p {
				reasons = append(reasons, o.why)
			}
		}
		if err := t.HeldSetAside(localID, p, reasons); err != nil {
			return err
		}
	}
	return nil
}
