package daemon

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
)

func TestWatchRoutes(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	h.task("B")
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Two", "slug": "w2"}, 201, nil)
	h.mustJSON("POST", "/api/v1/workspaces/w2/collections/tasks/items", map[string]any{"title": "elsewhere"}, 201, nil)

	var w1 api.Watch
	h.mustJSON("POST", wsPath("/items/TASK-1/watch"), nil, 200, &w1)
	if w1.ID == "" || w1.ItemRef != "TASK-1" || w1.ItemTitle != "A" || w1.ItemSlug == "" || w1.WorkspaceSlug != "w" ||
		w1.UserID != "local" || w1.Predicate != "" || w1.WorkspaceID == "" || w1.ItemID == "" {
		t.Fatalf("watch = %+v", w1)
	}
	// Again with a predicate: the same watch, the predicate replaced.
	var again api.Watch
	h.clock.advance(1e9)
	h.mustJSON("POST", wsPath("/items/TASK-1/watch"), map[string]any{"predicate": "status=done"}, 200, &again)
	if again.ID != w1.ID || again.Predicate != "status=done" {
		t.Fatalf("re-watch = %+v, first %+v", again, w1)
	}
	h.clock.advance(1e9)
	h.mustJSON("POST", "/api/v1/workspaces/w2/items/TASK-1/watch", map[string]any{}, 200, nil)

	var list []api.Watch
	h.mustJSON("GET", "/api/v1/watches", nil, 200, &list)
	if len(list) != 2 || list[0].WorkspaceSlug != "w2" || list[0].ItemTitle != "elsewhere" ||
		list[1].ID != w1.ID || list[1].Predicate != "status=done" {
		t.Fatalf("watches = %+v", list)
	}

	// Refusals, each from the one error table.
	h.wantError("POST", wsPath("/items/TASK-2/watch"), map[string]any{"predicate": "done"}, 400, api.CodeBadRequest)
	h.wantError("POST", wsPath("/items/TASK-2/watch"), map[string]any{"predicate": "=done"}, 400, api.CodeBadRequest)
	e := h.wantError("POST", wsPath("/items/TASK-2/watch"), map[string]any{"predicate": "status=" + strings.Repeat("x", 5000)}, 400, api.CodeValidation)
	if e.Details["field"] != "predicate" {
		t.Errorf("long predicate refused with %+v", e)
	}
	h.wantError("POST", wsPath("/items/TASK-2/watch"), `{"predicate": 7}`, 400, api.CodeBadRequest)
	h.wantError("POST", wsPath("/items/TASK-9/watch"), nil, 404, api.CodeNotFound)
	h.wantError("POST", "/api/v1/workspaces/nope/items/TASK-1/watch", nil, 404, api.CodeNotFound)
	h.wantError("DELETE", wsPath("/items/TASK-2/watch"), nil, 404, api.CodeNotFound)

	// An archived item keeps its watch (listed, as Pad lists it), and
	// refuses a change to it as it refuses any.
	h.mustJSON("DELETE", wsPath("/items/TASK-1"), nil, 204, nil)
	h.mustJSON("GET", "/api/v1/watches", nil, 200, &list)
	if len(list) != 2 {
		t.Fatalf("watches after the archive = %+v", list)
	}
	h.wantError("DELETE", wsPath("/items/TASK-1/watch"), nil, 409, api.CodeArchived)
	h.wantError("POST", wsPath("/items/TASK-1/watch"), nil, 409, api.CodeArchived)
	h.mustJSON("POST", wsPath("/items/TASK-1/restore"), nil, 200, nil)

	var gone api.Unwatched
	h.mustJSON("DELETE", wsPath("/items/TASK-1/watch"), nil, 200, &gone)
	if gone.Ref != "TASK-1" || gone.Watched {
		t.Fatalf("unwatch = %+v", gone)
	}
	h.wantError("DELETE", wsPath("/items/TASK-1/watch"), nil, 404, api.CodeNotFound)
	h.mustJSON("GET", "/api/v1/watches", nil, 200, &list)
	if len(list) != 1 || list[0].WorkspaceSlug != "w2" {
		t.Fatalf("watches after the unwatch = %+v", list)
	}
}

// notification reads the next "notification" event, skipping others.
func (c *sseConn) notification() (sseFrame, api.WatchNotification) {
	c.t.Helper()
	for {
		f := c.nextEvent()
		if f.event != "notification" {
			continue
		}
		var n api.WatchNotification
		if err := json.Unmarshal([]byte(f.data), &n); err != nil {
			c.t.Fatalf("notification data %q: %v", f.data, err)
		}
		if f.id != strconv.FormatInt(n.ID, 10) {
			c.t.Fatalf("frame id %q, data id %d", f.id, n.ID)
		}
		return f, n
	}
}

