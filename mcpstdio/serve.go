// Package mcpstdio is padd's MCP server: Pad's tool catalog, resources
// and prompts, answered by calling padd's API.
//
// An agent's client runs `padctl mcp serve`, which runs `padd mcp-serve`:
// a relay (relay.go) that holds no data and no lock. It finds padd
// through daemon.json (starting it when none answers) and hands the
// session to it; padd serves every agent's session in its own process
// (Relayed), calling its API without a socket. Any number of agents
// can each run their own relay side by side, and a client that leaves
// one running blocks nothing. When padd cannot take the session, the
// relay serves it itself (Serve), over loopback HTTP. Stdout carries the
// protocol and nothing else; logs go to Options.Log (stderr by default).
package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/padtoml"
)

// Options configure Serve. The zero value serves the real environment.
type Options struct {
	// Connect reaches padd. nil means launch.Connect with Start: padd is
	// found through daemon.json in PAD_HOME (or the OS data directory)
	// and started when none answers.
	Connect func(ctx context.Context) (*api.Client, error)
	// Dir is where .pad.toml is looked for when the client names no
	// roots. "" means the process's working directory.
	Dir string
	// Getenv reads the environment (PAD_WORKSPACE). nil means os.Getenv.
	Getenv func(string) string
	// FindPadToml finds the .pad.toml linking a directory to a workspace.
	// nil means padtoml.Find, which reads the files on every call.
	FindPadToml func(dir string) (*padtoml.File, error)
	// Log receives the server's log lines. nil means os.Stderr. Never
	// stdout: that is the protocol stream.
	Log io.Writer
	// Logger, when set, is used instead of Log (padd's own log, for the
	// sessions it serves).
	Logger *slog.Logger
	// Worker is the session's worker id (X-Pad-Worker). "" makes a new
	// one; a relay passes its own, so that the leases its agent holds
	// stay its own across a restart of padd.
	Worker string
}

// Server is one stdio MCP server: the catalog's handlers over a padd
// connection, plus this session's state (the default workspace).
type Server struct {
	opts Options
	mcp  *server.MCPServer
	log  *slog.Logger

	// worker is this session's worker id (X-Pad-Worker on every request):
	// a lease this session claims is held under it, and next/ready leave
	// out work other sessions hold, even sessions of the same client.
	worker string

	mu        sync.Mutex
	base      *api.Client // the connection to padd, made on first use
	sessionWS string      // set by pad_set_workspace
	roots     *rootsState // workspace found through the client's roots

	mismatch sync.Once

	// written is the highest api.SeqHeader padd answered this session's
	// writes with: its searches wait for the index to hold those writes,
	// not every write other agents made meanwhile.
	written atomic.Int64
}

// Serve runs the MCP server on stdin/stdout until stdin ends (nil) or ctx
// is cancelled. Each Serve is its own session: padd runs one for every
// agent relayed to it (relay.go).
func Serve(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) error {
	return NewServer(opts).serveLines(ctx, stdin, stdout)
}

// NewServer builds the MCP server and registers the catalog, resources
// and prompts. Serve uses it; tests may drive its MCPServer directly.
func NewServer(opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{opts: opts, worker: opts.Worker, log: newLogger(opts)}
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
		s.logClient(req.Params.ClientInfo, req.Params.ProtocolVersion)
	})
	hooks.AddAfterDiscover(func(ctx context.Context, _ any, req *mcpgo.DiscoverRequest, _ *mcpgo.DiscoverResult) {
		if req.Params.Meta != nil {
			if ci := req.Params.Meta.ClientInfo(); ci != nil {
				s.logClient(*ci, req.Params.Meta.ProtocolVersion())
			}
		}
	})
	s.mcp = server.NewMCPServer(ServerName, api.Version,
		server.WithInstructions(instructions),
		server.WithExperimental(experimental()),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		// Roots are asked of the client with roots/list. Protocol
		// 2026-07-28 replaced server-initiated requests with multi
		// round-trip results, but mcp-go's roots round trip breaks
		// go-sdk v1.8.0 clients (docs/notes/mcp-libs.md §4); over stdio
		// the direct request works in both eras.
		server.WithLegacyServerInitiatedRequests(),
		// The catalog, the prompts and the resource templates are compiled
		// in: they cannot change while this process runs, so a 2026-07-28
		// client may keep them (SEP-2549) instead of asking again.
		server.WithMethodCacheHints(mcpgo.MethodToolsList, catalogTTL.Milliseconds(), mcpgo.CacheScopePrivate),
		server.WithMethodCacheHints(mcpgo.MethodPromptsList, catalogTTL.Milliseconds(), mcpgo.CacheScopePrivate),
		server.WithMethodCacheHints(mcpgo.MethodResourcesTemplatesList, catalogTTL.Milliseconds(), mcpgo.CacheScopePrivate),
	)
	for _, t := range catalog {
		s.mcp.AddTool(mcpTool(t), s.toolHandler(t))
	}
	s.mcp.AddNotificationHandler(mcpgo.MethodNotificationRootsListChanged, func(context.Context, mcpgo.JSONRPCNotification) {
		s.forgetRoots()
	})
	s.addResources()
	s.addPrompts()
	return s
}

