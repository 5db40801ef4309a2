package storage

import (
	"bytes"
	"fmt"
	"strings"
	"time"

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
	WatchKindStatus     = "status-change"
	WatchKindAssignment = "assignment"
	WatchKindComment    = "comment"
)

// watchSummaryRunes is how much of a comment a notification carries, as
// Pad's.
const watchSummaryRunes = 120

// Watch is records.Watch, the type storage's callers name.
type Watch = records.Watch

// ParseWatchPredicate splits "field=value" as Pad's server does: the
// whole is trimmed, and the field is what comes before the first '=',
// which must not be empty.
func ParseWatchPredicate(raw string) (field, value string, ok bool) {
	raw = strings.TrimSpace(raw)
	i := strings.IndexByte(raw, '=')
	if i <= 0 {
		return "", "", false
	}
	return raw[:i], raw[i+1:], true
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

// WatchNote is one notification for a watched item: a status change, an
// assignment or a comment, as Pad's stream names them.
type WatchNote struct {
	Kind      string
	ItemRef   string
	Workspace string // slug
	Actor     model.Actor
	Summary   string
	At        time.Time
}

// WatchNotes gives, for each journal entry, the notifications it makes
// for the watched items (none for most): a status change of the item's
// done field and an assignment change (from an update's or a move's
// activity), and a comment added. A watch with a predicate field=value
// hears only the status change of that field to that value, as Pad's.
// The watches are read as they stand now, so a resume replays with the
// watches of the moment.
func (s *Store) WatchNotes(entries []JournalEntry) ([][]WatchNote, error) {
	out := make([][]WatchNote, len(entries))
	err := s.base.View(func(tx *records.Txn) error {
		bk := tx.Bucket(records.BWatches)
		if bk == nil {
			return nil
		}
		if k, _ := bk.Cursor().First(); k == nil {
			return nil
		}
		for i, e := range entries {
			ch := e.Change
			if ch.ItemID == "" || !(ch.Entity == model.EntityItem && (ch.Op == model.OpUpdated || ch.Op == model.OpMoved) ||
				ch.Entity == model.EntityComment && ch.Op == model.OpCreated) {
				continue
			}
			wk, ok1 := records.IDKey(e.WorkspaceID)
			ik, ok2 := records.IDKey(ch.ItemID)
			if !ok1 || !ok2 {
				continue
			}
			raw := bk.Get(records.Cat(wk, ik))
			if raw == nil {
				continue
			}
			var w records.WatchRecord
			if err := records.Decode(raw, &w); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored watch on %s is unreadable: %v", ch.ItemID, err)
			}
			b := records.WatchTarget(tx, records.Cat(wk, ik))
			if b == nil {
				continue
			}
			notes, err := watchNotesOf(tx, b, ik, ch)
			if err != nil {
				return err
			}
			out[i] = filterByPredicate(notes, w.Predicate)
		}
		return nil
	})
	return out, err
}

// noteCandidate is a notification with what a predicate is matched on.
type noteCandidate struct {
	WatchNote
	field, to string // a status change's done field and new value
}

func filterByPredicate(notes []noteCandidate, predicate string) []WatchNote {
	var out []WatchNote
	field, value, ok := ParseWatchPredicate(predicate)
	for _, n := range notes {
		if predicate != "" && ok && !(n.Kind == WatchKindStatus && n.field == field && n.to == value) {
			continue
		}
		out = append(out, n.WatchNote)
	}
	return out
}

// watchNotesOf reads what one change of a watched item says.
func watchNotesOf(tx *records.Txn, b *records.Wsb, itemKey []byte, ch model.Change) ([]noteCandidate, error) {
	it, err := records.GetItem(b, itemKey, false)
	if err != nil || it == nil {
		return nil, err
	}
	c, err := records.GetCollection(b, records.MustID(it.CollectionID))
	if err != nil || c == nil {
		return nil, err
	}
	wsRec, err := records.GetWorkspace(tx, records.MustID(b.ID))
	if err != nil || wsRec == nil {
		return nil, err
	}
	base := WatchNote{ItemRef: records.RefOf(c, it.Number), Workspace: wsRec.Slug, Actor: ch.Actor, At: ch.At}
	if ch.Entity == model.EntityComment {
		cm, err := records.FindComment(b, "", ch.ID)
		if err != nil {
			if model.IsNotFound(err) {
				return nil, nil
			}
			return nil, err
		}
		n := base
		n.Kind, n.Summary = WatchKindComment, commentSummary(cm.Body)
		return []noteCandidate{{WatchNote: n}}, nil
	}
	raw := b.Activity().Get(records.SeqKey(ch.Seq))
	if raw == nil {
		return nil, nil
	}
	a, err := records.DecodeActivity(b, raw)
	if err != nil {
		return nil, err
	}
	var out []noteCandidate
	var status, assign any
	switch a.Action {
	case "updated":
		changes, _ := a.Metadata["changes"].(map[string]any)
		status = changes["fields."+model.DoneField(c.Schema, c.Settings)]
		assign = changes["assigned_user_id"]
	case "moved":
		status = a.Metadata["status"]
	}
	if st, ok := status.(map[string]any); ok {
		from, to := fieldText(st["from"]), fieldText(st["to"])
		if from != to {
			key, _ := st["key"].(string)
			if key == "" {
				key = model.DoneField(c.Schema, c.Settings)
			}
			n := base
			n.Kind, n.Summary = WatchKindStatus, orNone(from)+" → "+orNone(to)
			out = append(out, noteCandidate{WatchNote: n, field: key, to: to})
		}
	}
	if as, ok := assign.(map[string]any); ok {
		n := base
		n.Kind, n.Summary = WatchKindAssignment, "unassigned"
		if to := fieldText(as["to"]); to != "" {
			n.Summary = "assigned to " + to
		}
		out = append(out, noteCandidate{WatchNote: n})
	}
	return out, nil
}

// fieldText is a done-field value as text ("" for none).
func fieldText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	return fmt.Sprint(v)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// commentSummary is a comment on one line, cut to watchSummaryRunes.
func commentSummary(body string) string {
	body = strings.Join(strings.Fields(body), " ")
	if r := []rune(body); len(r) > watchSummaryRunes {
		return string(r[:watchSummaryRunes]) + "…"
	}
	return body
}

// withMoveStatus adds to a move's activity the change of the
// destination's done field, when the move changed it, as
// status {key, from, to}: what a watch hears of a move (Pad's move
// publishes the same status change).
func withMoveStatus(meta map[string]any, before, after map[string]any, dst *model.Collection) map[string]any {
	key := model.DoneField(dst.Schema, dst.Settings)
	if from, to := fieldText(before[key]), fieldText(after[key]); from != to {
		meta["status"] = map[string]any{"key": key, "from": from, "to": to}
	}
	return meta
}
