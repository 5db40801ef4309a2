package daemon

import (
	"context"
	"crypto/subtle"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Server is padd's loopback HTTP API: Pad's /api/v1 over the store.
type Server struct {
	store *storage.Store
	views *views.Views // the store's reads
	index *searchindex.Index
	token string
	log   *slog.Logger
	mux   *http.ServeMux
	// done is closed when the daemon shuts down, so long-lived streams
	// can say goodbye.
	done chan struct{}
	now  func() time.Time
	// stop asks the daemon to shut down (POST /api/v1/padd/shutdown).
	stop    func()
	started time.Time
	sse     sseState // event-stream settings and admission (h_sse.go)
	// limits bound a request body's read, so a client that trickles one
	// (slowloris) cannot hold a connection open for ever, and the streams.
	limits Limits
	// mcpServe serves relayed MCP sessions (nil: none); mcp tracks them.
	mcpServe MCPServe
	mcp      mcpSessions
	// toolSurface is the MCP catalog's dump (nil: the route is 404).
	toolSurface func() ([]byte, error)
	// sync is the sync engine the /padd/sync routes ask (nil: they
	// answer that sync is not available; see SetSync).
	sync SyncEngine
	// files serves /padd/mirrors and /padd/config (h_mirror.go).
	files filesSide
	att   attachState // attachments' blob store and upload cap (h_attachment.go)
	// imports are the keyed imports of the last hour (import_keys.go).
	imports importKeys
	// pushKeys are the idempotency keys of the last day's pushes (h_push.go).
	pushKeys pushKeys

	// opening is the start's open of the index, when Run built the
	// server: searchIndex waits for it (run_index.go).
	opening *indexOpening
}

// Request limits beyond the body's (MaxBody): a longer request target or
// more header bytes are refused in Pad's envelope. (Past net/http's own
// 1 MiB header cap, net/http answers a plain 431 before padd sees it.)
const (
	MaxURI         = 16 << 10
	MaxHeaderBytes = 64 << 10
)

// NewServer builds the API over an open store. token is required on every
// route but health.
func NewServer(store *storage.Store, index *searchindex.Index, token string, log *slog.Logger) *Server {
	s := &Server{store: store, views: views.Of(store), index: index, token: token, log: log, mux: http.NewServeMux(), done: make(chan struct{}),
		now: time.Now, started: time.Now().UTC(), limits: DefaultLimits()}
	s.routes()
	return s
}

// Close tells long-lived handlers (event streams) to finish.
func (s *Server) Close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// handle registers a route; every pattern is "METHOD /api/v1/...".
func (s *Server) handle(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if ws := r.PathValue("ws"); ws != "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
			w = &seqWriter{ResponseWriter: w, store: s.store, ws: ws}
		}
		if err := h(w, r); err != nil {
			writeError(w, r, err)
		}
	})
}

// seqWriter adds api.SeqHeader to a successful write's answer.
type seqWriter struct {
	http.ResponseWriter
	store  *storage.Store
	ws     string
	header bool // WriteHeader was called
}

