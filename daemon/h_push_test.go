package daemon

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
)

// pushed reads the next notification, wanting it a push.
func (c *sseConn) pushed() api.WatchNotification {
	c.t.Helper()
	_, n := c.notification()
	if n.Kind != api.PushKind || n.PushID == "" {
		c.t.Fatalf("notification = %+v, want a push", n)
	}
	return n
}

func TestPush(t *testing.T) {
	h := newHarness(t)
	h.task("Push me")
	armed := h.openSSE("/api/v1/events/stream?armed=true", "X-Pad-Session-Label", "docapp")
	armed.connected()
	unarmed := h.openSSE("/api/v1/events/stream")
	unarmed.connected()
	push := wsPath("/items/TASK-1/push")

	// The message, white space collapsed, reaches the armed session only.
	var res api.PushResult
	h.mustJSON("POST", push, map[string]any{"message": "  look at\n\tthis  "}, 200, &res, "Idempotency-Key", "k1")
	if res.Ref != "TASK-1" || res.Workspace != "w" || !res.Pushed || res.Message != "look at this" ||
		res.DeliveredSessions == nil || *res.DeliveredSessions != 1 || res.PushID == "" {
		t.Fatalf("push = %+v", res)
	}
	n := armed.pushed()
	if n.PushID != res.PushID || n.Summary != "look at this" || n.ItemRef != "TASK-1" || n.Workspace != "w" ||
		n.Actor != "Local User" || n.Ts <= 0 {
		t.Fatalf("push notification = %+v, answer %+v", n, res)
	}

	// The same push again is answered, not sent again; another under its
	// key is refused.
	var again api.PushResult
	r := h.mustJSON("POST", push, map[string]any{"message": "look at this", "op_key": "k1"}, 200, &again)
	if r.header.Get("Idempotent-Replayed") != "true" || again.PushID != res.PushID || *again.DeliveredSessions != 1 {
		t.Fatalf("replay = %+v (%v)", again, r.header)
	}
	h.wantError("POST", push, map[string]any{"message": "something else"}, 422, api.CodeIdempotencyKeyReused, "Idempotency-Key", "k1")
	h.wantError("POST", push, map[string]any{"message": "x", "op_key": "k2"}, 400, api.CodeBadRequest, "Idempotency-Key", "k3")

	// Narrowed to one session: the armed one by its id; an id of no
	// session (or of an unarmed one) reaches nobody.
	var ss api.Sessions
	h.mustJSON("GET", "/api/v1/sessions", nil, 200, &ss)
	armedID, unarmedID := "", ""
	for _, s := range ss.Sessions {
		if s.Armed {
			armedID = s.ID
		} else {
			unarmedID = s.ID
		}
	}
	h.mustJSON("POST", push, map[string]any{"message": "only you", "target_session_id": " " + armedID + " "}, 200, &res)
	if *res.DeliveredSessions != 1 || armed.pushed().Summary != "only you" {
		t.Fatalf("targeted push = %+v", res)
	}
	for _, id := range []string{unarmedID, "no-such-session"} {
		h.mustJSON("POST", push, map[string]any{"message": "to " + id, "target_session_id": id}, 200, &res)
		if *res.DeliveredSessions != 0 {
			t.Fatalf("push to %q = %+v", id, res)
		}
	}
	// Neither stream heard anything more: the next event of each is the
	// sentinel's.
	h.task("Sentinel")
	sentinel := ""
	for sentinel == "" {
		if f := armed.nextEvent(); f.event == "notification" {
			t.Fatalf("armed session heard %+v", f)
		} else if f.event == "item_created" {
			sentinel = f.id
		}
	}
	if notes := unarmed.notesUntil("TASK-2"); len(notes) != 0 {
		t.Fatalf("unarmed session heard %+v", notes)
	}
	// A push carries the id of the last change sent, so a resume from it
	// replays nothing twice.
	h.mustJSON("POST", push, map[string]any{"message": "after the sentinel"}, 200, &res)
	if n := armed.pushed(); n.Summary != "after the sentinel" || strconv.FormatInt(n.ID, 10) != sentinel {
		t.Fatalf("push after the sentinel = %+v, want id %s", n, sentinel)
	}

	// No armed session: Pad's answer, 200 with none delivered.
	armed.close()
	testwait.Until(t, "the armed session to leave the registry", func() bool {
		var ss api.Sessions
		h.mustJSON("GET", "/api/v1/sessions", nil, 200, &ss)
		return ss.Count == 1
	})
	h.mustJSON("POST", push, map[string]any{"message": "anyone?"}, 200, &res)
	if !res.Pushed || res.DeliveredSessions == nil || *res.DeliveredSessions != 0 {
		t.Fatalf("push with no armed session = %+v", res)
	}

	// Refusals, each from the one error table; none takes its key.
	for _, body := range []any{
		map[string]any{"message": ""},
		map[string]any{"message": " \n\t "},
		map[string]any{"message": strings.Repeat("é", api.MaxPushMessage+1)},
		map[string]any{"message": "ok", "target_session_id": strings.Repeat("s", api.MaxPushTargetSession+1)},
		map[string]any{"message": "ok", "op_key": strings.Repeat("k", 256)},
		`{"message": 7}`,
		`{"message": "ok"`,
	} {
		h.wantError("POST", push, body, 400, api.CodeBadRequest, "Idempotency-Key", "refused")
	}
	h.wantError("POST", wsPath("/items/TASK-9/push"), map[string]any{"message": "ok"}, 404, api.CodeNotFound, "Idempotency-Key", "refused")
	h.wantError("POST", "/api/v1/workspaces/nope/items/TASK-1/push", map[string]any{"message": "ok"}, 404, api.CodeNotFound)
	h.mustJSON("DELETE", wsPath("/items/TASK-2"), nil, 204, nil)
	h.wantError("POST", wsPath("/items/TASK-2/push"), map[string]any{"message": "ok"}, 409, api.CodeArchived, "Idempotency-Key", "refused")
	// The longest message, after collapse, is taken.
	long := strings.Repeat("é", api.MaxPushMessage-2) + "\n\n x"
	h.mustJSON("POST", push, map[string]any{"message": long}, 200, &res, "Idempotency-Key", "refused")
	if len([]rune(res.Message)) != api.MaxPushMessage {
		t.Fatalf("longest message came back %d characters", len([]rune(res.Message)))
	}

	// padd shutting down: nothing is sent.
	h.srv.Close()
	h.wantError("POST", push, map[string]any{"message": "too late"}, 503, api.CodeUnavailable)
}

