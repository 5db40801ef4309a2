package storage

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Exact-text body patches and their undo (Pad's PAT-01..03).
//
//	patches  patch id(16) -> patchRecord JSON
//
// A patch is an ordinary item update (updateItem: version, activity,
// change log, index) plus its record, in one transaction. The record
// keeps each edit as it landed with its surrounding text, which is all
// an undo needs; it has no other read surface and goes with the
// workspace.

// PatchRequest is a body patch: Edits, or Undo naming an earlier patch
// of the same item.
type PatchRequest struct {
	Edits []model.PatchEdit
	Undo  string
	// ExpectedSeq never refuses (the anchors are the precondition); when
	// the item has moved past it, the answer says rebased and lists the
	// changes in between.
	ExpectedSeq *int64
	Idem        Idem
}

// PatchResult is the answer, and whether it replays an earlier one.
type PatchResult struct {
	model.PatchReply
	Replayed bool
}

type patchRecord struct {
	ItemID    string              `json:"item_id"`
	Edits     []model.AppliedEdit `json:"edits"`
	Emptied   bool                `json:"emptied,omitempty"` // the patch left the body empty
	UndoOf    string              `json:"undo_of,omitempty"`
	Seq       int64               `json:"seq"`
	VersionID string              `json:"version_id"`
	At        time.Time           `json:"at"`
}

// PatchItem applies a patch (or an undo) to an item's body.
func (s *Store) PatchItem(ws, ref string, in PatchRequest, actor model.Actor) (*PatchResult, error) {
	var res *PatchResult
	err := s.write(ws, actor, func(w *wtx) error {
		replay, err := w.idemReplay(in.Idem)
		if err != nil {
			return err
		}
		if replay != nil {
			res, err = w.replayPatch(replay)
			return err
		}
		reply, itemID, err := w.patchItem(ref, in)
		if err != nil {
			return err
		}
		payload, err := json.Marshal(reply)
		if err != nil {
			return err
		}
		res = &PatchResult{PatchReply: *reply}
		return w.idemSave(in.Idem, idemRecord{ItemID: itemID, EntityID: reply.PatchID, Payload: payload})
	})
	return res, err
}

// replayPatch answers a retried patch with its first answer, unless its
// item has gone since.
func (w *wtx) replayPatch(rec *idemRecord) (*PatchResult, error) {
	if k, ok := records.IDKey(rec.ItemID); ok {
		if it, err := records.GetItem(w.ws, k, false); err != nil || it == nil || it.DeletedAt != nil {
			if err != nil {
				return nil, err
			}
			return nil, model.Errorf(model.CodeIdempotencyTargetGone, "the item this idempotency key patched no longer exists")
		}
	}
	out := &PatchResult{Replayed: true}
	if err := json.Unmarshal(rec.Payload, &out.PatchReply); err != nil {
		return nil, records.ErrInternal("idempotency record of a patch is unreadable: %v", err)
	}
	return out, nil
}

// patchItem applies the patch and answers it with the item's id.
func (w *wtx) patchItem(ref string, in PatchRequest) (*model.PatchReply, string, error) {
	if err := CheckInput(in); err != nil {
		return nil, "", err
	}
	b := w.ws
	if in.ExpectedSeq != nil && *in.ExpectedSeq < 1 {
		return nil, "", model.BadRequest("expected_seq must be at least 1 (read the item's seq first)")
	}
	it, c, err := liveItemByRef(b, ref, true)
	if err != nil {
		return nil, "", err
	}
	itemRef := records.RefOf(c, it.Number)
	patches, err := b.Sub(records.BPatches)
	if err != nil {
		return nil, "", err
	}
	edits := in.Edits
	summary := fmt.Sprintf("patch: %d edit(s)", len(edits))
	if in.Undo != "" {
		if len(in.Edits) > 0 {
			return nil, "", model.BadRequest("send either edits or undo, not both")
		}
		orig, err := loadPatch(patches, in.Undo, it.ID)
		if err != nil {
			return nil, "", err
		}
		if orig.Emptied {
			return nil, "", model.BadRequest("patch %s emptied the whole body, so there is no text left to anchor its undo on; restore the version before it from the item's History (versions)", in.Undo).
				With("patch_id", in.Undo).With("ref", itemRef)
		}
		edits = model.InverseEdits(orig.Edits)
		summary = "undo of patch " + in.Undo
	}
	before := it.Content
	after, applied, err := model.ApplyPatch(itemRef, before, edits)
	if err != nil {
		return nil, "", err
	}
	patchID := records.NewID()
	meta := map[string]any{"patch_id": patchID, "patch_edits": len(edits)}
	if in.Undo != "" {
		meta["undo_of"] = in.Undo
	}
	// Replace: the anchors already proved the body is the one the edits
	// were written against, so this is not an unguarded overwrite.
	if _, err := w.updateItem(it.ID, ItemUpdate{Content: &after, Replace: true, Comment: summary, ActivityMeta: meta}); err != nil {
		return nil, "", err
	}
	_, ver := w.lastVersion(it.ID)
	if ver == nil || ver.Seq != w.seq {
		return nil, "", records.ErrInternal("patch of %s wrote no version", itemRef)
	}
	rec := patchRecord{ItemID: it.ID, Edits: applied, Emptied: after == "", UndoOf: in.Undo,
		Seq: w.seq, VersionID: ver.ID, At: records.Tstamp(w.now)}
	raw, err := records.Encode(rec)
	if err != nil {
		return nil, "", err
	}
	if err := patches.Put(records.MustID(patchID), raw); err != nil {
		return nil, "", err
	}
	reply := &model.PatchReply{Ref: itemRef, Seq: w.seq, PatchID: patchID, VersionID: ver.ID,
		Diff: records.UnifiedDiff(before, after, itemRef), UndoOf: in.Undo}
	if in.ExpectedSeq != nil && *in.ExpectedSeq != it.Seq {
		reply.Rebased = true
		if reply.Intervening, err = intervening(b, it.ID, *in.ExpectedSeq, it.Seq); err != nil {
			return nil, "", err
		}
	}
	return reply, it.ID, nil
}

// loadPatch reads a patch record of the item, or refuses with
// patch_not_found (also for another item's patch).
func loadPatch(patches interface{ Get([]byte) []byte }, id, itemID string) (*patchRecord, error) {
	notFound := model.Errorf(model.CodePatchNotFound, "patch %s is not a patch of this item", id).With("patch_id", id)
	k, ok := records.IDKey(id)
	if !ok {
		return nil, notFound
	}
	raw := patches.Get(k)
	if raw == nil {
		return nil, notFound
	}
	var rec patchRecord
	if err := records.Decode(raw, &rec); err != nil {
		return nil, records.ErrInternal("patch record %s is unreadable: %v", id, err)
	}
	if rec.ItemID != itemID {
		return nil, notFound
	}
	return &rec, nil
}

// intervening walks the item's seq chain down from to (its seq when the
// patch arrived) to from (the seq the caller expected). Every write that
// moves an item's seq records an activity entry at that seq carrying
// the item's previous seq, so the chain is a series of point lookups.
// A missing link (an entry that is not this item's, or has no prev_seq)
// or a chain that steps past from leaves Complete false.
func intervening(b *records.Wsb, itemID string, from, to int64) (*model.Intervening, error) {
	out := &model.Intervening{FromSeq: from, ToSeq: to, Changes: []model.InterveningChange{}}
	var changes []model.InterveningChange
	cur := to
	for cur > from {
		raw := b.Activity().Get(records.SeqKey(cur))
		if raw == nil {
			break
		}
		a, err := records.DecodeActivity(b, raw)
		if err != nil {
			return nil, err
		}
		if a.ItemID != itemID {
			break
		}
		prev, hasPrev := metaInt(a.Metadata, "prev_seq")
		ch := model.InterveningChange{ActivityID: a.ID, Seq: a.Seq, PrevSeq: prev, Action: a.Action,
			Actor: a.Actor.Kind, Source: a.Actor.Source, At: a.CreatedAt.UTC().Format(time.RFC3339)}
		if a.Actor.Kind == model.ActorAgent {
			ch.Agent = a.Actor.Name
		}
		changes = append(changes, ch)
		if !hasPrev {
			break
		}
		cur = prev
	}
	out.Complete = cur == from
	if len(changes) > model.MaxIntervening {
		changes = changes[:model.MaxIntervening] // the newest ones
		out.Truncated = true
	}
	versions, err := versionIDsSince(b, itemID, from)
	if err != nil {
		return nil, err
	}
	for i := len(changes) - 1; i >= 0; i-- { // oldest first
		changes[i].VersionID = versions[changes[i].Seq]
		out.Changes = append(out.Changes, changes[i])
	}
	return out, nil
}

// versionIDsSince maps seq -> version id for the item's versions
// written after seq from, reading its versions newest first.
func versionIDsSince(b *records.Wsb, itemID string, from int64) (map[int64]string, error) {
	out := map[int64]string{}
	err := b.EachReverse(b.Versions().Cursor(), records.MustID(itemID), nil, func(_, v []byte) (bool, error) {
		var ver model.Version
		if err := records.DecodeVersionRecord(v, &ver); err != nil {
			return false, records.ErrInternal("version record unreadable: %v", err)
		}
		if ver.Seq <= from {
			return false, nil
		}
		out[ver.Seq] = ver.ID
		return true, nil
	})
	return out, err
}

// metaInt reads an integer activity metadata member (JSON numbers
// decode as float64).
func metaInt(m map[string]any, key string) (int64, bool) {
	switch v := m[key].(type) {
	case float64:
		return int64(v), true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}