func (w *seqWriter) WriteHeader(code int) {
	if !w.header && code < 300 {
		if seq, ok := w.store.WrittenSeq(w.ws); ok {
			w.Header().Set(api.SeqHeader, strconv.FormatInt(seq, 10))
		}
	}
	w.header = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *seqWriter) Write(b []byte) (int, error) {
	if !w.header {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *seqWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// streams are the routes that stay open by design.
var streams = map[string]bool{"/api/v1/events": true, "/api/v1/events/stream": true, "/api/v1" + api.MCPPath: true,
	syncEventsPath: true, mirrorEventsPath: true}

// public routes answer without a token. /server/capabilities is public
// on Pad too: a client probes it (and health) before it holds a token
// it may send, and the sync client's probe sends none.
var public = map[string]bool{
	"/api/v1/health":              true,
	"/api/v1/health/live":         true,
	"/api/v1/health/ready":        true,
	"/api/v1/server/capabilities": true,
}

// ServeHTTP applies the loopback guards, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(api.VersionHeader, api.Version)
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > s.limits.SlowAfter && !streams[r.URL.Path] {
			s.log.Warn("slow request: padd took this long to answer it", "method", r.Method, "path", r.URL.Path, "took", d.Round(time.Millisecond))
		}
		if p := recover(); p != nil {
			s.log.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			writeError(w, r, api.Errorf(api.CodeServerError, "padd hit an internal error answering %s %s; retry, and report it with `padctl daemon logs` if it persists", r.Method, r.URL.Path))
		}
	}()
	if !loopbackHost(r.Host) {
		writeError(w, r, api.Errorf(api.CodeForbidden, "padd answers only on loopback; Host %q refused (DNS-rebinding protection)", r.Host).With("reason", "host"))
		return
	}
	if r.Header.Get("Origin") != "" {
		writeError(w, r, api.Errorf(api.CodeForbidden, "requests from web pages are refused: padd's API is for local programs, not browsers").With("reason", "origin"))
		return
	}
	if len(r.RequestURI) > MaxURI {
		writeError(w, r, api.Errorf(api.CodeTooLarge,
			"the request target is longer than %d bytes; send long values in a body", MaxURI).With("reason", "uri").With("limit_bytes", MaxURI).
			WithStatus(http.StatusRequestURITooLong))
		return
	}
	if n := headerBytes(r.Header); n > MaxHeaderBytes {
		writeError(w, r, api.Errorf(api.CodeTooLarge,
			"the request headers are %d bytes, more than padd's %d", n, MaxHeaderBytes).With("reason", "headers").With("limit_bytes", MaxHeaderBytes).
			WithStatus(http.StatusRequestHeaderFieldsTooLarge))
		return
	}
	if p := strings.TrimSuffix(r.URL.Path, "/"); p != r.URL.Path && p != "" {
		r.URL.Path = p // Pad's router takes both; never redirect (a redirected POST loses its body)
	}
	if !public[r.URL.Path] && !s.authorized(r) {
		writeError(w, r, api.Errorf(api.CodeUnauthorized, "Authentication required: send Authorization: Bearer <token> (the token is in daemon.json in padd's data directory; padctl reads it for you)"))
		return
	}
	if why := pathProblem(r.URL.Path); why != "" {
		// The mux would answer with a plain redirect to the cleaned path
		// (and a redirected POST loses its body); no ref or slug ever
		// needs one of these.
		writeError(w, r, model.BadRequest("the request path %s; refs and slugs never need that", why).With("reason", "path"))
		return
	}
	for _, h := range []string{"X-Pad-Agent", "X-Padd-Source", "X-Pad-Worker"} {
		// net/http refuses control characters in header values, not
		// bytes that are not UTF-8; these end up in the change log.
		if v := r.Header.Get(h); !utf8.ValidString(v) {
			writeError(w, r, model.BadRequest("the %s header is not valid UTF-8", h).With("reason", "header").With("header", h))
			return
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(s.limits.BodyTimeout)) == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, timeout: s.limits.BodyTimeout}
		}
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.noRoute(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") { // the scheme is case-insensitive (RFC 9110 §11.1)
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.token)) == 1
}

// noRoute answers an unknown path (404) or a known path with the wrong
// method (405) in Pad's envelope.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{"GET", "POST", "PATCH", "PUT", "DELETE"} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(context.Background())
		probe.Method = m
		if _, p := s.mux.Handler(probe); p != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		// RFC 9110 §15.5.6: a 405 names the methods the path takes.
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, r, api.Errorf(api.CodeMethodNotAllowed, "%s is not allowed on %s (allowed: %s)",
			r.Method, r.URL.Path, strings.Join(allow, ", ")))
		return
	}
	writeError(w, r, model.NotFound("no route %s %s", r.Method, r.URL.Path).With("scope", "route"))
}

// headerBytes counts a request's header bytes as they came on the wire.
func headerBytes(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 4 // ": " and CRLF
		}
	}
	return n
}

// pathProblem says what is wrong with a (decoded) request path, or "":
// invalid UTF-8, a control character (NUL included), a "." or ".."
// segment, or an empty one (//).
func pathProblem(p string) string {
	if p == "/" {
		return ""
	}
	if !utf8.ValidString(p) {
		return "is not valid UTF-8"
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return "holds a control character"
		}
	}
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		switch seg {
		case ".", "..":
			return "has a . or .. segment"
		case "":
			return "has an empty segment (//)"
		}
	}
	return ""
}

// deadlineBody is a request body read under a deadline (the server's
// limits.BodyTimeout). Once the whole body is in, the deadline is lifted:
// net/http goes on reading the connection in the background while the
// handler runs, and must not take a stale deadline for the client going
// away. A body that failed (timed out) keeps it, so net/http's drain of
// the unread rest fails at once and the refusal goes out, instead of
// waiting on the trickle.
type deadlineBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	lifted  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// bodyTimeout is how long the server waited for r's body.
func bodyTimeout(r *http.Request) time.Duration {
	if b, ok := r.Body.(*deadlineBody); ok {
		return b.timeout
	}
	return DefaultLimits().BodyTimeout
}

// loopbackHost accepts 127.0.0.1, ::1 and localhost (with any port).
func loopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// actor reads who is calling: X-Pad-Agent names an agent, otherwise the
// local user; X-Padd-Source names the door (cli by default, as Pad
// treats bearer callers).
func actor(r *http.Request) model.Actor {
	src := r.Header.Get("X-Padd-Source")
	if src == "" {
		src = model.SourceCLI
	}
	a := model.UserActor(src)
	if name := strings.TrimSpace(r.Header.Get("X-Pad-Agent")); name != "" {
		a = model.Actor{Kind: model.ActorAgent, Name: name, Source: src}
	}
	a.WorkerID = r.Header.Get("X-Pad-Worker")
	return a
}

