package storage

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
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
	return cat(u64(uint64(at.Unix())^1<<63), mustID(wsID), mustID(remID))
}

func remDueTime(k []byte) time.Time { return time.Unix(int64(getU64(k[:8])^1<<63), 0).UTC() }

func getReminder(b *wsb, id []byte) (*model.Reminder, error) {
	raw := b.reminders().Get(id)
	if raw == nil {
		return nil, nil
	}
	var r model.Reminder
	if err := decode(raw, &r); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "reminder %s is unreadable: %v", idString(id), err)
	}
	r.ID = idString(id)
	return &r, nil
}

func putReminder(b *wsb, r *model.Reminder) error {
	rec := *r
	rec.ID = "" // the key holds it
	raw, err := encode(rec)
	if err != nil {
		return err
	}
	return b.reminders().Put(mustID(r.ID), raw)
}

// findReminder resolves a reminder id in this workspace or refuses 404.
func findReminder(b *wsb, id string) (*model.Reminder, error) {
	k, ok := idKey(strings.TrimSpace(id))
	var r *model.Reminder
	if ok {
		var err error
		if r, err = getReminder(b, k); err != nil {
			return nil, err
		}
	}
	if r == nil {
		return nil, model.NotFound("Reminder not found: %s", id).With("reminder_id", id)
	}
	return r, nil
}

func fmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return fmtTime(*t)
}

// ReminderView is a reminder with its state and its item.
type ReminderView struct {
	ID             string
	ItemID         string
	ItemRef        string
	ItemTitle      string
	Collection     string
	State          string
	RemindAt       string
	FiredAt        string
	AcknowledgedAt string
	CreatedBy      string
	CreatedAt      string
	Seq            int64
}

// reminderView describes a reminder with its item.
func reminderView(b *wsb, r *model.Reminder, colls map[string]*model.Collection) (ReminderView, error) {
	v := ReminderView{ID: r.ID, ItemID: r.ItemID, State: r.State(), RemindAt: fmtTime(r.RemindAt),
		FiredAt: fmtTimePtr(r.FiredAt), AcknowledgedAt: fmtTimePtr(r.AcknowledgedAt),
		CreatedBy: r.CreatedBy.Kind, CreatedAt: fmtTime(r.CreatedAt), Seq: r.Seq}
	// The summary, not the item: the dashboard and next list every
	// pending reminder.
	it, err := getSum(b, mustID(r.ItemID))
	if err != nil || it == nil {
		return v, err
	}
	c, err := collOf(b, colls, it.CollectionID)
	if err != nil {
		return v, err
	}
	v.ItemRef, v.ItemTitle, v.Collection = refOf(c, it.Number), it.Title, c.Slug
	return v, nil
}

// reminderWrite stamps a reminder mutation and writes its feed entry.
func (w *wtx) reminderWrite(r *model.Reminder, op, action string) (int64, error) {
	it, err := getItem(w.ws, mustID(r.ItemID), false)
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
	meta := map[string]any{"seq": seq, "reminder_id": r.ID, "remind_at": fmtTime(r.RemindAt)}
	return seq, w.activity(seq, r.ItemID, action, meta)
}

// arm puts an armed reminder in the due index.
func (w *wtx) arm(r *model.Reminder) error {
	return w.tx.Bucket(bRemDue).Put(remDueKey(r.RemindAt, w.ws.id, r.ID), nil)
}

func (w *wtx) disarm(r *model.Reminder) error {
	return w.tx.Bucket(bRemDue).Delete(remDueKey(r.RemindAt, w.ws.id, r.ID))
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
		r := &model.Reminder{ID: newID(), ItemID: it.ID, RemindAt: model.Truncate1s(at), CreatedBy: actor, CreatedAt: tstamp(w.now)}
		if r.Seq, err = w.reminderWrite(r, model.OpCreated, "reminder_set"); err != nil {
			return err
		}
		if err := firstErr(putReminder(b, r), b.remItem().Put(cat(mustID(it.ID), mustID(r.ID)), nil), w.arm(r)); err != nil {
			return err
		}
		out, err = reminderView(b, r, map[string]*model.Collection{})
		return err
	})
	return &out, err
}

