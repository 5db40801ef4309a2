package storage

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

func reminderStates(t *testing.T, s *Store, ws, ref string) []string {
	t.Helper()
	rs, err := rd(s).ListReminders(ws, ref)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.State)
	}
	return out
}

func TestReminderLifecycle(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Reminders").Slug
	it := mustCreate(t, s, ws, "tasks", "Follow up", nil)
	due := clk.now().Add(time.Hour)
	r, err := s.AddReminder(ws, it.Ref, due, user)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != model.ReminderArmed || r.ItemRef != it.Ref || r.RemindAt != due.Format(time.RFC3339) {
		t.Fatalf("armed reminder = %+v", r)
	}
	if ch, act := lastLog(t, s, ws); ch.Entity != model.EntityReminder || ch.Op != model.OpCreated || act.Action != "reminder_set" {
		t.Fatalf("log = %+v / %+v", ch, act)
	}

	fired, next, err := s.FireDueReminders(clk.now(), 0)
	if err != nil || len(fired) != 0 || !next.Equal(due) {
		t.Fatalf("before due: fired %v, next %v, %v", fired, next, err)
	}
	clk.advance(time.Hour)
	fired, next, err = s.FireDueReminders(clk.now(), 0)
	if err != nil || len(fired) != 1 || fired[0].ReminderID != r.ID || !next.IsZero() {
		t.Fatalf("at due: fired %v, next %v, %v", fired, next, err)
	}
	if ch, act := lastLog(t, s, ws); ch.Op != model.OpFired || ch.Actor.Kind != "system" || act.Action != "reminder_fired" {
		t.Fatalf("fire logged %+v / %+v", ch, act)
	}
	pending, err := rd(s).PendingReminders(ws)
	if err != nil || len(pending) != 1 || pending[0].State != model.ReminderFired || pending[0].FiredAt == "" {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	if fired, _, _ = s.FireDueReminders(clk.now(), 0); len(fired) != 0 {
		t.Fatal("a fired reminder fired again")
	}

	v, err := s.AckReminder(ws, r.ID, user)
	if err != nil || v.State != model.ReminderAcknowledged {
		t.Fatalf("ack = %+v, %v", v, err)
	}
	head := wsSeq(t, s, ws)
	if v, err = s.AckReminder(ws, r.ID, user); err != nil || v.State != model.ReminderAcknowledged || wsSeq(t, s, ws) != head {
		t.Fatalf("second ack = %+v, %v (seq %d -> %d)", v, err, head, wsSeq(t, s, ws))
	}
	if pending, _ = rd(s).PendingReminders(ws); len(pending) != 0 {
		t.Fatalf("acknowledged reminder still pending: %+v", pending)
	}

	// Re-arm clears both marks; a new instant moves it.
	later := clk.now().Add(24 * time.Hour)
	if v, err = s.RearmReminder(ws, r.ID, &later, user); err != nil || v.State != model.ReminderArmed || v.FiredAt != "" || v.AcknowledgedAt != "" {
		t.Fatalf("rearm = %+v, %v", v, err)
	}
	if _, next, _ = s.FireDueReminders(clk.now(), 0); !next.Equal(later) {
		t.Fatalf("next after rearm = %v, want %v", next, later)
	}
	if got := reminderStates(t, s, ws, it.Ref); len(got) != 1 || got[0] != model.ReminderArmed {
		t.Fatalf("states = %v", got)
	}
	if _, err := s.RemoveReminder(ws, r.ID, user); err != nil {
		t.Fatal(err)
	}
	if got := reminderStates(t, s, ws, it.Ref); len(got) != 0 {
		t.Fatalf("states after unremind = %v", got)
	}
	if _, next, _ = s.FireDueReminders(clk.now().Add(48*time.Hour), 0); !next.IsZero() {
		t.Fatal("a removed reminder is still armed")
	}
	_, err = s.AckReminder(ws, r.ID, user)
	wantCode(t, err, model.CodeNotFound)
}

func TestReminderRefusals(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Reminders").Slug
	it := mustCreate(t, s, ws, "tasks", "Follow up", nil)
	r, err := s.AddReminder(ws, it.Ref, clk.now().Add(time.Hour), user)
	if err != nil {
		t.Fatal(err)
	}
	refused(t, s, ws, model.CodeConflict, func() error { _, err := s.AckReminder(ws, r.ID, user); return err })
	refused(t, s, ws, model.CodeNotFound, func() error { _, err := s.AckReminder(ws, "nope", user); return err })
	refused(t, s, ws, model.CodeNotFound, func() error {
		_, err := s.AddReminder(ws, "TASK-404", clk.now(), user)
		return err
	})
	// A reminder is addressed through its workspace.
	other := mustWorkspace(t, s, "Other").Slug
	refused(t, s, other, model.CodeNotFound, func() error { _, err := s.RemoveReminder(other, r.ID, user); return err })
}

// TestRemindersAcrossWorkspaces fires in due order across workspaces,
// in batches, and holds a deleted workspace's reminders until its
// restore.
func TestRemindersAcrossWorkspaces(t *testing.T) {
	s, clk := openTest(t)
	a, b := mustWorkspace(t, s, "A"), mustWorkspace(t, s, "B")
	start := clk.now()
	var want []string
	for i := range 3 {
		for _, ws := range []*model.Workspace{a, b} {
			it := mustCreate(t, s, ws.Slug, "tasks", "T", nil)
			r, err := s.AddReminder(ws.Slug, it.Ref, start.Add(time.Duration(i)*time.Minute), user)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, r.ID)
		}
	}
	clk.advance(time.Hour)
	fired, next, err := s.FireDueReminders(clk.now(), 4)
	if err != nil || len(fired) != 4 || next.After(clk.now()) || next.IsZero() {
		t.Fatalf("first batch: %d fired, next %v, %v", len(fired), next, err)
	}
	if err := s.DeleteWorkspace(b.Slug, user); err != nil {
		t.Fatal(err)
	}
	fired, next, err = s.FireDueReminders(clk.now(), 4)
	if err != nil || len(fired) != 1 || fired[0].WorkspaceID != a.ID || !next.IsZero() {
		t.Fatalf("with B deleted: %+v, next %v, %v", fired, next, err)
	}
	if _, err := s.RestoreWorkspace(b.ID, user); err != nil {
		t.Fatal(err)
	}
	fired, _, err = s.FireDueReminders(clk.now(), 4)
	if err != nil || len(fired) != 1 || fired[0].WorkspaceID != b.ID {
		t.Fatalf("after restore: %+v, %v", fired, err)
	}
}

// TestRemindersSurviveRestart arms a reminder, closes the store, and
// fires it, overdue, from the reopened one.
func TestRemindersSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, err := Open(path, Options{Now: clock, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ws := mustWorkspace(t, s, "Restart").Slug
	it := mustCreate(t, s, ws, "tasks", "T", nil)
	r, err := s.AddReminder(ws, it.Ref, now.Add(time.Minute), user)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	s, err = Open(path, Options{Now: clock, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fired, _, err := s.FireDueReminders(now, 0)
	if err != nil || len(fired) != 1 || fired[0].ReminderID != r.ID {
		t.Fatalf("after restart: %+v, %v", fired, err)
	}
}

func TestParseRemindAt(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2026-12-01T09:00:00Z", true},
		{"2026-12-01T09:00:00+02:00", true},
		{"2026-12-01", false}, // a date is not an instant
		{"tomorrow", false},
		{"", false},
		{"1969-12-31T23:59:59Z", false},
	} {
		_, err := model.ParseRemindAt(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseRemindAt(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}
