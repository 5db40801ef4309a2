package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Server-sent events (EVT-01/02). Every event is a change-log entry, read
// from the log itself: a stream keeps its own cursor and, each time the
// store says the log grew, reads on from it. So a resume from any id up
// to the head replays exactly what was missed, in order, and a slow
// stream loses nothing: the log is the buffer.
//
// Event names are Pad's (item_created, item_updated, item_archived,
// item_restored, comment_created/updated/deleted, collection_updated,
// workspace_updated, item_starred/unstarred). padd adds item_moved,
// link_created, link_deleted, role_updated and workspace_deleted, which
// Pad clients ignore as unknown names. The all-workspaces stream also
// carries Pad's "notification" events for watched items (h_watches.go),
// each with the id of the change it tells of.

// sseRetryAfterSeconds is the Retry-After of a refused stream.
const sseRetryAfterSeconds = 5

// sseState is the streams' admission counts (their caps: s.limits) and
// the sessions of the all-workspaces stream (h_watches.go).
type sseState struct {
	mu       sync.Mutex
	total    int
	perWS    map[string]int
	sessions map[string]*liveSession
}

func (s *Server) sseRoutes() {
	s.sse = sseState{perWS: map[string]int{}, sessions: map[string]*liveSession{}}
	s.handle("GET /api/v1/events", s.workspaceEvents)
	s.handle("GET /api/v1/events/stream", s.allEvents)
}

// admit takes a stream slot (wsID "" for the all-workspaces stream,
// which counts only toward the total), or refuses.
func (a *sseState) admit(l Limits, wsID string) (release func(), ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.total >= l.SSEMaxTotal || wsID != "" && a.perWS[wsID] >= l.SSEMaxPerWorkspace {
		return nil, false
	}
	a.total++
	if wsID != "" {
		a.perWS[wsID]++
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.total--
		if wsID != "" {
			if a.perWS[wsID]--; a.perWS[wsID] == 0 {
				delete(a.perWS, wsID)
			}
		}
	}, true
}

// refuseStream answers Pad's 429. Written here rather than through
// writeError, which would say Retry-After: 1: Pad asks streams to wait 5.
func refuseStream(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(sseRetryAfterSeconds))
	writeJSON(w, api.StatusOf(api.CodeSSELimitExceeded), api.ErrorEnvelope{Error: &api.Error{Code: api.CodeSSELimitExceeded,
		Message: "Streaming connection limit reached; retry after " + strconv.Itoa(sseRetryAfterSeconds) + " seconds"}})
}

// eventFeed is one log a stream follows.
type eventFeed struct {
	// head is the log's last position.
	head func() (int64, error)
	// read returns the events after a position, ascending, from at most
	// a page of the log, the position the next read starts after, and
	// whether the page was full (more may follow at once).
	read func(after int64) (evs []sseOut, next int64, full bool, err error)
}

// sseOut is one event to send: its id, name and data.
type sseOut struct {
	id   int64
	name string
	data any
}

// changeEvents are a page's change events as events to send.
func changeEvents(evs []api.Event) []sseOut {
	out := make([]sseOut, len(evs))
	for i := range evs {
		out[i] = sseOut{evs[i].ID, evs[i].Type, &evs[i]}
	}
	return out
}

func (s *Server) workspaceEvents(w http.ResponseWriter, r *http.Request) error {
	slug := r.URL.Query().Get("workspace")
	if slug == "" {
		return model.BadRequest("workspace query parameter is required").With("param", "workspace")
	}
	ws, err := s.views.GetWorkspace(slug)
	if err != nil {
		return err
	}
	release, ok := s.sse.admit(s.limits, ws.ID)
	if !ok {
		refuseStream(w)
		return nil
	}
	defer release()
	feed := eventFeed{
		head: func() (int64, error) { return s.views.Head(ws.ID) },
		read: func(after int64) ([]sseOut, int64, bool, error) {
			chs, head, err := s.views.ChangesSince(r.Context(), ws.ID, after, ssePage)
			if err != nil {
				return nil, after, false, err
			}
			entries := make([]storage.JournalEntry, len(chs))
			for i, ch := range chs {
				entries[i] = storage.JournalEntry{WorkspaceID: ws.ID, Seq: ch.Seq, Change: ch}
			}
			evs, err := s.describeEvents(entries, false)
			return changeEvents(evs), nextAfter(after, head, len(chs), func() int64 { return chs[len(chs)-1].Seq }), len(chs) == ssePage, err
		},
	}
	connected := map[string]string{"workspace": ws.Slug, "workspace_id": ws.ID}
	s.stream(w, r, connected, feed, nil, func(sw *sseWriter) {
		// The workspace was deleted under the stream: say so and end.
		sw.event(nil, "workspace_deleted", connected)
	})
	return nil
}