// ListReminders lists an item's reminders (archived items too) by due
// time.
func (s *Store) ListReminders(ws, ref string) ([]ReminderView, error) {
	out := []ReminderView{}
	err := s.read(ws, func(r *rtx) error {
		b := r.ws
		it, err := itemByRef(b, ref, false)
		if err != nil {
			return err
		}
		p := mustID(it.ID)
		var rs []*model.Reminder
		c := b.remItem().Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			rem, err := getReminder(b, k[16:])
			if err != nil {
				return err
			}
			if rem != nil {
				rs = append(rs, rem)
			}
		}
		sortReminders(rs)
		colls := map[string]*model.Collection{}
		for _, rem := range rs {
			v, err := reminderView(b, rem, colls)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

func sortReminders(rs []*model.Reminder) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].RemindAt.Equal(rs[j].RemindAt) {
			return rs[i].RemindAt.Before(rs[j].RemindAt)
		}
		return rs[i].ID < rs[j].ID
	})
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
			return false, model.Conflict("reminder %s has not fired yet (due %s); nothing to acknowledge. Unremind disarms it", r.ID, fmtTime(r.RemindAt)).
				With("reminder_id", r.ID).With("state", model.ReminderArmed)
		}
		t := tstamp(w.now)
		r.AcknowledgedAt = &t
		seq, err := w.reminderWrite(r, model.OpAcknowledged, "reminder_acknowledged")
		r.Seq = seq
		return true, firstErr(err, w.ws.remFired().Delete(mustID(r.ID)))
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
		return true, firstErr(err, w.ws.remFired().Delete(mustID(r.ID)), w.arm(r))
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
		v, err := reminderView(b, r, map[string]*model.Collection{})
		if err != nil {
			return err
		}
		if _, err := w.reminderWrite(r, model.OpDeleted, "reminder_removed"); err != nil {
			return err
		}
		out = &v
		return firstErr(w.disarm(r), b.remFired().Delete(mustID(r.ID)),
			b.remItem().Delete(cat(mustID(r.ItemID), mustID(r.ID))), b.reminders().Delete(mustID(r.ID)))
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
		out, err = reminderView(w.ws, r, map[string]*model.Collection{})
		return err
	})
	return &out, err
}

// pendingReminders lists a workspace's fired, unacknowledged reminders
// by due time.
func pendingReminders(b *wsb) ([]ReminderView, error) {
	var rs []*model.Reminder
	c := b.remFired().Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		r, err := getReminder(b, k)
		if err != nil {
			return nil, err
		}
		if r != nil {
			rs = append(rs, r)
		}
	}
	sortReminders(rs)
	out := make([]ReminderView, 0, len(rs))
	colls := map[string]*model.Collection{}
	for _, r := range rs {
		v, err := reminderView(b, r, colls)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// PendingReminders is pendingReminders for a workspace.
func (s *Store) PendingReminders(ws string) ([]ReminderView, error) {
	var out []ReminderView
	err := s.read(ws, func(r *rtx) error {
		var err error
		out, err = pendingReminders(r.ws)
		return err
	})
	return out, err
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
	err = s.view(func(tx *txn) error {
		states := map[string]int{} // 0 live, 1 deleted, 2 purged
		c := tx.Bucket(bRemDue).Cursor()
		n := 0
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if len(k) != 8+16+16 {
				purged = append(purged, append([]byte(nil), k...))
				continue
			}
			at := remDueTime(k)
			wsID := idString(k[8:24])
			st, seen := states[wsID]
			if !seen {
				rec, err := getWorkspace(tx, k[8:24])
				if err != nil {
					return err
				}
				switch {
				case rec == nil || tx.Bucket(bWS).Bucket(k[8:24]) == nil:
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
		if err := s.update(func(tx *txn) error {
			for _, k := range purged {
				if err := tx.Bucket(bRemDue).Delete(k); err != nil {
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
				r, err := getReminder(w.ws, k[24:])
				if err != nil {
					return err
				}
				// The key is stale when the reminder was removed, re-armed
				// at another time or fired since the read above.
				if r == nil || r.State() != model.ReminderArmed || !r.RemindAt.Equal(remDueTime(k)) {
					if err := w.tx.Bucket(bRemDue).Delete(k); err != nil {
						return err
					}
					continue
				}
				t := tstamp(w.now)
				r.FiredAt = &t
				seq, err := w.reminderWrite(r, model.OpFired, "reminder_fired")
				if err != nil {
					return err
				}
				r.Seq = seq
				if err := firstErr(putReminder(w.ws, r), w.disarm(r), w.ws.remFired().Put(mustID(r.ID), nil)); err != nil {
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
