package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListReminders lists an item's reminders (archived items too) by due
// time.
func (s *Views) ListReminders(ws, ref string) ([]storage.ReminderView, error) {
	return records.ReadReminders(s.base, ws, ref)
}

// PendingReminders is pendingReminders for a workspace.
func (s *Views) PendingReminders(ws string) ([]storage.ReminderView, error) {
	return records.ReadPendingReminders(s.base, ws)
}