func (s *Server) allEvents(w http.ResponseWriter, r *http.Request) error {
	release, ok := s.sse.admit(s.limits, "")
	if !ok {
		refuseStream(w)
		return nil
	}
	defer release()
	ls, unregister := s.sse.register(sessionOf(r))
	defer unregister()
	wss, err := s.views.ListWorkspaces()
	if err != nil {
		return err
	}
	list := make([]map[string]string, 0, len(wss))
	for _, ws := range wss {
		list = append(list, map[string]string{"workspace": ws.Slug, "workspace_id": ws.ID})
	}
	feed := eventFeed{
		head: s.views.GlobalHead,
		read: func(after int64) ([]sseOut, int64, bool, error) {
			entries, head, err := s.views.JournalSince(r.Context(), after, ssePage)
			if err != nil {
				return nil, after, false, err
			}
			evs, err := s.describeEvents(entries, true)
			if err != nil {
				return nil, after, false, err
			}
			out, err := s.withNotifications(entries, evs)
			// An empty page means caught up (purged workspaces' entries
			// are skipped), so the cursor may move to the head.
			return out, nextAfter(after, head, len(entries), func() int64 { return entries[len(entries)-1].Global }), len(entries) == ssePage, err
		},
	}
	s.stream(w, r, map[string]any{"user_id": localUserID, "workspaces": list}, feed, ls.pushes, nil)
	return nil
}

// nextAfter is a feed's next cursor: the last entry read, or the head
// when there was nothing (never backwards).
func nextAfter(after, head int64, n int, last func() int64) int64 {
	if n == 0 {
		return max(after, head)
	}
	return last()
}

// describeEvents turns log entries into events. global picks the id:
// the journal position (all workspaces) or the workspace seq.
func (s *Server) describeEvents(entries []storage.JournalEntry, global bool) ([]api.Event, error) {
	subjects, err := s.views.DescribeChanges(entries)
	if err != nil {
		return nil, err
	}
	out := make([]api.Event, len(entries))
	for i, e := range entries {
		ch, subj := e.Change, subjects[i]
		ev := api.Event{ID: ch.Seq, Type: eventType(ch.Entity, ch.Op), WorkspaceID: e.WorkspaceID,
			Workspace: subj.WorkspaceSlug, ItemID: ch.ItemID, CollectionID: ch.CollectionID,
			Collection: subj.CollectionSlug, Title: subj.ItemTitle, Ref: subj.ItemRef, Actor: ch.Actor.Kind,
			ActorName: ch.Actor.Name, Source: ch.Actor.Source, Timestamp: ch.At.UnixMilli(), Seq: ch.Seq,
			Entity: ch.Entity, Op: ch.Op}
		if global {
			ev.ID = e.Global
		}
		if ch.Entity != model.EntityItem {
			ev.EntityID = ch.ID
		}
		out[i] = ev
	}
	return out, nil
}

// eventType names a change-log entry as Pad's event stream does.
func eventType(entity, op string) string {
	switch entity {
	case model.EntityItem:
		switch op {
		case model.OpCreated:
			return "item_created"
		case model.OpDeleted, model.OpArchived:
			return "item_archived"
		case model.OpRestored:
			return "item_restored"
		case model.OpMoved:
			return "item_moved"
		}
		return "item_updated"
	case model.EntityComment:
		return "comment_" + op
	case model.EntityCollection:
		return "collection_updated"
	case model.EntityWorkspace:
		if op == model.OpDeleted {
			return "workspace_deleted"
		}
		return "workspace_updated"
	case model.EntityStar:
		if op == model.OpDeleted {
			return "item_unstarred"
		}
		return "item_starred"
	case model.EntityLink:
		if op == model.OpDeleted {
			return "link_deleted"
		}
		return "link_created"
	case model.EntityRole:
		return "role_updated"
	case model.EntityReaction: // Pad's names; the entity id is the comment's
		if op == model.OpDeleted {
			return "reaction_removed"
		}
		return "reaction_added"
	}
	return entity + "_" + op
}

// lastEventID is the resume position a client sent: the Last-Event-ID
// header (EventSource's), else ?last_event_id= for clients that cannot
// set headers.
func lastEventID(r *http.Request) (string, bool) {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		return v, true
	}
	v := r.URL.Query().Get("last_event_id")
	return v, v != ""
}

