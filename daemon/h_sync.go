package daemon

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// padd's sync with remote Pad servers, on its own API (docs/SYNC.md):
// the routes ask the sync engine, which the daemon hands the server with
// SetSync. Without one every route answers 503 unavailable.

// SyncEngine is what the sync routes ask of the sync engine (syncer.Manager).
type SyncEngine interface {
	Status(ws string) ([]api.SyncStatus, error) // ws "": every linked workspace
	Clone(ctx context.Context, in api.SyncClone) (*api.SyncStatus, error)
	Link(ctx context.Context, in api.SyncLink) (*api.SyncStatus, error)
	Unlink(ws string) error
	Now(ws string) (*api.SyncStatus, error)
	Pause(ws string) (*api.SyncStatus, error)
	Resume(ws string) (*api.SyncStatus, error)
	Conflicts(ws string, all bool) ([]api.SyncConflict, error)
	Resolve(ctx context.Context, ws string, in api.SyncResolve) ([]api.SyncConflict, error)
	// Verify compares a linked workspace with its remote one until ctx
	// ends; progress (nil: none) hears how far it has come, from any
	// goroutine.
	Verify(ctx context.Context, ws string, progress func(done, total int)) (*api.SyncVerify, error)
	// Subscribe follows status changes and new conflicts; cancel ends it.
	Subscribe() (events <-chan api.SyncEvent, cancel func())
}

// SetSync gives the server its sync engine. Call it before the server
// serves: the routes read the field without a lock.
func (s *Server) SetSync(e SyncEngine) { s.sync = e }

// syncEventsPath is the sync stream's path (it stays open by design).
const syncEventsPath = "/api/v1/padd/sync/events"

// Bounds of a sync request's strings beyond model's limits.
const (
	maxSyncURL   = 2 << 10 // a server's base URL
	maxSyncToken = 4 << 10 // a remote token (Pad's are far shorter)
	maxSyncRef   = 200     // an item's ref, slug or id
)

// redactedToken stands for a token in anything padd logs or answers.
const redactedToken = "[token]"

func (s *Server) syncRoutes() {
	s.handle("GET /api/v1/padd/sync", s.syncStatuses)
	s.handle("GET "+syncEventsPath, s.syncEvents)
	s.handle("POST /api/v1/padd/sync/clone", s.syncClone)
	s.handle("POST /api/v1/padd/sync/link", s.syncLink)
	s.handle("GET /api/v1/padd/sync/{ws}", s.syncStatus)
	s.handle("DELETE /api/v1/padd/sync/{ws}", s.syncUnlink)
	s.handle("POST /api/v1/padd/sync/{ws}/now", s.syncAction((SyncEngine).Now))
	s.handle("POST /api/v1/padd/sync/{ws}/pause", s.syncAction((SyncEngine).Pause))
	s.handle("POST /api/v1/padd/sync/{ws}/resume", s.syncAction((SyncEngine).Resume))
	s.handle("GET /api/v1/padd/sync/{ws}/conflicts", s.syncConflicts)
	s.handle("POST /api/v1/padd/sync/{ws}/resolve", s.syncResolve)
	s.handle("GET /api/v1/padd/sync/{ws}/verify", s.syncVerify)
}

// engine is the sync engine, or the refusal of a padd that has none.
func (s *Server) engine() (SyncEngine, error) {
	if s.sync == nil {
		return nil, api.Errorf(api.CodeUnavailable,
			"sync with a Pad server is not available in this padd (it runs without its sync engine); `padctl daemon restart` starts a padd that has it").
			With("reason", "sync_unavailable")
	}
	return s.sync, nil
}

func (s *Server) syncStatuses(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	list, err := e.Status("")
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.SyncStatus{}
	}
	writeJSON(w, 200, api.SyncStatuses{Workspaces: list})
	return nil
}

// syncStatus answers one workspace's status; 404 when it is not linked.
func (s *Server) syncStatus(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	ws := r.PathValue("ws")
	list, err := e.Status(ws)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return notLinked(ws)
	}
	writeJSON(w, 200, list[0])
	return nil
}

// notLinked is the 404 of a workspace that is not linked to a remote.
func notLinked(ws string) error {
	return model.NotFound("workspace %s is not linked to a Pad server", model.Excerpt(ws)).With("scope", "sync_link")
}