func (s *Server) routes() {
	s.handle("GET /api/v1/health", s.health)
	s.handle("GET /api/v1/health/live", s.health)
	s.handle("GET /api/v1/health/ready", s.health)
	s.handle("GET /api/v1/server/capabilities", s.capabilities)
	s.handle("GET /api/v1/auth/session", s.session)
	s.handle("GET /api/v1/auth/me", s.me)
	s.handle("GET /api/v1/padd/status", s.status)
	s.handle("POST /api/v1/padd/shutdown", s.shutdown)
	s.handle("GET /api/v1"+api.MCPPath, s.mcpSession)
	s.handle("GET /api/v1/mcp/tool-surface", s.mcpToolSurface)

	s.workspaceRoutes()
	s.collectionRoutes()
	s.savedViewRoutes() // saved views of a collection (h_savedviews.go)
	s.itemRoutes()
	s.itemCopyRoutes()
	s.searchRoutes()
	s.commentRoutes()
	s.reactionRoutes()
	s.linkRoutes()
	s.roleRoutes()
	s.roleBoardRoutes()
	s.itemSortOrderRoutes()
	s.starRoutes()
	s.historyRoutes()
	s.timelineRoutes()
	s.activityRoutes()
	s.childrenRoutes()
	s.collectionProgressRoutes()
	s.fieldUsageRoutes()
	s.graphRoutes()
	s.reportLayoutRoutes()
	s.tagRoutes()
	s.feedRoutes()
	s.sseRoutes()
	s.watchRoutes() // item watches and the session registry (h_watches.go)
	s.pushRoutes()  // push to the user's armed sessions (h_push.go)
	s.knowledgeRoutes()
	s.attachmentRoutes()
	s.projectRoutes() // leases, reminders, project views (h_project.go)
	s.syncRoutes()    // padd's sync with Pad servers (h_sync.go)
	s.exportRoutes()  // workspace export and import (h_export.go)
	s.mirrorRoutes()  // mirror folders and padd.toml (h_mirror.go)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, 200, api.Health{Status: "ok", Version: api.Version})
	return nil
}

// Capabilities padd implements, by Pad's names. expected_seq (PATCH
// refuses a stale expected_seq with 409 update_conflict) and
// changes_paged (/changes takes limit and cursor and says has_more) are
// the sync client's names for what padd honours and the Pad of August
// 2026 does not (docs/SYNC.md): a client that sees neither falls back.
// export_comment_parents: the workspace export names each reply's parent.
// attachment_attach: POST .../attachments/{id}/attach (ATT-03).
// item_sort_order_bulk: PUT .../items/sort-order (ITM-10).
var capabilities = []string{"attachment_attach", "changes_paged", "expected_seq", "export_comment_parents", "idempotency_keys", "item_field_append", "item_patch", "item_sort_order_bulk",
	"item_scoped_comment_writes", "library_activate", "search_collection_resolution"}

func (s *Server) capabilities(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, 200, api.Capabilities{CollectionResolution: true, Capabilities: capabilities, Version: api.Version})
	return nil
}

// The one local user, already signed in.
var localUser = map[string]any{"id": "local", "email": "", "name": model.LocalUserName, "username": "local", "role": "admin"}

func (s *Server) session(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, 200, map[string]any{"authenticated": true, "setup_required": false, "auth_method": "local_token",
		"setup_method": "", "email_configured": false, "cloud_mode": false, "version": api.Version, "user": localUser})
	return nil
}

func (s *Server) me(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, 200, localUser)
	return nil
}

// status reports the daemon's own state for `padctl daemon status`.
func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	size, err := s.store.Size()
	if err != nil {
		return err
	}
	wss, err := s.views.ListWorkspaces()
	if err != nil {
		return err
	}
	st := api.DaemonStatus{Version: api.Version, PID: os.Getpid(), StartedAt: s.started,
		UptimeSeconds: int64(time.Since(s.started).Seconds()), DBPath: s.store.Path(), DBBytes: size,
		Workspaces: len(wss), MCPSessions: s.mcp.count(), Memory: s.memoryUse()}
	for _, im := range s.store.Imports() {
		st.Imports = append(st.Imports, api.ImportProgress{Name: im.Name, Items: im.Items, ItemsWritten: im.ItemsWritten, StartedAt: im.Started})
	}
	writeJSON(w, 200, st)
	return nil
}

// shutdown stops the daemon gracefully after answering.
func (s *Server) shutdown(w http.ResponseWriter, r *http.Request) error {
	if s.stop == nil {
		return api.Errorf(api.CodeServerError, "this padd cannot be stopped over the API; send it SIGTERM").WithStatus(http.StatusServiceUnavailable)
	}
	writeJSON(w, 202, api.Status{Status: "stopping"})
	go s.stop()
	return nil
}
