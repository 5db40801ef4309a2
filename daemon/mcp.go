package daemon

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// MCPServe serves one relayed MCP session (api.MCPPath) on conn until
// conn's read side ends: padd's MCP server in padd's own process. client
// reaches this padd's API without a socket; log is padd's. padd's main
// sets it, so that the daemon package does not link the MCP server.
type MCPServe func(ctx context.Context, conn io.ReadWriter, client *api.Client, s api.MCPSession, log *slog.Logger) error

// mcpSessions are the relayed sessions being served, so that a shutdown
// can let each finish the calls it has.
type mcpSessions struct {
	mu      sync.Mutex
	conns   map[net.Conn]bool
	closing bool // drain has begun: no new session is served
	wg      sync.WaitGroup
}

// mcpToolSurface is Pad's GET /api/v1/mcp/tool-surface: every MCP tool,
// action and input schema padd's catalog holds.
func (s *Server) mcpToolSurface(w http.ResponseWriter, r *http.Request) error {
	if s.toolSurface == nil {
		return model.NotFound("this padd serves no MCP catalog").With("scope", "route")
	}
	body, err := s.toolSurface()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}

// mcpSession upgrades the request to a relayed MCP session and serves it
// on the handler's goroutine until the relay or padd ends it.
func (s *Server) mcpSession(w http.ResponseWriter, r *http.Request) error {
	if s.mcpServe == nil {
		return model.NotFound("this padd serves no relayed MCP sessions; `padctl mcp serve` serves the agent itself").With("scope", "route")
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), api.MCPUpgrade) {
		w.Header().Set("Upgrade", api.MCPUpgrade)
		return api.Errorf(api.CodeUpgradeRequired,
			"this route carries an MCP session: send Connection: Upgrade and Upgrade: %s (`padd mcp-serve` does)", api.MCPUpgrade)
	}
	sess, err := api.ParseMCPSession(r.Header)
	if err != nil {
		return model.BadRequest("%v", err).With("reason", "header")
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return api.Errorf(api.CodeServerError, "cannot take over the connection for an MCP session: %v", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Time{}) // the header timeout no longer applies
	if !s.mcp.add(conn) {
		return nil // padd is stopping: the relay finds it gone, and starts it anew
	}
	defer s.mcp.remove(conn)
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + api.MCPUpgrade +
		"\r\n" + api.VersionHeader + ": " + api.Version + "\r\n\r\n")
	if err := rw.Flush(); err != nil {
		return nil
	}
	client := &api.Client{BaseURL: "http://127.0.0.1", Token: s.token, HTTP: &http.Client{Transport: localTransport{s}}}
	s.log.Debug("MCP session relayed", "dir", sess.Dir, "worker", sess.Worker)
	err = s.mcpServe(context.WithoutCancel(r.Context()), struct {
		io.Reader
		io.Writer
	}{rw.Reader, conn}, client, sess, s.log.With("mcp_dir", sess.Dir))
	if err != nil {
		s.log.Warn("relayed MCP session ended with an error", "err", err, "dir", sess.Dir)
	}
	return nil
}

func (m *mcpSessions) add(c net.Conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing {
		return false
	}
	if m.conns == nil {
		m.conns = map[net.Conn]bool{}
	}
	m.conns[c] = true
	m.wg.Add(1)
	return true
}

func (m *mcpSessions) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.conns)
}

func (m *mcpSessions) remove(c net.Conn) {
	m.mu.Lock()
	delete(m.conns, c)
	m.mu.Unlock()
	m.wg.Done()
}

// drain stops every session reading: each answers the calls it has read,
// then ends, and its relay reconnects on the agent's next message. A
// session still running at ctx's end is cut off.
func (m *mcpSessions) drain(ctx context.Context) {
	m.mu.Lock()
	m.closing = true
	for c := range m.conns {
		if tc, ok := c.(interface{ CloseRead() error }); ok {
			_ = tc.CloseRead()
		} else {
			_ = c.Close()
		}
	}
	m.mu.Unlock()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		m.mu.Lock()
		for c := range m.conns {
			_ = c.Close()
		}
		m.mu.Unlock()
		<-done
	}
}

// localTransport answers a relayed session's API requests by calling the
// server's handler in process: the same guards and routes as a request
// over loopback, without a socket or HTTP's text on either side.
type localTransport struct{ s *Server }

func (t localTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	in := req.Clone(req.Context())
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := &recorder{header: http.Header{}}
	t.s.ServeHTTP(rec, in)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	resp := &http.Response{Status: http.StatusText(rec.status), StatusCode: rec.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rec.header, Body: io.NopCloser(&rec.body), ContentLength: int64(rec.body.Len()), Request: req}
	if rec.value != nil {
		// JSON text out and back in was a sizeable part of padd's CPU
		// under an agents' load (docs/PERFORMANCE.md, "Why the code is as it is").
		resp.Body, resp.ContentLength = &api.Answer{V: rec.value}, -1
	}
	return resp, nil
}

// recorder is the http.ResponseWriter of an in-process request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	value  any // a successful answer's value, handed over as it is (writeJSON)
}

// recorderOf finds the recorder under w's wrappers, or nil when w answers
// over a connection.
func recorderOf(w http.ResponseWriter) *recorder {
	for {
		switch x := w.(type) {
		case *recorder:
			return x
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