func (s *Server) syncClone(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	var in api.SyncClone
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	in.URL, in.RemoteWorkspace, in.As = strings.TrimSpace(in.URL), strings.TrimSpace(in.RemoteWorkspace), strings.TrimSpace(in.As)
	if err := model.FirstError(checkSyncURL(in.URL, in.InsecureHTTP), checkSlug("remote_workspace", in.RemoteWorkspace, false),
		checkLocalSlug("as", in.As), s.checkSyncToken(in.Token)); err != nil {
		return err
	}
	defer redactPanic(in.Token)
	st, err := e.Clone(r.Context(), in)
	if err != nil {
		return redactError(err, in.Token)
	}
	writeJSON(w, http.StatusAccepted, st)
	return nil
}

func (s *Server) syncLink(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	var in api.SyncLink
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	in.Workspace, in.URL, in.RemoteWorkspace = strings.TrimSpace(in.Workspace), strings.TrimSpace(in.URL), strings.TrimSpace(in.RemoteWorkspace)
	if err := model.FirstError(checkSlug("workspace", in.Workspace, false), checkSyncURL(in.URL, in.InsecureHTTP),
		checkSlug("remote_workspace", in.RemoteWorkspace, false), s.checkSyncToken(in.Token)); err != nil {
		return err
	}
	defer redactPanic(in.Token)
	st, err := e.Link(r.Context(), in)
	if err != nil {
		return redactError(err, in.Token)
	}
	writeJSON(w, 200, st)
	return nil
}

func (s *Server) syncUnlink(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	if err := e.Unlink(r.PathValue("ws")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// syncAction answers now, pause and resume: one workspace's new status.
func (s *Server) syncAction(act func(SyncEngine, string) (*api.SyncStatus, error)) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := s.engine()
		if err != nil {
			return err
		}
		st, err := act(e, r.PathValue("ws"))
		if err != nil {
			return err
		}
		writeJSON(w, 200, st)
		return nil
	}
}

func (s *Server) syncConflicts(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	all := false
	if v := r.URL.Query().Get("all"); v != "" {
		if all, err = strconv.ParseBool(v); err != nil {
			return model.BadRequest("query parameter all must be true or false, got %q", model.Excerpt(v)).With("param", "all")
		}
	}
	list, err := e.Conflicts(r.PathValue("ws"), all)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.SyncConflict{}
	}
	writeJSON(w, 200, api.SyncConflicts{Conflicts: list})
	return nil
}

func (s *Server) syncResolve(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	var in api.SyncResolve
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := checkResolve(&in); err != nil {
		return err
	}
	settled, err := e.Resolve(r.Context(), r.PathValue("ws"), in)
	if err != nil {
		return err
	}
	if settled == nil {
		settled = []api.SyncConflict{}
	}
	writeJSON(w, 200, api.SyncConflicts{Conflicts: settled})
	return nil
}

// verifyProgressEvery is how often at most a followed verify says how
// far it has come.
const verifyProgressEvery = 250 * time.Millisecond

// syncVerify compares a workspace with its remote one (SyncEngine.Verify;
// it may read for minutes on a large workspace). A client that accepts
// text/event-stream follows it: verify_progress events while it reads,
// then one verify event with the answer, or an error event with the
// envelope; any other client gets the answer as JSON when it is done.
// The client leaving ends the reads.
func (s *Server) syncVerify(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	ws := r.PathValue("ws")
	if err := checkSlug("workspace", ws, false); err != nil {
		return err
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		out, err := e.Verify(r.Context(), ws, nil)
		if err != nil {
			return err
		}
		writeJSON(w, 200, out)
		return nil
	}
	// Refusals known before the reads start (not linked, no engine) are
	// answered as any request's.
	if _, err := e.Status(ws); err != nil {
		return err
	}
	release, ok := s.sse.admit(s.limits, "")
	if !ok {
		refuseStream(w)
		return nil
	}
	defer release()
	sw := s.openStream(w)
	defer sw.clearDeadline()
	var mu sync.Mutex
	var last time.Time
	out, err := e.Verify(r.Context(), ws, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done < total && time.Since(last) < verifyProgressEvery {
			return
		}
		last = time.Now()
		_ = sw.event(nil, api.EventVerifyProgress, api.SyncVerifyProgress{Done: done, Total: total})
	})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		if r.Context().Err() == nil {
			_ = sw.event(nil, "error", api.ErrorEnvelope{Error: wireError(r, err)})
		}
		return nil
	}
	// The answer goes as indented JSON, a data line per JSON line: an
	// item's whole content stays well under a client's line limit.
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	var frame bytes.Buffer
	frame.WriteString("event: " + api.EventVerify + "\n")
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		frame.WriteString("data: ")
		frame.Write(line)
		frame.WriteByte('\n')
	}
	frame.WriteByte('\n')
	_ = sw.write(frame.Bytes())
	return nil
}