// stream runs one event stream until the client leaves, the daemon
// shuts down or a write fails. pushes are the session's pushes (nil: a
// stream that takes none); gone, when set, ends a stream whose workspace
// went away.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, connected any, feed eventFeed, pushes <-chan *pushDelivery, gone func(*sseWriter)) {
	// Subscribe before reading the head: a commit after this point is
	// heard, one before it is in the log below the head.
	notes, unsubscribe := s.store.Subscribe()
	defer unsubscribe()
	head, err := feed.head()
	if err != nil {
		writeError(w, r, err)
		return
	}
	sw := s.openStream(w)
	defer sw.clearDeadline()
	if sw.event(nil, "connected", connected) != nil {
		return
	}

	cursor := head // a fresh client hears what happens from now on
	if raw, ok := lastEventID(r); ok {
		id, perr := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		switch {
		case perr != nil || id < 0:
			err = sw.syncRequired("Your last event ID could not be read. Full sync required.")
		case id > head:
			// Ahead of the log: another padd's id, or a database that was
			// replaced or restored. Nothing here can vouch for it.
			err = sw.syncRequired("This instance cannot vouch for events since your last ID. Full sync required.")
		default:
			cursor = id // replay exactly what was missed
		}
		if err != nil {
			return
		}
	}

	// drain sends everything after the cursor, page by page.
	drain := func() bool {
		for {
			evs, next, full, err := feed.read(cursor)
			if err != nil {
				switch {
				case gone != nil && isWorkspaceMiss(err):
					gone(sw)
				case r.Context().Err() != nil: // the client left during the read
				default:
					s.log.Warn("event stream stopped: the change log could not be read", "err", err)
				}
				return false
			}
			if sw.events(evs) != nil {
				return false
			}
			cursor = next
			if !full {
				return true
			}
		}
	}
	if !drain() {
		return
	}
	keepalive := time.NewTicker(s.limits.SSEKeepalive)
	defer keepalive.Stop()
	for {
		// A deadline bounds a write; a stream waiting for its next event
		// holds none, so that no deadline timer wakes padd while it is
		// idle.
		sw.clearDeadline()
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			sw.event(nil, "shutdown", map[string]string{"reason": "padd is shutting down"})
			return
		case _, open := <-notes:
			if !open {
				return // the store closed
			}
			// Any commit may be ours (a notification for another workspace
			// can stand for a dropped one of this), and an empty read is
			// cheap: read on from the cursor.
			if !drain() {
				return
			}
		case d := <-pushes:
			// A push is no change: it carries the id of the last change
			// sent, so a resume from it misses nothing of the log.
			id := cursor
			d.note.ID = id
			err := sw.event(&id, "notification", d.note)
			d.done <- err
			if err != nil {
				return
			}
		case <-keepalive.C:
			if sw.write([]byte(": keepalive\n\n")) != nil {
				return
			}
		}
	}
}

// openStream answers 200 with an event stream's headers and returns its
// writer.
// relayEvents writes each event from events with write, and keepalives
// while idle, until the client leaves, padd shuts down (said to the
// client), events is closed or a write fails.
func relayEvents[T any](s *Server, r *http.Request, sw *sseWriter, events <-chan T, write func(T) error) {
	keepalive := time.NewTicker(s.limits.SSEKeepalive)
	defer keepalive.Stop()
	for {
		sw.clearDeadline() // no deadline timer while idle (see stream)
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			sw.event(nil, "shutdown", map[string]string{"reason": "padd is shutting down"})
			return
		case ev, open := <-events:
			if !open || write(ev) != nil {
				return
			}
		case <-keepalive.C:
			if sw.write([]byte(": keepalive\n\n")) != nil {
				return
			}
		}
	}
}

func (s *Server) openStream(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w), timeout: s.limits.SSEWriteTimeout}
}

// sseWriter writes frames, each flushed and bounded by a write deadline.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (sw *sseWriter) write(frame []byte) error {
	if err := sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := sw.w.Write(frame); err != nil {
		return err
	}
	return sw.rc.Flush()
}

// clearDeadline lifts the last write deadline: the server reuses the
// connection for the client's next request and would inherit it, and
// its timer would fire though the write is long done.
func (sw *sseWriter) clearDeadline() { _ = sw.rc.SetWriteDeadline(time.Time{}) }

// event writes one event; id nil writes none.
func (sw *sseWriter) event(id *int64, name string, data any) error {
	var buf bytes.Buffer
	if err := encodeEvent(&buf, id, name, data); err != nil {
		return err
	}
	return sw.write(buf.Bytes())
}

// events writes events with their ids, those of one id in one write: a
// change and the notifications it makes share its id, and a client
// resuming from that id must have had them all.
func (sw *sseWriter) events(evs []sseOut) error {
	var buf bytes.Buffer
	for i := range evs {
		if err := encodeEvent(&buf, &evs[i].id, evs[i].name, evs[i].data); err != nil {
			return err
		}
		if i+1 < len(evs) && evs[i+1].id == evs[i].id {
			continue
		}
		if err := sw.write(buf.Bytes()); err != nil {
			return err
		}
		buf.Reset()
	}
	return nil
}

// encodeEvent appends one event's frame; id nil writes none.
func encodeEvent(buf *bytes.Buffer, id *int64, name string, data any) error {
	if id != nil {
		fmt.Fprintf(buf, "id: %d\n", *id)
	}
	fmt.Fprintf(buf, "event: %s\ndata: ", name)
	enc := json.NewEncoder(buf) // one line: JSON has no raw newlines
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		return err
	}
	buf.WriteString("\n") // Encode ended the data line; this ends the event
	return nil
}

// syncRequired tells the client its position cannot be served. The empty
// id field resets the client's last event id (per the SSE spec), so its
// next reconnect starts fresh after it re-fetches.
func (sw *sseWriter) syncRequired(reason string) error {
	b, _ := json.Marshal(map[string]string{"reason": reason})
	return sw.write([]byte("id: \nevent: sync_required\ndata: " + string(b) + "\n\n"))
}
