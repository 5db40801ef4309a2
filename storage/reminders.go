package storage

import (
	"errors"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
	"github.com/padd/padd/storage/internal/records"
)

// Item reminders (Pad's REM-01..05). An armed reminder sits in the
// top-level rem_due index, ordered by due time across workspaces, so
// padd's firing loop finds the next one with one cursor read. Firing
// marks it fired (a stamped mutation: the change log, so the event
// stream says reminder_fired) and lists it in rem_fired until it is
// acknowledged; the dashboard's pending_reminders reads that list.

// remDueKey orders armed reminders by due time. The sign bit is
// flipped so the big-endian bytes sort as the signed seconds do.
func remDueKey(at time.Time, wsID, remID string) []byte {
	return records.Cat(records.U64(uint64(at.Unix())^1<<63), records.MustID(wsID), records.MustID(remID))
}

func remDueTime(k []byte) time.Time { return time.Unix(int64(records.GetU64(k[:8])^1<<63), 0).UTC() }

func putReminder(b *records.Wsb, r *model.Reminder) error {
	rec := *r
	rec.ID = "" // the key holds it
	raw, err := records.Encode(rec)
	if err != nil {
		return err
	}
	return b.Reminders().Put(records.MustID(r.ID), raw)
}

// findReminder resolves a reminder id in this workspace or refuses 404.
func findReminder(b *records.Wsb, id string) (*model.Reminder, error) {
	k, ok := records.IDKey(strings.TrimSpace(id))
	var r *model.Reminder
	if ok {
		var err error
		if r, err = records.GetReminder(b, k); err != nil {
			return nil, err
		}
	}
	if r == nil {
		return nil, model.NotFound("Reminder not found: %s", id).With("reminder_id", id)
	}
	return r, nil
}

// reminderWrite stamps a reminder mutation and writes its feed entry.
func (w *wtx) reminderWrite(r *model.Reminder, op, action string) (int64, error) {
	it, err := records.GetItem(w.ws, records.MustID(r.ItemID), false)
	if err != nil {
		return 0, err
	}
	collID := ""
	if it != nil {
		collID = it.CollectionID
	}
	seq, err := w.stamp(model.EntityReminder, op, r.ID, r.ItemID, collID)
	if err != nil {
		return 0, err
	}
	meta := map[string]any{"seq": seq, "reminder_id": r.ID, "remind_at": records.FmtTime(r.RemindAt)}
	return seq, w.activity(seq, r.ItemID, action, meta)
}

// arm puts an armed reminder in the due index.
func (w *wtx) arm(r *model.Reminder) error {
	return w.tx.Bucket(records.BRemDue).Put(remDueKey(r.RemindAt, w.ws.ID, r.ID), nil)
}

func (w *wtx) disarm(r *model.Reminder) error {
	return w.tx.Bucket(records.BRemDue).Delete(remDueKey(r.RemindAt, w.ws.ID, r.ID))
}

// AddReminder arms a reminder on a live item at an instant (past
// instants fire at once).
func (s *Store) AddReminder(ws, ref string, at time.Time, actor model.Actor) (*ReminderView, error) {
	var out ReminderView
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		it, _, err := liveItemByRef(b, ref, false)
		if err != nil {
			return err
		}
		r := &model.Reminder{ID: records.NewID(), ItemID: it.ID, RemindAt: model.Truncate1s(at), CreatedBy: actor, CreatedAt: records.Tstamp(w.now)}
		if r.Seq, err = w.reminderWrite(r, model.OpCreated, "reminder_set"); err != nil {
			return err
		}
		if err := records.FirstErr(putReminder(b, r), b.RemItem().Put(records.Cat(records.MustID(it.ID), records.MustID(r.ID)), nil), w.arm(r)); err != nil {
			return err
		}
		out, err = records.ReminderViewOf(b, r, map[string]*model.Collection{})
		return err
	})
	return &out, err
}

// AckReminder acknowledges a fired reminder; acknowledging it again
// writes nothing. An armed reminder has nothing to acknowledge yet: 409
// (unremind disarms it).
func (s *Store) AckReminder(ws, id string, actor model.Actor) (*ReminderView, error) {
	return s.reminderOp(ws, id, actor, func(w *wtx, r *model.Reminder) (bool, error) {
		switch r.State() {
		case model.ReminderAcknowledged:
			return false, nil
		case model.ReminderArmed:
			return false, model.Conflict("reminder %s has not fired yet (due %s); nothing to acknowledge. Unremind disarms it", r.ID, records.FmtTime(r.RemindAt)).
				With("reminder_id", r.ID).With("state", model.ReminderArmed)
		}
		t := records.Tstamp(w.now)
		r.AcknowledgedAt = &t
		seq, err := w.reminderWrite(r, model.OpAcknowledged, "reminder_acknowledged")
		r.Seq = seq
		return true, records.FirstErr(err, w.ws.RemFired().Delete(records.MustID(r.ID)))
	})
}

// RearmReminder clears both fire marks and arms the reminder again, at
// a new instant when at is given.
func (s *Store) RearmReminder(ws, id string, at *time.Time, actor model.Actor) (*ReminderView, error) {
	return s.reminderOp(ws, id, actor, func(w *wtx, r *model.Reminder) (bool, error) {
		if r.State() == model.ReminderArmed {
			if err := w.disarm(r); err != nil {
				return false, err
			}
		}
		if at != nil {
			r.RemindAt = model.Truncate1s(*at)
		}
		r.FiredAt, r.AcknowledgedAt = nil, nil
		seq, err := w.reminderWrite(r, model.OpUpdated, "reminder_rearmed")
		r.Seq = seq
		return true, records.FirstErr(err, w.ws.RemFired().Delete(records.MustID(r.ID)), w.arm(r))
	})
}