// checkResolve refuses a resolve the engine cannot act on: no ref, a
// negative id, an unknown way to keep, a merged value missing or given
// with another way.
func checkResolve(in *api.SyncResolve) error {
	in.Ref, in.Keep = strings.TrimSpace(in.Ref), strings.TrimSpace(in.Keep)
	switch {
	case in.Ref == "":
		return model.BadRequest("ref is required: the item whose conflicts to settle").With("field", "ref")
	case len(in.Ref) > maxSyncRef:
		return model.BadRequest("ref is longer than %d bytes", maxSyncRef).With("field", "ref").With("limit_bytes", maxSyncRef)
	case in.ID < 0:
		return model.BadRequest("id must be a conflict's id (0 or absent: all of the item's)").With("field", "id")
	case in.Keep != api.KeepLocal && in.Keep != api.KeepRemote && in.Keep != api.KeepMerged:
		return model.BadRequest("keep must be %s, %s or %s, got %q", api.KeepLocal, api.KeepRemote, api.KeepMerged, model.Excerpt(in.Keep)).
			With("field", "keep").With("valid", []string{api.KeepLocal, api.KeepRemote, api.KeepMerged})
	}
	hasValue := len(in.Value) > 0 && string(in.Value) != "null"
	switch {
	case in.Keep == api.KeepMerged && !hasValue:
		return model.BadRequest("keep merged needs value: the merged text (title, content) or the part's JSON value").With("field", "value")
	case in.Keep != api.KeepMerged && hasValue:
		return model.BadRequest("value goes only with keep merged (keep %s takes a side as it is)", in.Keep).With("field", "value")
	case len(in.Value) > model.LimitContent.Max:
		return model.Invalid("value is longer than %d bytes", model.LimitContent.Max).With("field", "value").With("limit", model.LimitContent.Max)
	}
	if !hasValue {
		in.Value = nil
	}
	return nil
}

// checkSyncURL refuses a server URL padd must not send a token to:
// not http(s), no host, credentials, a query or fragment in it, or plain
// http to another machine without insecure. The message names the URL's
// host only, never the whole text (it may hold a secret).
func checkSyncURL(raw string, insecure bool) error {
	bad := func(format string, args ...any) *model.Error {
		return model.BadRequest(format, args...).With("field", "url")
	}
	if raw == "" {
		return bad("url is required: the Pad server's address, e.g. https://pad.example.com")
	}
	if len(raw) > maxSyncURL {
		return bad("url is longer than %d bytes", maxSyncURL).With("limit_bytes", maxSyncURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return bad("url is not a URL; give the Pad server's address, e.g. https://pad.example.com")
	case u.Scheme != "https" && u.Scheme != "http":
		return bad("url must start with https:// (or http:// to this machine)").With("reason", "scheme")
	case u.Host == "" || u.Hostname() == "":
		return bad("url has no host").With("reason", "host")
	case u.User != nil:
		return bad("url must not hold a user name or password; give the token with --token-file, --token-env or at the prompt").With("reason", "credentials")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return bad("url must not hold a query or fragment").With("reason", "query")
	case u.Scheme == "http" && !insecure && !loopbackName(u.Hostname()):
		return bad("plain http to %s would send the token in the clear; use https, or allow it with --insecure-http", u.Host).
			With("reason", "insecure_http")
	}
	return nil
}

// loopbackName reports localhost and loopback addresses.
func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkSlug refuses a workspace slug that is missing (unless optional),
// too long, or holds what no slug holds (a control character, '/', '?'
// or '#'). A space is allowed: Pad keeps an imported workspace's name as
// its slug.
func checkSlug(field, slug string, optional bool) error {
	switch {
	case slug == "" && optional:
		return nil
	case slug == "":
		return model.BadRequest("%s is required", field).With("field", field)
	case len(slug) > model.LimitSlug.Max:
		return model.Invalid("%s is longer than %d characters", field, model.LimitSlug.Max).With("field", field).With("limit", model.LimitSlug.Max)
	case strings.ContainsFunc(slug, func(r rune) bool { return r < ' ' || r == 0x7f || r == '/' || r == '?' || r == '#' }):
		return model.BadRequest("%s %q is not a workspace slug", field, model.Excerpt(slug)).With("field", field)
	}
	return nil
}

// checkLocalSlug refuses a new local workspace's slug that is not in
// padd's canonical form (lowercase letters, digits, single hyphens).
func checkLocalSlug(field, slug string) error {
	if err := checkSlug(field, slug, true); err != nil || slug == "" {
		return err
	}
	if c := model.CanonicalSlug(slug); c != slug {
		e := model.BadRequest("%s %q is not a workspace slug: lowercase letters, digits and single hyphens", field, model.Excerpt(slug)).With("field", field)
		if c != "" {
			e = e.With("suggestion", c)
		}
		return e
	}
	return nil
}

// checkSyncToken refuses a token that cannot be one, without echoing it.
// An empty token is allowed: the link's saved token is used, and the
// engine refuses when there is none. padd's own token is refused before
// it leaves the machine: it is what `padctl env` exports as PAD_TOKEN,
// and a server has no use for it.
func (s *Server) checkSyncToken(token string) error {
	switch {
	case token == "":
		return nil
	case subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) == 1:
		return model.BadRequest("token is this padd's own (the PAD_TOKEN `padctl env` exports), not one the Pad server issued; it was not sent").
			With("field", "token").With("reason", "local_token")
	case len(token) > maxSyncToken:
		return model.BadRequest("token is longer than %d bytes", maxSyncToken).With("field", "token").With("limit_bytes", maxSyncToken)
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return model.BadRequest("token holds a space or a control character (a stray line break from a file?)").With("field", "token")
	}
	return nil
}

