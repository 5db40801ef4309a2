package records

import (
	"fmt"
	"strings"
	"time"

	"github.com/padd/padd/model"
)

// What a watched item's changes say (storage/views' WatchNotes).

// Notification kinds, Pad's names.
const (
	WatchKindStatus     = "status-change"
	WatchKindAssignment = "assignment"
	WatchKindComment    = "comment"
)

// watchSummaryRunes is how much of a comment a notification carries, as
// Pad's.
const watchSummaryRunes = 120

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

// ReadWatchNotes gives, for each journal entry, the notifications it makes
// for the watched items (none for most): a status change of the item's
// done field and an assignment change (from an update's or a move's
// activity), and a comment added. A watch with a predicate field=value
// hears only the status change of that field to that value, as Pad's.
// The watches are read as they stand now, so a resume replays with the
// watches of the moment.
func ReadWatchNotes(base *Base, entries []JournalEntry) ([][]WatchNote, error) {
	out := make([][]WatchNote, len(entries))
	err := base.View(func(tx *Txn) error {
		bk := tx.Bucket(BWatches)
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
			wk, ok1 := IDKey(e.WorkspaceID)
			ik, ok2 := IDKey(ch.ItemID)
			if !ok1 || !ok2 {
				continue
			}
			raw := bk.Get(Cat(wk, ik))
			if raw == nil {
				continue
			}
			var w WatchRecord
			if err := Decode(raw, &w); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored watch on %s is unreadable: %v", ch.ItemID, err)
			}
			b := WatchTarget(tx, Cat(wk, ik))
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
func watchNotesOf(tx *Txn, b *Wsb, itemKey []byte, ch model.Change) ([]noteCandidate, error) {
	it, err := GetItem(b, itemKey, false)
	if err != nil || it == nil {
		return nil, err
	}
	c, err := GetCollection(b, MustID(it.CollectionID))
	if err != nil || c == nil {
		return nil, err
	}
	wsRec, err := GetWorkspace(tx, MustID(b.ID))
	if err != nil || wsRec == nil {
		return nil, err
	}
	base := WatchNote{ItemRef: RefOf(c, it.Number), Workspace: wsRec.Slug, Actor: ch.Actor, At: ch.At}
	if ch.Entity == model.EntityComment {
		cm, err := FindComment(b, "", ch.ID)
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
	raw := b.Activity().Get(SeqKey(ch.Seq))
	if raw == nil {
		return nil, nil
	}
	a, err := DecodeActivity(b, raw)
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
		from, to := FieldText(st["from"]), FieldText(st["to"])
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
		if to := FieldText(as["to"]); to != "" {
			n.Summary = "assigned to " + to
		}
		out = append(out, noteCandidate{WatchNote: n})
	}
	return out, nil
}

// FieldText is a done-field value as text ("" for none).
func FieldText(v any) string {
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