// A push handed to a session whose stream fails while writing it may
// have reached it: 502 push_unconfirmed, and its key answers 409
// push_outcome_unknown rather than sending it again.
func TestPushUnconfirmed(t *testing.T) {
	h := newHarness(t)
	h.task("Push me")
	ls, unregister := h.srv.sse.register(api.LiveSession{ID: "failing", Armed: true})
	defer unregister()
	go func() {
		for d := range ls.pushes {
			d.done <- errors.New("write: broken pipe")
		}
	}()
	defer close(ls.pushes)
	push := wsPath("/items/TASK-1/push")
	e := h.wantError("POST", push, map[string]any{"message": "did it land?"}, 502, api.CodePushUnconfirmed, "Idempotency-Key", "u1")
	if e.Details["push_id"] == "" || e.Details["ref"] != "TASK-1" {
		t.Fatalf("push_unconfirmed = %+v", e)
	}
	h.wantError("POST", push, map[string]any{"message": "did it land?"}, 409, api.CodePushOutcomeUnknown, "Idempotency-Key", "u1")
	h.wantError("POST", push, map[string]any{"message": "another"}, 422, api.CodeIdempotencyKeyReused, "Idempotency-Key", "u1")
}

// deliverPush counts a session that wrote the push, one that failed or
// never said, and none for one whose queue is full or that ended.
func TestDeliverPushOutcomes(t *testing.T) {
	s := &Server{limits: Limits{SSEWriteTimeout: time.Millisecond}}
	s.sse = sseState{sessions: map[string]*liveSession{}}
	answer := func(id string, err error) {
		ls, _ := s.sse.register(api.LiveSession{ID: id, Armed: true})
		t.Cleanup(func() { close(ls.pushes) })
		go func() {
			for d := range ls.pushes {
				d.done <- err
			}
		}()
	}
	answer("ok", nil)
	answer("failed", errors.New("write failed"))
	silent, _ := s.sse.register(api.LiveSession{ID: "silent", Armed: true})
	full, _ := s.sse.register(api.LiveSession{ID: "full", Armed: true})
	for range cap(full.pushes) {
		full.pushes <- &pushDelivery{done: make(chan error, 1)}
	}
	_, leave := s.sse.register(api.LiveSession{ID: "gone", Armed: true})
	leave()
	s.sse.register(api.LiveSession{ID: "unarmed"})

	delivered, unconfirmed := s.deliverPush(api.WatchNotification{Kind: api.PushKind}, "")
	if delivered != 1 || unconfirmed != 2 {
		t.Fatalf("delivered %d, unconfirmed %d; want 1 and 2 (the failed and the silent)", delivered, unconfirmed)
	}
	if len(silent.pushes) != 1 {
		t.Fatalf("the silent session holds %d pushes", len(silent.pushes))
	}
	if d, u := s.deliverPush(api.WatchNotification{Kind: api.PushKind}, "ok"); d != 1 || u != 0 {
		t.Fatalf("targeted: delivered %d, unconfirmed %d", d, u)
	}
	if d, u := s.deliverPush(api.WatchNotification{Kind: api.PushKind}, "unarmed"); d != 0 || u != 0 {
		t.Fatalf("to an unarmed session: delivered %d, unconfirmed %d", d, u)
	}
}