// RemoveReminder disarms and deletes a reminder (unremind).
func (s *Store) RemoveReminder(ws, id string, actor model.Actor) (*ReminderView, error) {
	var out *ReminderView
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		r, err := findReminder(b, id)
		if err != nil {
			return err
		}
		v, err := records.ReminderViewOf(b, r, map[string]*model.Collection{})
		if err != nil {
			return err
		}
		if _, err := w.reminderWrite(r, model.OpDeleted, "reminder_removed"); err != nil {
			return err
		}
		out = &v
		return records.FirstErr(w.disarm(r), b.RemFired().Delete(records.MustID(r.ID)),
			b.RemItem().Delete(records.Cat(records.MustID(r.ItemID), records.MustID(r.ID))), b.Reminders().Delete(records.MustID(r.ID)))
	})
	return out, err
}

// reminderOp runs fn on one reminder; fn says whether it changed it.
func (s *Store) reminderOp(ws, id string, actor model.Actor, fn func(w *wtx, r *model.Reminder) (bool, error)) (*ReminderView, error) {
	var out ReminderView
	err := s.write(ws, actor, func(w *wtx) error {
		r, err := findReminder(w.ws, id)
		if err != nil {
			return err
		}
		changed, err := fn(w, r)
		if err != nil {
			return err
		}
		if changed {
			if err := putReminder(w.ws, r); err != nil {
				return err
			}
		}
		out, err = records.ReminderViewOf(w.ws, r, map[string]*model.Collection{})
		return err
	})
	return &out, err
}

// FiredReminder names a reminder FireDueReminders fired.
type FiredReminder struct {
	WorkspaceID string
	ReminderID  string
	ItemID      string
	RemindAt    time.Time
}

// FireDueReminders fires armed reminders due at or before now, at most
// limit of them (0: 100), oldest first, one transaction per workspace.
// next is when the earliest reminder still armed falls due (zero: none;
// at or before now when the limit left some due). Reminders of a deleted
// workspace wait for its restore; a purged workspace's are dropped.
func (s *Store) FireDueReminders(now time.Time, limit int) (fired []FiredReminder, next time.Time, err error) {
	defer func() {
		if errors.Is(err, engine.ErrNotOpen) {
			err = ErrClosed
		}
	}()
	if limit <= 0 {
		limit = 100
	}
	byWS := map[string][][]byte{}
	var order []string
	var purged [][]byte
	err = s.base.View(func(tx *records.Txn) error {
		states := map[string]int{} // 0 live, 1 deleted, 2 purged
		c := tx.Bucket(records.BRemDue).Cursor()
		n := 0
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 8+16+16 {
				purged = append(purged, append([]byte(nil), k...))
				continue
			}
			at := remDueTime(k)
			wsID := records.IDString(k[8:24])
			st, seen := states[wsID]
			if !seen {
				rec, err := records.GetWorkspace(tx, k[8:24])
				if err != nil {
					return err
				}
				switch {
				case rec == nil || tx.Bucket(records.BWS).Bucket(k[8:24]) == nil:
					st = 2
				case rec.DeletedAt != nil:
					st = 1
				}
				states[wsID] = st
			}
			switch {
			case st == 2:
				purged = append(purged, append([]byte(nil), k...))
				continue
			case st == 1:
				continue
			case at.After(now) || n == limit:
				next = at
				return nil
			}
			if byWS[wsID] == nil {
				order = append(order, wsID)
			}
			byWS[wsID] = append(byWS[wsID], append([]byte(nil), k...))
			n++
		}
		return nil
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	if len(purged) > 0 {
		if err := s.base.Update(func(tx *records.Txn) error {
			for _, k := range purged {
				if err := tx.Bucket(records.BRemDue).Delete(k); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, time.Time{}, err
		}
	}
	for _, wsID := range order {
		var batch []FiredReminder
		err := s.write(wsID, model.SystemActor, func(w *wtx) error {
			batch = batch[:0]
			for _, k := range byWS[wsID] {
				r, err := records.GetReminder(w.ws, k[24:])
				if err != nil {
					return err
				}
				// The key is stale when the reminder was removed, re-armed
				// at another time or fired since the read above.
				if r == nil || r.State() != model.ReminderArmed || !r.RemindAt.Equal(remDueTime(k)) {
					if err := w.tx.Bucket(records.BRemDue).Delete(k); err != nil {
						return err
					}
					continue
				}
				t := records.Tstamp(w.now)
				r.FiredAt = &t
				seq, err := w.reminderWrite(r, model.OpFired, "reminder_fired")
				if err != nil {
					return err
				}
				r.Seq = seq
				if err := records.FirstErr(putReminder(w.ws, r), w.disarm(r), w.ws.RemFired().Put(records.MustID(r.ID), nil)); err != nil {
					return err
				}
				batch = append(batch, FiredReminder{WorkspaceID: wsID, ReminderID: r.ID, ItemID: r.ItemID, RemindAt: r.RemindAt})
			}
			return nil
		})
		if model.IsNotFound(err) {
			continue // deleted meanwhile: its reminders wait for a restore
		}
		if err != nil {
			return fired, time.Time{}, err
		}
		fired = append(fired, batch...)
	}
	return fired, next, nil
}

// ReminderView is records.ReminderView, the type storage's callers name.
type ReminderView = records.ReminderView
