package daemon

import (
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Push (EVT-03), Pad's: POST .../items/{ref}/push sends an instruction,
// bound to an item, to the user's own armed sessions (the /events/stream
// connections opened with ?armed=true, or one of them named by
// target_session_id) as a "notification" event of kind push, which Pad's
// `pad watch --stream --for-session` prints with its authority envelope.
//
// A push is a live delivery, kept nowhere: a session that is not
// connected and armed at that moment never hears it, and a resumed
// stream does not replay it. padd hands the push to each armed session's
// stream and waits for the stream to say it wrote it, so
// delivered_sessions counts sessions that had it (Pad's counts the
// sessions it expects to have it). No armed session is Pad's answer too:
// 200, delivered_sessions 0. A push handed to sessions none of which
// confirmed it in time (a stream that failed mid-write, or stalled) may
// or may not have reached one: 502 push_unconfirmed, never resent.
//
// An idempotency key (Idempotency-Key or op_key) is remembered in memory
// for a day, as a push is: the same push again answers the first answer
// and sends nothing (Idempotent-Replayed: true); again while the first
// is being delivered, 409 idempotency_in_flight; again after a 502,
// 409 push_outcome_unknown (sending it would risk a second delivery);
// another push under the key, 422 idempotency_key_reused. A push refused
// before its delivery (bad input, no such item) does not take its key. A restart forgets the keys, and with them every stream
// a push could have reached.

// pushKeyTTL is how long a push's idempotency key is remembered, and
// maxPushKeys how many are (the oldest settled one gives way).
const (
	pushKeyTTL  = 24 * time.Hour
	maxPushKeys = 1000
)

// pushQueue is how many pushes a session's stream may have waiting while
// it writes something else; past that the session does not get the push.
const pushQueue = 16

// liveSession is one open all-workspaces stream: what its client
// announced, the pushes handed to it, and gone, closed when it ended.
type liveSession struct {
	info   api.LiveSession
	pushes chan *pushDelivery
	gone   chan struct{}
}

// pushDelivery is a push handed to one session's stream; the stream
// answers on done (capacity 1) whether it wrote it.
type pushDelivery struct {
	note api.WatchNotification
	done chan error
}

func (s *Server) pushRoutes() {
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/push", s.push)
}

func (s *Server) push(w http.ResponseWriter, r *http.Request) error {
	var in api.PushRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	// One line: the monitor prints one line per event. Bad input is
	// Pad's 400 bad_request (not padd's validation_error for a long
	// string): Pad's CLI reads bad_request as "nothing was sent" and
	// any other code as "it may have been".
	message := strings.Join(strings.Fields(in.Message), " ")
	if message == "" {
		return model.BadRequest("message must not be empty").With("field", "message")
	}
	if n := utf8.RuneCountInString(message); n > api.MaxPushMessage {
		return model.BadRequest("message must be %d characters or fewer after white space is collapsed (got %d)", api.MaxPushMessage, n).
			With("field", "message").With("max", api.MaxPushMessage)
	}
	target := strings.TrimSpace(in.TargetSessionID)
	if n := utf8.RuneCountInString(target); n > api.MaxPushTargetSession {
		return model.BadRequest("target_session_id must be %d characters or fewer (got %d)", api.MaxPushTargetSession, n).
			With("field", "target_session_id").With("max", api.MaxPushTargetSession)
	}
	ws, err := s.views.GetWorkspace(r.PathValue("ws"))
	if err != nil {
		return err
	}
	it, err := s.views.GetItem(ws.ID, r.PathValue("ref"))
	if err != nil {
		return err
	}
	if it.DeletedAt != nil {
		return model.Errorf(model.CodeArchived, "Item %s is archived; restore it first (item restore) to push it", it.Ref).With("ref", it.Ref)
	}
	select {
	case <-s.done:
		return api.Errorf(api.CodeUnavailable, "Push is not available right now: padd is shutting down; nothing was sent")
	default:
	}

	claim, prior, err := s.pushKeys.claim(ws.ID, key, strings.Join([]string{it.ID, message, target}, "\x00"), s.now())
	if err != nil {
		return err
	}
	if prior != nil {
		w.Header().Set("Idempotent-Replayed", "true")
		writeJSON(w, http.StatusOK, prior)
		return nil
	}
	note := api.WatchNotification{Ts: s.now().UnixMilli(), Workspace: ws.Slug, ItemRef: it.Ref, Kind: api.PushKind,
		Actor: model.LocalUserName, Summary: message, PushID: uuid.NewString()}
	delivered, unconfirmed := s.deliverPush(note, target)
	if delivered == 0 && unconfirmed > 0 {
		claim.settle(nil)
		return api.Errorf(api.CodePushUnconfirmed, "The push could not be confirmed: it may or may not have reached your agent session. "+
			"Check the session before sending it again; sending twice delivers twice.").With("ref", it.Ref).With("push_id", note.PushID)
	}
	res := &api.PushResult{Ref: it.Ref, Workspace: ws.Slug, Pushed: true, Message: message, DeliveredSessions: &delivered, PushID: note.PushID}
	claim.settle(res)
	writeJSON(w, http.StatusOK, res)
	return nil
}

// deliverPush hands note to each armed session (only target, when one
// is named) and waits for their streams: delivered counts the streams
// that wrote it, unconfirmed those that failed while writing it or did
// not say in time. A session whose queue is full, or that ended before
// taking the push, never had it.
func (s *Server) deliverPush(note api.WatchNotification, target string) (delivered, unconfirmed int) {
	s.sse.mu.Lock()
	var to []*liveSession
	for _, ls := range s.sse.sessions {
		if ls.info.Armed && (target == "" || ls.info.ID == target) {
			to = append(to, ls)
		}
	}
	s.sse.mu.Unlock()

	type handed struct {
		ls *liveSession
		d  *pushDelivery
	}
	var pending []handed
	for _, ls := range to {
		d := &pushDelivery{note: note, done: make(chan error, 1)}
		select {
		case ls.pushes <- d:
			pending = append(pending, handed{ls, d})
		default:
		}
	}
	// A stream takes a push between two writes, each bounded by the
	// write timeout: twice that is long enough for one that is alive.
	deadline := time.NewTimer(2 * s.limits.SSEWriteTimeout)
	defer deadline.Stop()
	count := func(err error) {
		if err == nil {
			delivered++
		} else {
			unconfirmed++
		}
	}
	expired := false
	for _, p := range pending {
		if expired {
			select {
			case err := <-p.d.done:
				count(err)
			default:
				unconfirmed++
			}
			continue
		}
		select {
		case err := <-p.d.done:
			count(err)
		case <-p.ls.gone:
			// The stream ends after it answers a push it took.
			select {
			case err := <-p.d.done:
				count(err)
			default:
			}
		case <-deadline.C:
			expired = true
			select {
			case err := <-p.d.done:
				count(err)
			default:
				unconfirmed++
			}
		}
	}
	return delivered, unconfirmed
}

// pushKeys are the idempotency keys of the last day's pushes.
type pushKeys struct {
	mu sync.Mutex
	m  map[string]*pushKey
}

// pushKey is one key's push: its request, and its answer once settled
// (nil for a push whose delivery was never confirmed).
type pushKey struct {
	request string
	settled bool
	res     *api.PushResult
	at      time.Time
}

// pushClaim is a push's hold on its key; nil when it named none.
type pushClaim struct {
	keys *pushKeys
	id   string
}

// claim takes key (in workspace wsID) for request, or answers the push
// to replay, or refuses: the key's push is still being delivered, or
// was never confirmed, or was another request.
func (k *pushKeys) claim(wsID, key, request string, now time.Time) (*pushClaim, *api.PushResult, error) {
	if key == "" {
		return nil, nil, nil
	}
	id := wsID + "\x00" + key
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]*pushKey{}
	}
	if p := k.m[id]; p != nil && p.settled && now.Sub(p.at) > pushKeyTTL {
		delete(k.m, id)
	}
	switch p := k.m[id]; {
	case p == nil:
	case p.request != request:
		return nil, nil, api.Errorf(api.CodeIdempotencyKeyReused,
			"idempotency key %q was already used for a different request; use a fresh key for a new request", key).With("key", key)
	case !p.settled:
		return nil, nil, api.Errorf(api.CodeIdempotencyInFlight, "a push with idempotency key %q is still being delivered", key).With("key", key)
	case p.res == nil:
		return nil, nil, api.Errorf(api.CodePushOutcomeUnknown,
			"the push with idempotency key %q was never confirmed and may have reached your agent session; it is not sent again. "+
				"Check the session, then push with a fresh key if it did not arrive", key).With("key", key)
	default:
		return nil, p.res, nil
	}
	if len(k.m) >= maxPushKeys {
		k.evict(now)
	}
	k.m[id] = &pushKey{request: request, at: now}
	return &pushClaim{keys: k, id: id}, nil, nil
}

// evict drops the expired keys, else the oldest settled one. Callers
// hold mu.
func (k *pushKeys) evict(now time.Time) {
	oldest := ""
	for id, p := range k.m {
		switch {
		case !p.settled:
		case now.Sub(p.at) > pushKeyTTL:
			delete(k.m, id)
		case oldest == "" || p.at.Before(k.m[oldest].at):
			oldest = id
		}
	}
	if len(k.m) >= maxPushKeys && oldest != "" {
		delete(k.m, oldest)
	}
}

// settle records the push's answer (nil: never confirmed).
func (c *pushClaim) settle(res *api.PushResult) {
	if c == nil {
		return
	}
	c.keys.mu.Lock()
	defer c.keys.mu.Unlock()
	if p := c.keys.m[c.id]; p != nil {
		p.settled, p.res = true, res
	}
}
