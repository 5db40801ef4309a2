package storage

import (
	"bytes"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Item watches (Pad's EVT-02): the local user's durable subscriptions to
// items, in one top-level records.Bucket, across workspaces:
//
//	watches  workspace id(16) | item id(16)  ->  records.WatchRecord (JSON)
//
// A watch is bookkeeping, not an edit: it takes no seq and no change-log
// entry, and it is not synced (Pad keeps watches per user on its
// server). It outlives an archive of its item, as Pad's does; it goes
// with its item's workspace when that is purged (read past here, and
// swept by the next CreateWatch). The bucket is records.BWatches.

// MaxWatches is how many watches padd keeps; one more is refused.
const MaxWatches = 1_000

// LimitPredicate bounds a watch's predicate ("field=value").
var LimitPredicate = model.Limit{Name: "predicate", Max: model.LimitFieldKey.Max + 1 + model.LimitFieldValue.Max,
	Of: "a watch's predicate, field=value"}

// Notification kinds, Pad's names.
const (
	WatchKindStatus     = records.WatchKindStatus
	WatchKindAssignment = records.WatchKindAssignment
	WatchKindComment    = records.WatchKindComment
)

// Watch is records.Watch, the type storage's callers name.
type Watch = records.Watch

// ParseWatchPredicate splits "field=value" as Pad's server does.
func ParseWatchPredicate(raw string) (field, value string, ok bool) {
	return records.ParseWatchPredicate(raw)
}

// checkPredicate refuses a predicate Pad refuses (bad_request) or one
// past its limit (validation_error).
func checkPredicate(p string) error {
	if p == "" {
		return nil
	}
	if err := LimitPredicate.Check(p); err != nil {
		return err
	}
	if _, _, ok := ParseWatchPredicate(p); !ok {
		return model.BadRequest(`predicate must be in "field=value" form, e.g. "status=done"`).With("field", "predicate")
	}
	return nil
}

func watchKey(wsID, itemID string) []byte {
	return records.Cat(records.MustID(wsID), records.MustID(itemID))
}

// CreateWatch watches a live item of a live workspace, or replaces the
// predicate of the watch already on it ("" watches every status change,
// assignment and comment). It answers the watch with its item's names.
func (s *Store) CreateWatch(ws, ref, predicate string) (*Watch, error) {
	if err := checkPredicate(predicate); err != nil {
		return nil, err
	}
	var out *Watch
	err := s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		it, c, err := liveItemByRef(b, ref, false)
		if err != nil {
			return err
		}
		bk, err := tx.CreateBucketIfNotExists(records.BWatches)
		if err != nil {
			return err
		}
		key := watchKey(rec.ID, it.ID)
		w := records.WatchRecord{ID: records.NewID(), Predicate: predicate, CreatedAt: records.Tstamp(s.base.Now())}
		if raw := bk.Get(key); raw != nil {
			var old records.WatchRecord
			if records.Decode(raw, &old) == nil && old.ID != "" {
				w.ID = old.ID // Pad's upsert keeps the watch, with the new predicate and time
			}
		} else if countWatches(bk) >= MaxWatches {
			if err := sweepWatches(tx, bk); err != nil {
				return err
			}
			if n := countWatches(bk); n >= MaxWatches {
				return model.Invalid("padd keeps at most %d watches and holds %d; remove one first (pad watch remove <ref>)", MaxWatches, n).
					With("limit", MaxWatches)
			}
		}
		v, err := records.Encode(w)
		if err != nil {
			return err
		}
		if err := bk.Put(key, v); err != nil {
			return err
		}
		out = &Watch{ID: w.ID, WorkspaceID: rec.ID, WorkspaceSlug: rec.Slug, ItemID: it.ID, ItemRef: records.RefOf(c, it.Number),
			ItemTitle: it.Title, ItemSlug: it.Slug, Predicate: w.Predicate, CreatedAt: w.CreatedAt}
		return nil
	})
	return out, err
}

// DeleteWatch removes the watch on a live item: not_found when the item
// has none, archived (as for any change) when the item is archived.
// It answers the item's ref.
func (s *Store) DeleteWatch(ws, ref string) (string, error) {
	var out string
	err := s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		it, c, err := liveItemByRef(records.OpenWS(tx, rec.ID), ref, false)
		if err != nil {
			return err
		}
		out = records.RefOf(c, it.Number)
		bk := tx.Bucket(records.BWatches)
		key := watchKey(rec.ID, it.ID)
		if bk == nil || bk.Get(key) == nil {
			return model.NotFound("No watch on this item").With("ref", out)
		}
		return bk.Delete(key)
	})
	return out, err
}

// countWatches counts the watches on file, by their keys: a write's
// own deletes are not in the records.Bucket's page statistics yet.
func countWatches(bk *records.Bucket) int {
	n := 0
	c := bk.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// sweepWatches deletes the watches whose workspace was purged or whose
// item is gone.
func sweepWatches(tx *records.Txn, bk *records.Bucket) error {
	var dead [][]byte
	err := bk.ForEach(func(k, _ []byte) error {
		if len(k) != 32 || records.WatchTarget(tx, k) == nil {
			dead = append(dead, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range dead {
		if err := bk.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// WatchNote is records.WatchNote, the type storage's callers name: one
// notification for a watched item.
type WatchNote = records.WatchNote

// withMoveStatus adds to a move's activity the change of the
// destination's done field, when the move changed it, as
// status {key, from, to}: what a watch hears of a move (Pad's move
// publishes the same status change).
func withMoveStatus(meta map[string]any, before, after map[string]any, dst *model.Collection) map[string]any {
	key := model.DoneField(dst.Schema, dst.Settings)
	if from, to := records.FieldText(before[key]), records.FieldText(after[key]); from != to {
		meta["status"] = map[string]any{"key": key, "from": from, "to": to}
	}
	return meta
}