// redactError is err with every copy of token replaced, so that neither
// the answer nor the log of an uncoded error can carry it.
func redactError(err error, token string) error {
	if token == "" || err == nil || !strings.Contains(fmt.Sprint(err), token) && !detailsHold(err, token) {
		return err
	}
	red := func(s string) string { return strings.ReplaceAll(s, token, redactedToken) }
	if e, ok := model.AsError(err); ok {
		out := &model.Error{Code: e.Code, Message: red(e.Message), Details: redactDetails(e.Details, red)}
		return out
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return &api.Error{Code: ae.Code, Message: red(ae.Message), Details: redactDetails(ae.Details, red), Status: ae.Status}
	}
	return errors.New(red(err.Error()))
}

// detailsHold reports whether a coded error's details mention token.
func detailsHold(err error, token string) bool {
	var d map[string]any
	if e, ok := model.AsError(err); ok {
		d = e.Details
	} else if ae := (*api.Error)(nil); errors.As(err, &ae) {
		d = ae.Details
	}
	if len(d) == 0 {
		return false
	}
	b, _ := json.Marshal(d)
	return strings.Contains(string(b), token)
}

// redactDetails is d with token gone from every value: strings are
// redacted, anything else that mentions it is replaced by its redacted
// JSON text.
func redactDetails(d map[string]any, red func(string) string) map[string]any {
	if d == nil {
		return nil
	}
	out := maps.Clone(d)
	for k, v := range out {
		if s, ok := v.(string); ok {
			out[k] = red(s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			delete(out, k)
			continue
		}
		if r := red(string(b)); r != string(b) {
			out[k] = r
		}
	}
	return out
}

// redactPanic, deferred, passes a panic on with token taken out of its
// value, so that the server's panic log cannot carry it. (The stack
// trace shows a string argument as a pointer and length, not its text.)
func redactPanic(token string) {
	p := recover()
	if p == nil {
		return
	}
	if token == "" {
		panic(p)
	}
	panic(strings.ReplaceAll(fmt.Sprint(p), token, redactedToken))
}

// syncEvents streams the sync engine's events: "connected", then one
// sync_status per linked workspace, then each status change and new
// conflict as it happens, keepalives while idle, until the client
// leaves, padd shuts down or the engine ends the subscription. The
// events carry no id: a client that reconnects gets every status anew.
func (s *Server) syncEvents(w http.ResponseWriter, r *http.Request) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	release, ok := s.sse.admit(s.limits, "")
	if !ok {
		refuseStream(w)
		return nil
	}
	defer release()
	// Subscribe before reading the statuses: a change after this point
	// is heard, one before it is in what Status answers.
	events, cancel := e.Subscribe()
	defer cancel()
	statuses, err := e.Status("")
	if err != nil {
		return err
	}
	sw := s.openStream(w)
	defer sw.clearDeadline()
	if sw.event(nil, "connected", map[string]int{"workspaces": len(statuses)}) != nil {
		return nil
	}
	for i := range statuses {
		if sw.event(nil, api.EventSyncStatus, &statuses[i]) != nil {
			return nil
		}
	}
	relayEvents(s, r, sw, events, func(ev api.SyncEvent) error {
		switch {
		case ev.Name == api.EventSyncStatus && ev.Status != nil:
			return sw.event(nil, ev.Name, ev.Status)
		case ev.Name == api.EventSyncConflict && ev.Conflict != nil:
			return sw.event(nil, ev.Name, ev.Conflict)
		}
		return nil
	})
	return nil
}
