package records

import (
	"bytes"
	"sort"
	"time"

	"github.com/padd/padd/model"
)

// Item reminders (Pad's REM-01..05). An armed reminder sits in the
// top-level rem_due index, ordered by due time across workspaces, so
// padd's firing loop finds the next one with one cursor read. Firing
// marks it fired (a stamped mutation: the change log, so the event
// stream says reminder_fired) and lists it in rem_fired until it is
// acknowledged; the dashboard's pending_reminders reads that list.

func GetReminder(b *Wsb, id []byte) (*model.Reminder, error) {
	raw := b.Reminders().Get(id)
	if raw == nil {
		return nil, nil
	}
	var r model.Reminder
	if err := Decode(raw, &r); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "reminder %s is unreadable: %v", IDString(id), err)
	}
	r.ID = IDString(id)
	return &r, nil
}

func FmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return FmtTime(*t)
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

// ReminderViewOf describes a reminder with its item.
func ReminderViewOf(b *Wsb, r *model.Reminder, colls map[string]*model.Collection) (ReminderView, error) {
	v := ReminderView{ID: r.ID, ItemID: r.ItemID, State: r.State(), RemindAt: FmtTime(r.RemindAt),
		FiredAt: fmtTimePtr(r.FiredAt), AcknowledgedAt: fmtTimePtr(r.AcknowledgedAt),
		CreatedBy: r.CreatedBy.Kind, CreatedAt: FmtTime(r.CreatedAt), Seq: r.Seq}
	// The summary, not the item: the dashboard and next list every
	// pending reminder.
	it, err := getSum(b, MustID(r.ItemID))
	if err != nil || it == nil {
		return v, err
	}
	c, err := CollOf(b, colls, it.CollectionID)
	if err != nil {
		return v, err
	}
	v.ItemRef, v.ItemTitle, v.Collection = RefOf(c, it.Number), it.Title, c.Slug
	return v, nil
}

func SortReminders(rs []*model.Reminder) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].RemindAt.Equal(rs[j].RemindAt) {
			return rs[i].RemindAt.Before(rs[j].RemindAt)
		}
		return rs[i].ID < rs[j].ID
	})
}

// PendingReminders lists a workspace's fired, unacknowledged reminders
// by due time.
func PendingReminders(b *Wsb) ([]ReminderView, error) {
	var rs []*model.Reminder
	c := b.RemFired().Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		r, err := GetReminder(b, k)
		if err != nil {
			return nil, err
		}
		if r != nil {
			rs = append(rs, r)
		}
	}
	SortReminders(rs)
	out := make([]ReminderView, 0, len(rs))
	colls := map[string]*model.Collection{}
	for _, r := range rs {
		v, err := ReminderViewOf(b, r, colls)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ReadReminders lists an item's reminders (archived items too) by due
// time.
func ReadReminders(b *Base, ws, ref string) ([]ReminderView, error) {
	out := []ReminderView{}
	err := b.Read(ws, func(r *Rtx) error {
		b := r.WS
		it, err := ItemByRef(b, ref, false)
		if err != nil {
			return err
		}
		p := MustID(it.ID)
		var rs []*model.Reminder
		c := b.RemItem().Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			rem, err := GetReminder(b, k[16:])
			if err != nil {
				return err
			}
			if rem != nil {
				rs = append(rs, rem)
			}
		}
		SortReminders(rs)
		colls := map[string]*model.Collection{}
		for _, rem := range rs {
			v, err := ReminderViewOf(b, rem, colls)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// ReadPendingReminders is pendingReminders for a workspace.
func ReadPendingReminders(b *Base, ws string) ([]ReminderView, error) {
	var out []ReminderView
	err := b.Read(ws, func(r *Rtx) error {
		var err error
		out, err = PendingReminders(r.WS)
		return err
	})
	return out, err
}