// withDefaults fills in the real environment where o leaves it out.
func (o Options) withDefaults() Options {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.FindPadToml == nil {
		o.FindPadToml = padtoml.Find
	}
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	if o.Worker == "" {
		o.Worker = api.NewWorkerID()
	}
	if o.Connect == nil {
		o.Connect = func(ctx context.Context) (*api.Client, error) {
			c, _, err := launch.Connect(ctx, launch.ConnectOptions{Start: true})
			return c, err
		}
	}
	return o
}

func newLogger(o Options) *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	w := o.Log
	if w == nil {
		w = os.Stderr
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// MCPServer is the underlying mcp-go server.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

func (s *Server) logClient(ci mcpgo.Implementation, protocol string) {
	s.log.Info("mcp client initialized", "client_name", ci.Name, "client_version", ci.Version,
		"protocol_version", protocol, "transport", "stdio")
}

// catalogTTL is how long a client may keep the lists that never change
// while the server runs.
const catalogTTL = time.Hour

// unnamedAgent names agent writes of a client that declared no name, as
// Pad labels them: an agent write is never recorded as the human.
const unnamedAgent = "mcp-client"

// clientName is clientInfo.name of the request: from the request's own
// _meta under 2026-07-28, else what the client said at initialize.
func clientName(ctx context.Context) string {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil && info.ClientInfo.Name != "" {
		return info.ClientInfo.Name
	}
	if sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := sess.GetClientInfo().Name; n != "" {
			return n
		}
	}
	return ""
}

// protocolVersion is the MCP protocol version of the request.
func protocolVersion(ctx context.Context) string {
	return server.RequestProtocolVersion(ctx)
}

// paddConn is padd's API as one request of one client sees it: every
// call names the agent (X-Pad-Agent = clientInfo.name) and the door
// (X-Padd-Source: mcp), so padd records agent writes by the client.
type paddConn struct {
	s     *Server
	agent string
}

func (s *Server) conn(ctx context.Context) *paddConn {
	name := clientName(ctx)
	if name == "" {
		name = unnamedAgent
	}
	return &paddConn{s: s, agent: name}
}

// baseClient connects to padd once and keeps the connection (its HTTP
// client pools keep-alive connections across calls).
func (s *Server) baseClient(ctx context.Context) (*api.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base != nil {
		return s.base, nil
	}
	c, err := s.opts.Connect(ctx)
	if err != nil {
		return nil, unreachable(err)
	}
	if c.HTTP != nil && c.HTTP.Transport != nil {
		// A transport of the caller's (padd's in-process one) is kept.
		s.base = &api.Client{BaseURL: c.BaseURL, Token: c.Token, HTTP: c.HTTP}
		return s.base, nil
	}
	// Tool calls run five at a time and a get reads three routes at once;
	// the default transport keeps only two idle connections per host, so
	// the rest would be dialled and closed on every call.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	hc := &http.Client{Transport: tr, Timeout: paddTimeout}
	if c.HTTP != nil && c.HTTP.Timeout > 0 {
		hc.Timeout = c.HTTP.Timeout
	}
	s.base = &api.Client{BaseURL: c.BaseURL, Token: c.Token, HTTP: hc}
	return s.base, nil
}

// unreachable is the refusal of a call when padd cannot be reached or
// started.
func unreachable(err error) *toolError {
	return refuse(api.CodeServerError, "padd could not be reached or started; `padctl daemon status` and `padctl daemon logs` say why",
		"cannot reach padd: %v", err).with("reason", "padd_unreachable")
}

// paddTimeout bounds one request to padd (as padctl's own client does).
const paddTimeout = 30 * time.Second

// slowPadd is how long a request to padd may take before it is logged:
// padd answers in milliseconds, so seconds explain an agent's timeout.
const slowPadd = 2 * time.Second

// dropBase forgets a connection that stopped answering, so the next call
// finds padd again (it may have restarted on another port).
func (s *Server) dropBase(c *api.Client) {
	s.mu.Lock()
	if s.base == c {
		s.base = nil
	}
	s.mu.Unlock()
}

func (s *Server) versionMismatch(server, client string) {
	s.mismatch.Do(func() {
		s.log.Warn("padd and padctl versions differ; `padctl daemon restart` runs the padd that matches", "padd", server, "padctl", client)
	})
}

