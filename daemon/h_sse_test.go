package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage/views"
)

// sseFrame is one frame of an event stream: an event, or a comment.
type sseFrame struct {
	id      string
	hasID   bool // an "id:" line was sent, possibly empty
	event   string
	data    string
	comment string
}

// sseConn reads an event stream frame by frame.
type sseConn struct {
	t      *testing.T
	frames chan sseFrame
	cancel context.CancelFunc
	header http.Header
}

const sseWait = 5 * time.Second

// openSSE connects to a stream and wants 200 text/event-stream.
func (h *harness) openSSE(path string, headers ...string) *sseConn {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", h.ts.URL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		cancel()
		h.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c := &sseConn{t: h.t, frames: make(chan sseFrame, 1024), cancel: cancel, header: resp.Header}
	go func() {
		defer close(c.frames)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var f sseFrame
		empty := true
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				if !empty {
					c.frames <- f
				}
				f, empty = sseFrame{}, true
				continue
			}
			empty = false
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "":
				f.comment = value
			case "id":
				f.id, f.hasID = value, true
			case "event":
				f.event = value
			case "data":
				f.data = value
			}
		}
	}()
	h.t.Cleanup(c.close)
	return c
}

func (c *sseConn) close() { c.cancel() }

// next is the next frame; it fails the test on a timeout or end.
func (c *sseConn) next() sseFrame {
	c.t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.t.Fatal("stream ended")
		}
		return f
	case <-time.After(sseWait):
		c.t.Fatal("no frame within", sseWait)
	}
	return sseFrame{}
}

// nextEvent skips keepalive comments.
func (c *sseConn) nextEvent() sseFrame {
	c.t.Helper()
	for {
		if f := c.next(); f.comment == "" {
			return f
		}
	}
}

// change reads the next event as a change event.
func (c *sseConn) change() (sseFrame, api.Event) {
	c.t.Helper()
	f := c.nextEvent()
	var ev api.Event
	if err := json.Unmarshal([]byte(f.data), &ev); err != nil {
		c.t.Fatalf("event %q data %q: %v", f.event, f.data, err)
	}
	if !f.hasID || f.id != strconv.FormatInt(ev.ID, 10) || f.event != ev.Type {
		c.t.Fatalf("frame id %q event %q disagrees with data %+v", f.id, f.event, ev)
	}
	return f, ev
}

// ended waits for the stream to close.
func (c *sseConn) ended() {
	c.t.Helper()
	deadline := time.After(sseWait)
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				return
			}
			if f.comment == "" {
				c.t.Fatalf("frame %+v after the end", f)
			}
		case <-deadline:
			c.t.Fatal("stream did not end")
		}
	}
}

func (c *sseConn) connected() map[string]any {
	c.t.Helper()
	f := c.next()
	var data map[string]any
	if f.event != "connected" || f.hasID || json.Unmarshal([]byte(f.data), &data) != nil {
		c.t.Fatalf("first frame = %+v", f)
	}
	return data
}

func TestEventsConnectedThenLiveInOrder(t *testing.T) {
	h := newHarness(t)
	s := h.openSSE("/api/v1/events?workspace=w")
	data := s.connected()
	var wsInfo struct{ ID string }
	h.mustJSON("GET", "/api/v1/workspaces/w", nil, 200, &wsInfo)
	if data["workspace"] != "w" || data["workspace_id"] != wsInfo.ID {
		t.Errorf("connected data = %v", data)
	}
	if s.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("Cache-Control = %q", s.header.Get("Cache-Control"))
	}
	it := h.task("Live one")
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"fields_patch": map[string]any{"status": "in-progress"}}, 200, nil)
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "c"}, 201, nil, "X-Pad-Agent", "bot")
	h.mustJSON("POST", wsPath("/items/TASK-1/star"), nil, 200, nil)
	h.mustJSON("POST", wsPath("/items/TASK-1/move"), map[string]any{"target_collection": "ideas"}, 200, nil)
	h.mustJSON("DELETE", wsPath("/items/IDEA-1"), nil, 204, nil)

	want := []string{"item_created", "item_updated", "comment_created", "item_starred", "item_moved", "item_archived"}
	var first, last int64
	for i, typ := range want {
		_, ev := s.change()
		if i == 0 {
			first = ev.ID
		}
		if ev.Type != typ || ev.ID <= last || ev.Seq != ev.ID || ev.WorkspaceID != wsInfo.ID || ev.ItemID != it.ID ||
			ev.Timestamp <= 0 || ev.Source != "cli" {
			t.Fatalf("event %d = %+v, want %s after id %d", i, ev, typ, last)
		}
		last = ev.ID
		switch typ {
		case "item_created":
			if ev.Title != "Live one" || ev.Actor != "user" || ev.ActorName != "Local User" || ev.Entity != "item" || ev.EntityID != "" {
				t.Errorf("item_created = %+v", ev)
			}
		case "comment_created":
			if ev.Actor != "agent" || ev.ActorName != "bot" || ev.Entity != "comment" || ev.EntityID == "" {
				t.Errorf("comment_created = %+v", ev)
			}
		}
	}
	// An event describes its item as it stands when sent: replayed now,
	// the create names the item's place after the move.
	r := h.openSSE("/api/v1/events?workspace=w", "Last-Event-ID", strconv.FormatInt(first-1, 10))
	r.connected()
	if _, ev := r.change(); ev.Type != "item_created" || ev.Ref != "IDEA-1" || ev.Collection != "ideas" {
		t.Errorf("replayed item_created = %+v", ev)
	}
}

