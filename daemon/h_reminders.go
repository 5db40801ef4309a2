package daemon

import (
	"net/http"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Item reminders (REM-01..04). The firing loop is reminders.go.

// remind arms a reminder: 201 with the reminder.
func (s *Server) remind(w http.ResponseWriter, r *http.Request) error {
	var body api.ReminderWrite
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	at := ""
	if body.RemindAt != nil {
		at = *body.RemindAt
	}
	t, err := model.ParseRemindAt(at)
	if err != nil {
		return err
	}
	v, err := s.store.AddReminder(r.PathValue("ws"), r.PathValue("ref"), t, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 201, wireReminderReply(v))
	return nil
}

// reminders lists an item's reminders with their states, as a bare
// array.
func (s *Server) reminders(w http.ResponseWriter, r *http.Request) error {
	out, err := s.views.ListReminders(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireReminders(out))
	return nil
}

func (s *Server) ackReminder(w http.ResponseWriter, r *http.Request) error {
	v, err := s.store.AckReminder(r.PathValue("ws"), r.PathValue("id"), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireReminderReply(v))
	return nil
}

// rearmReminder clears both fire marks; a remind_at in the body moves the
// reminder too.
func (s *Server) rearmReminder(w http.ResponseWriter, r *http.Request) error {
	var body api.ReminderWrite
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	var at *time.Time
	if body.RemindAt != nil {
		t, err := model.ParseRemindAt(*body.RemindAt)
		if err != nil {
			return err
		}
		at = &t
	}
	v, err := s.store.RearmReminder(r.PathValue("ws"), r.PathValue("id"), at, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireReminderReply(v))
	return nil
}

// unremind disarms and deletes a reminder: 204.
func (s *Server) unremind(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.RemoveReminder(r.PathValue("ws"), r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
