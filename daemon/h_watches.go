package daemon

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
)

// Item watches and the session registry (EVT-02), Pad's: a watch is the
// local user's durable subscription to an item (storage/watches.go); the
// all-workspaces stream (/events/stream) carries a "notification" event
// for each status change, assignment and comment of a watched item; and
// each open stream is a session its client names in headers, listed by
// GET /sessions. Watches are not synced: Pad keeps them per user on its
// server, and a padd is one user.

// maxSessionLabel is how many characters of a session's label are kept
// (Pad's: a longer one is cut, not refused).
const maxSessionLabel = 64

func (s *Server) watchRoutes() {
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/watch", s.watch)
	s.handle("DELETE /api/v1/workspaces/{ws}/items/{ref}/watch", s.unwatch)
	s.handle("GET /api/v1/watches", s.watches)
	s.handle("GET /api/v1/sessions", s.sessions)
}

// watch creates the watch, or replaces its predicate: 200 with the watch.
func (s *Server) watch(w http.ResponseWriter, r *http.Request) error {
	var in api.WatchCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	wt, err := s.store.CreateWatch(r.PathValue("ws"), r.PathValue("ref"), in.Predicate)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireWatch(*wt))
	return nil
}

// unwatch answers {ref, watched: false}; an item not watched is Pad's 404.
func (s *Server) unwatch(w http.ResponseWriter, r *http.Request) error {
	ref, err := s.store.DeleteWatch(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.Unwatched{Ref: ref})
	return nil
}

// watches lists every watch, across workspaces, as a bare array.
func (s *Server) watches(w http.ResponseWriter, _ *http.Request) error {
	list, err := s.views.ListWatches()
	if err != nil {
		return err
	}
	out := make([]api.Watch, len(list))
	for i, wt := range list {
		out[i] = wireWatch(wt)
	}
	writeJSON(w, 200, out)
	return nil
}

func wireWatch(w storage.Watch) api.Watch {
	return api.Watch{ID: w.ID, WorkspaceID: w.WorkspaceID, UserID: localUserID, ItemID: w.ItemID, Predicate: w.Predicate,
		CreatedAt: w.CreatedAt, ItemRef: w.ItemRef, ItemTitle: w.ItemTitle, ItemSlug: w.ItemSlug, WorkspaceSlug: w.WorkspaceSlug}
}

// sessions lists the open /events/stream connections, oldest first.
func (s *Server) sessions(w http.ResponseWriter, _ *http.Request) error {
	s.sse.mu.Lock()
	list := make([]api.LiveSession, 0, len(s.sse.sessions))
	for _, ls := range s.sse.sessions {
		list = append(list, ls.info)
	}
	s.sse.mu.Unlock()
	sort.Slice(list, func(i, j int) bool {
		if !list[i].ConnectedAt.Equal(list[j].ConnectedAt) {
			return list[i].ConnectedAt.Before(list[j].ConnectedAt)
		}
		return list[i].ID < list[j].ID
	})
	writeJSON(w, 200, api.Sessions{Sessions: list, Count: len(list)})
	return nil
}

// sessionOf is the session a stream request announces: its label
// (X-Pad-Session-Label, cleaned and cut), its pid (X-Pad-Session-Pid; 0
// when it is not a positive number) and its consent (?armed=true).
// Nothing here refuses a stream: a garbled header still gets its events,
// as on Pad.
func sessionOf(r *http.Request) api.LiveSession {
	pid, err := strconv.Atoi(strings.TrimSpace(r.Header.Get("X-Pad-Session-Pid")))
	if err != nil || pid <= 0 {
		pid = 0
	}
	return api.LiveSession{ID: uuid.NewString(), Label: sessionLabel(r.Header.Get("X-Pad-Session-Label")), PID: pid,
		Armed: r.URL.Query().Get("armed") == "true", ConnectedAt: time.Now().UTC().Truncate(time.Second)}
}

// sessionLabel keeps a label's printable characters, one space for each
// run of white space, at most maxSessionLabel of them.
func sessionLabel(raw string) string {
	var b strings.Builder
	n, space := 0, false
	for _, c := range raw {
		if n == maxSessionLabel {
			break
		}
		switch {
		case unicode.IsSpace(c):
			space = b.Len() > 0
			continue
		case !unicode.IsPrint(c):
			continue
		}
		if space {
			if n+1 == maxSessionLabel {
				break
			}
			b.WriteByte(' ')
			n, space = n+1, false
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// register lists a session until the returned func is called, which
// also tells a push waiting on it that it is gone.
func (a *sseState) register(ss api.LiveSession) (*liveSession, func()) {
	ls := &liveSession{info: ss, pushes: make(chan *pushDelivery, pushQueue), gone: make(chan struct{})}
	a.mu.Lock()
	a.sessions[ss.ID] = ls
	a.mu.Unlock()
	return ls, func() {
		a.mu.Lock()
		delete(a.sessions, ss.ID)
		a.mu.Unlock()
		close(ls.gone)
	}
}

// withNotifications adds after each change event the notifications its
// change makes for watched items, with the same id.
func (s *Server) withNotifications(entries []storage.JournalEntry, evs []api.Event) ([]sseOut, error) {
	notes, err := s.views.WatchNotes(entries)
	if err != nil {
		return nil, err
	}
	out := make([]sseOut, 0, len(evs))
	for i := range evs {
		out = append(out, sseOut{evs[i].ID, evs[i].Type, &evs[i]})
		for _, n := range notes[i] {
			actor := n.Actor.Name
			if actor == "" {
				actor = n.Actor.Kind
			}
			out = append(out, sseOut{evs[i].ID, "notification", api.WatchNotification{ID: evs[i].ID, Ts: n.At.UnixMilli(),
				Workspace: n.Workspace, ItemRef: n.ItemRef, Kind: n.Kind, Actor: actor, Summary: n.Summary}})
		}
	}
	return out, nil
}