func TestEventsResumeReplaysExactlyTheMissed(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	s := h.openSSE("/api/v1/events?workspace=w")
	s.connected()
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "seen"}, 200, nil)
	_, seen := s.change()
	s.close()
	s.ended()

	for i := range 50 {
		if i%2 == 0 {
			h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": fmt.Sprintf("missed %d", i)}, 200, nil)
		} else {
			h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": fmt.Sprint(i)}, 201, nil)
		}
	}
	for _, via := range []string{"header", "query"} {
		var r *sseConn
		if via == "header" {
			r = h.openSSE("/api/v1/events?workspace=w", "Last-Event-ID", strconv.FormatInt(seen.ID, 10))
		} else {
			r = h.openSSE("/api/v1/events?workspace=w&last_event_id=" + strconv.FormatInt(seen.ID, 10))
		}
		r.connected()
		for i := range 50 {
			_, ev := r.change()
			want := "item_updated"
			if i%2 == 1 {
				want = "comment_created"
			}
			if ev.ID != seen.ID+int64(i)+1 || ev.Type != want {
				t.Fatalf("%s resume, event %d = %d %s, want %d %s", via, i, ev.ID, ev.Type, seen.ID+int64(i)+1, want)
			}
		}
		r.close()
	}
	// Then live, with nothing repeated in between.
	r := h.openSSE("/api/v1/events?workspace=w", "Last-Event-ID", strconv.FormatInt(seen.ID+50, 10))
	r.connected()
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "live"}, 200, nil)
	if _, ev := r.change(); ev.ID != seen.ID+51 || ev.Title != "live" {
		t.Errorf("live after resume = %+v", ev)
	}
}

func TestEventsSyncRequired(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	head, err := views.Of(h.store).Head("w")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{strconv.FormatInt(head+100, 10), "not-a-number", "-1"} {
		s := h.openSSE("/api/v1/events?workspace=w", "Last-Event-ID", id)
		s.connected()
		f := s.next()
		var data map[string]string
		if f.event != "sync_required" || !f.hasID || f.id != "" || json.Unmarshal([]byte(f.data), &data) != nil || data["reason"] == "" {
			t.Fatalf("Last-Event-ID %s: frame %+v", id, f)
		}
		// The stream goes on from the head.
		h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "next " + id}, 200, nil)
		head++
		if _, ev := s.change(); ev.ID != head {
			t.Errorf("after sync_required: id %d, want %d", ev.ID, head)
		}
		s.close()
	}
	// At the head exactly: nothing to replay, no sync_required.
	s := h.openSSE("/api/v1/events?workspace=w", "Last-Event-ID", strconv.FormatInt(head, 10))
	s.connected()
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "at head"}, 200, nil)
	if _, ev := s.change(); ev.ID != head+1 {
		t.Errorf("resume at head: id %d", ev.ID)
	}
}

func TestEventsKeepalive(t *testing.T) {
	h := newHarness(t)
	h.srv.limits.SSEKeepalive = 50 * time.Millisecond
	s := h.openSSE("/api/v1/events?workspace=w")
	s.connected()
	for range 2 {
		if f := s.next(); f.comment != "keepalive" || f.event != "" {
			t.Fatalf("frame %+v, want a keepalive comment", f)
		}
	}
}

func TestEventsShutdown(t *testing.T) {
	h := newHarness(t)
	s := h.openSSE("/api/v1/events?workspace=w")
	all := h.openSSE("/api/v1/events/stream")
	s.connected()
	all.connected()
	h.srv.Close()
	for _, c := range []*sseConn{s, all} {
		if f := c.nextEvent(); f.event != "shutdown" || f.hasID {
			t.Errorf("frame %+v, want shutdown", f)
		}
		c.ended()
	}
}

func TestEventsWorkspaceDeletedEndsStream(t *testing.T) {
	h := newHarness(t)
	s := h.openSSE("/api/v1/events?workspace=w")
	s.connected()
	h.mustJSON("DELETE", "/api/v1/workspaces/w", nil, 204, nil)
	if f := s.nextEvent(); f.event != "workspace_deleted" || f.hasID {
		t.Errorf("frame %+v, want workspace_deleted", f)
	}
	s.ended()
}