// untilEvent reads events up to one of the type, and returns the
// notifications on the way.
func (c *sseConn) notesUntil(ref string) []api.WatchNotification {
	c.t.Helper()
	var out []api.WatchNotification
	for {
		f := c.nextEvent()
		switch f.event {
		case "notification":
			var n api.WatchNotification
			if err := json.Unmarshal([]byte(f.data), &n); err != nil {
				c.t.Fatal(err)
			}
			out = append(out, n)
		case "item_updated", "item_created":
			var ev api.Event
			if err := json.Unmarshal([]byte(f.data), &ev); err != nil {
				c.t.Fatal(err)
			}
			if ev.Ref == ref {
				return out
			}
		}
	}
}

func TestWatchNotifications(t *testing.T) {
	h := newHarness(t)
	h.task("Watched")     // TASK-1: every kind
	h.task("Until done")  // TASK-2: status=done only
	h.task("Not watched") // TASK-3
	h.mustJSON("POST", wsPath("/items/TASK-1/watch"), nil, 200, nil)
	h.mustJSON("POST", wsPath("/items/TASK-2/watch"), map[string]any{"predicate": "status=done"}, 200, nil)

	s := h.openSSE("/api/v1/events/stream?armed=true", "X-Pad-Session-Label", "  my\tproject  ", "X-Pad-Session-Pid", "4242")
	s.connected()
	var ss api.Sessions
	r := h.mustJSON("GET", "/api/v1/sessions", nil, 200, &ss)
	if ss.Count != 1 || len(ss.Sessions) != 1 || ss.Sessions[0].Label != "my project" || ss.Sessions[0].PID != 4242 ||
		!ss.Sessions[0].Armed || ss.Sessions[0].ID == "" || !strings.Contains(r.header.Get("Cache-Control"), "no-store") {
		t.Fatalf("sessions = %+v (%v)", ss, r.header)
	}

	patch := func(ref string, body map[string]any) {
		h.mustJSON("PATCH", wsPath("/items/"+ref), body, 200, nil)
	}
	patch("TASK-1", map[string]any{"fields_patch": map[string]any{"status": "in-progress"}})
	patch("TASK-1", map[string]any{"title": "Watched, renamed"}) // no notification
	patch("TASK-1", map[string]any{"assigned_user_id": "local"})
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "line one\n\n  line   two"}, 201, nil)
	patch("TASK-2", map[string]any{"fields_patch": map[string]any{"status": "in-progress"}}) // not the predicate's value
	patch("TASK-3", map[string]any{"fields_patch": map[string]any{"status": "done"}})        // not watched
	patch("TASK-2", map[string]any{"fields_patch": map[string]any{"status": "done"}})
	patch("TASK-1", map[string]any{"fields_patch": map[string]any{"status": "done"}, "comment": "fix verified"})
	h.task("Sentinel")

	got := s.notesUntil("TASK-4")
	type note struct{ ref, kind, summary string }
	want := []note{
		{"TASK-1", "status-change", "open → in-progress"},
		{"TASK-1", "assignment", "assigned to local"},
		{"TASK-1", "comment", "line one line two"},
		{"TASK-2", "status-change", "in-progress → done"},
		{"TASK-1", "status-change", "in-progress → done"},
		{"TASK-1", "comment", "fix verified"},
	}
	if len(got) != len(want) {
		t.Fatalf("notifications = %+v", got)
	}
	for i, n := range got {
		if (note{n.ItemRef, n.Kind, n.Summary}) != want[i] || n.Workspace != "w" || n.Actor == "" || n.Ts <= 0 || n.ID <= 0 ||
			i > 0 && n.ID < got[i-1].ID {
			t.Errorf("notification %d = %+v, want %+v", i, n, want[i])
		}
	}
	s.close()
	testwait.Until(t, "the closed stream's session to leave the registry", func() bool {
		var ss api.Sessions
		h.mustJSON("GET", "/api/v1/sessions", nil, 200, &ss)
		return ss.Count == 0 && len(ss.Sessions) == 0
	})

	// A resume replays the notifications after the id, and only those.
	re := h.openSSE("/api/v1/events/stream", "Last-Event-ID", strconv.FormatInt(got[2].ID, 10))
	re.connected()
	if again := re.notesUntil("TASK-4"); len(again) != 3 || again[0] != got[3] || again[2] != got[5] {
		t.Fatalf("resumed notifications = %+v, want %+v", again, got[3:])
	}
	// The workspace stream is left as it was: no notifications.
	ws := h.openSSE("/api/v1/events?workspace=w", "Last-Event-ID", "0")
	ws.connected()
	if notes := ws.notesUntil("TASK-4"); len(notes) != 0 {
		t.Fatalf("workspace stream carried %+v", notes)
	}
}

// A session's label is cleaned and cut as Pad's server does, never
// refused.
func TestSessionLabel(t *testing.T) {
	for raw, want := range map[string]string{
		"":                             "",
		"docapp":                       "docapp",
		"  doc \t\n app  ":             "doc app",
		"do\x00c\x1b[31mapp":           "doc[31mapp",
		strings.Repeat("é", 100):       strings.Repeat("é", maxSessionLabel),
		strings.Repeat("a", 63) + " b": strings.Repeat("a", 63),
	} {
		if got := sessionLabel(raw); got != want {
			t.Errorf("sessionLabel(%q) = %q, want %q", raw, got, want)
		}
	}
}