// do sends one request to padd as this client. A refused connection means
// padd went away before the request was sent, so it reconnects (starting
// padd if needed) and sends it once more; any other failure is returned.
func (p *paddConn) do(ctx context.Context, method, path string, q url.Values, body, out any) (*api.Response, error) {
	return p.doHeaders(ctx, method, path, q, nil, body, out)
}

func (p *paddConn) doHeaders(ctx context.Context, method, path string, q url.Values, hdr http.Header, body, out any) (*api.Response, error) {
	for attempt := 0; ; attempt++ {
		base, err := p.s.baseClient(ctx)
		if err != nil {
			return nil, err
		}
		c := &api.Client{BaseURL: base.BaseURL, Token: base.Token, HTTP: base.HTTP,
			Agent: p.agent, Source: "mcp", Worker: p.s.worker, OnVersionMismatch: p.s.versionMismatch}
		start := time.Now()
		resp, err := c.DoHeaders(ctx, method, path, q, hdr, body, out)
		if d := time.Since(start); d > slowPadd {
			p.s.log.Warn("padd was slow to answer; `padctl daemon logs` may say why", "method", method, "path", path,
				"took", d.Round(time.Millisecond), "err", err)
		}
		if err == nil && resp != nil {
			p.s.noteWritten(resp.Header.Get(api.SeqHeader))
		}
		if err == nil || attempt > 0 {
			return resp, err
		}
		if isDialError(err) || api.IsUnauthorized(err) {
			// padd restarted: it has a new port or token.
			p.s.dropBase(base)
			continue
		}
		return resp, err
	}
}

// noteWritten raises written to the seq in a write's api.SeqHeader.
func (s *Server) noteWritten(header string) {
	seq, err := strconv.ParseInt(header, 10, 64)
	if header == "" || err != nil {
		return
	}
	for {
		cur := s.written.Load()
		if cur >= seq || s.written.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// call is one validated tools/call on its way to a handler.
type call struct {
	ctx context.Context
	s   *Server
	a   args
	p   *paddConn
	ws  string // the resolved workspace, for actions that work in one
}

// result is a handler's answer: value as JSON in the first text block,
// then notes as further text blocks (a truncated list says so there).
type result struct {
	value any
	notes []string
}

type handler func(c *call) (*result, error)

// handlers maps "tool.action" (or the bare tool name of
// pad_set_workspace) to its implementation. Each dispatch file adds its
// own in init, so the map and the not-wired table (notwired.go) are the
// two places TestEveryActionWiredOrDeclared reads.
var handlers = map[string]handler{}

func register(m map[string]handler) {
	for k, h := range m {
		if _, dup := handlers[k]; dup {
			panic("mcpstdio: two handlers for " + k)
		}
		handlers[k] = h
	}
}

func actionKey(t *toolDef, a *actionDef) string {
	if a.Name == "" {
		return t.Name
	}
	return t.Name + "." + a.Name
}

func (s *Server) toolHandler(t *toolDef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		raw := req.Params.RawArguments
		if len(raw) == 0 && req.Params.Arguments != nil {
			// In-process callers hand a map over; the wire always has bytes.
			raw, _ = json.Marshal(req.Params.Arguments)
		}
		act, a, terr := validate(t, raw)
		if terr != nil {
			return errorResult(terr), nil
		}
		key := actionKey(t, act)
		if nw, ok := notWired[key]; ok {
			return errorResult(nw.refusal(key)), nil
		}
		h, ok := handlers[key]
		if !ok {
			return errorResult(refuse(api.CodeServerError, "this is a bug in padctl; tell the user",
				"no handler for %s", key)), nil
		}
		c := &call{ctx: ctx, s: s, a: a, p: s.conn(ctx)}
		var from string
		if !act.NoWorkspace {
			ws, src, err := s.resolveWorkspace(ctx, c.p, a.str("workspace"))
			if err != nil {
				return errorResult(fromAPI(err)), nil
			}
			c.ws, from = ws, src
		}
		res, err := h(c)
		if err != nil {
			return errorResult(explainWorkspace(fromAPI(err), c.ws, from)), nil
		}
		return res.mcp(), nil
	}
}

// mcp renders a result: compact JSON (agents pay per token), HTML left
// unescaped.
func (r *result) mcp() *mcpgo.CallToolResult {
	out := &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(jsonText(r.value))}}
	for _, n := range r.notes {
		out.Content = append(out.Content, mcpgo.NewTextContent(n))
	}
	return out
}

// errorResult is a refusal as a tool error the model can read: isError
// with {code, message, hint, details}. Never a JSON-RPC error, which
// clients show the user instead of the model.
func errorResult(e *toolError) *mcpgo.CallToolResult {
	return &mcpgo.CallToolResult{IsError: true, Content: []mcpgo.Content{mcpgo.NewTextContent(jsonText(e))}}
}

func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf(`{"code":"server_error","message":"cannot encode the answer: %v","hint":"this is a bug in padctl; tell the user"}`, err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