func TestEventStreamAcrossWorkspaces(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Two", "slug": "w2"}, 201, nil)
	s := h.openSSE("/api/v1/events/stream")
	data := s.connected()
	if list, _ := data["workspaces"].([]any); len(list) != 2 || data["user_id"] != "local" {
		t.Fatalf("connected = %v", data)
	}
	h.task("in w")
	h.mustJSON("POST", "/api/v1/workspaces/w2/collections/tasks/items", map[string]any{"title": "in w2"}, 201, nil)
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "in w again"}, 200, nil)
	var evs []api.Event
	for range 3 {
		_, ev := s.change()
		evs = append(evs, ev)
	}
	if evs[0].Workspace != "w" || evs[1].Workspace != "w2" || evs[2].Workspace != "w" ||
		evs[1].ID != evs[0].ID+1 || evs[2].ID != evs[1].ID+1 || evs[0].WorkspaceID == evs[1].WorkspaceID ||
		evs[2].Seq != evs[0].Seq+1 || evs[1].Title != "in w2" || evs[1].Type != "item_created" {
		t.Fatalf("stream events = %+v", evs)
	}
	global, err := views.Of(h.store).GlobalHead()
	if err != nil || global != evs[2].ID {
		t.Fatalf("global head %d (%v), last event id %d", global, err, evs[2].ID)
	}
	s.close()

	r := h.openSSE("/api/v1/events/stream", "Last-Event-ID", strconv.FormatInt(evs[0].ID, 10))
	r.connected()
	for _, want := range evs[1:] {
		if _, ev := r.change(); ev.ID != want.ID || ev.Workspace != want.Workspace {
			t.Errorf("resumed %+v, want id %d in %s", ev, want.ID, want.Workspace)
		}
	}
	f := h.openSSE("/api/v1/events/stream", "Last-Event-ID", strconv.FormatInt(global+1, 10))
	f.connected()
	if fr := f.next(); fr.event != "sync_required" || !fr.hasID || fr.id != "" {
		t.Errorf("future global id: %+v", fr)
	}
}

func TestEventsLimitsAndRefusals(t *testing.T) {
	h := newHarness(t)
	h.srv.limits.SSEMaxPerWorkspace, h.srv.limits.SSEMaxTotal = 1, 2
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Two", "slug": "w2"}, 201, nil)
	h.wantError("GET", "/api/v1/events", nil, 400, "bad_request")
	h.wantError("GET", "/api/v1/events?workspace=nope", nil, 404, "not_found")
	h.token = "wrong"
	h.wantError("GET", "/api/v1/events/stream", nil, 401, "unauthorized")
	h.token = testToken

	first := h.openSSE("/api/v1/events?workspace=w")
	first.connected()
	refused := func(path string) {
		t.Helper()
		r := h.call("GET", path, nil)
		var env api.ErrorEnvelope
		if r.status != 429 || r.header.Get("Retry-After") != "5" || json.Unmarshal(r.body, &env) != nil || env.Error.Code != "sse_limit_exceeded" {
			t.Fatalf("GET %s: %d Retry-After %q %s", path, r.status, r.header.Get("Retry-After"), r.body)
		}
	}
	refused("/api/v1/events?workspace=w") // the workspace's one slot is taken
	second := h.openSSE("/api/v1/events?workspace=w2")
	second.connected()
	refused("/api/v1/events/stream") // both slots are taken
	first.close()
	first.ended()
	// The slot comes back once the server sees the client gone.
	deadline := time.Now().Add(sseWait)
	for {
		r := h.call("GET", "/api/v1/padd/status", nil) // any request: lets time pass
		_ = r
		h.srv.sse.mu.Lock()
		total := h.srv.sse.total
		h.srv.sse.mu.Unlock()
		if total == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d streams still counted after one left", total)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.openSSE("/api/v1/events?workspace=w").connected()
}

// stalledWriter is a client that stopped reading: every write blocks
// until the write deadline, then fails as the network would.
type stalledWriter struct {
	header   http.Header
	mu       sync.Mutex
	deadline time.Time
}

func (w *stalledWriter) Header() http.Header { return w.header }
func (w *stalledWriter) WriteHeader(int)     {}
func (w *stalledWriter) Flush()              {}

func (w *stalledWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.deadline = t
	w.mu.Unlock()
	return nil
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	d := w.deadline
	w.mu.Unlock()
	if d.IsZero() {
		d = time.Now().Add(time.Minute) // no deadline: stuck as long as the client is
	}
	time.Sleep(time.Until(d))
	return 0, os.ErrDeadlineExceeded
}

func TestEventsStalledClientIsReleased(t *testing.T) {
	h := newHarness(t)
	h.srv.limits.SSEWriteTimeout = 50 * time.Millisecond
	w := &stalledWriter{header: http.Header{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.srv.workspaceEvents(w, httptest.NewRequest("GET", "/api/v1/events?workspace=w", nil))
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a stream to a client that stopped reading is still running")
	}
	h.srv.sse.mu.Lock()
	defer h.srv.sse.mu.Unlock()
	if h.srv.sse.total != 0 || len(h.srv.sse.perWS) != 0 {
		t.Errorf("slots still held: total %d, per workspace %v", h.srv.sse.total, h.srv.sse.perWS)
	}
	if !w.deadline.IsZero() {
		t.Errorf("write deadline left set at %v for the connection's next request", w.deadline)
	}
}
