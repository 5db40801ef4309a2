package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// A relayed MCP session: `padd mcp-serve` hands its agent's stdio to the
// running padd over one loopback connection, which padd serves in its
// own process. The connection starts as GET MCPPath with Upgrade:
// MCPUpgrade and the usual token; after padd's 101 it carries the MCP
// messages, one JSON-RPC message per line, both ways.
const (
	MCPPath    = "/padd/mcp"
	MCPUpgrade = "padd-mcp"
)

// MCPSession is what padd cannot see from its own process about the
// agent it serves: where the agent runs and what it was told.
type MCPSession struct {
	Dir       string // the agent's working directory, where .pad.toml is looked for
	Workspace string // PAD_WORKSPACE in the agent's environment
	Worker    string // the session's worker id (X-Pad-Worker), kept across reconnections
}

const (
	hdrMCPDir       = "X-Padd-Dir"
	hdrMCPWorkspace = "X-Padd-Workspace"
	hdrWorker       = "X-Pad-Worker"
)

// Header encodes s for the upgrade request. A path may hold bytes a
// header value may not, so values are escaped.
func (s MCPSession) Header() http.Header {
	h := http.Header{}
	h.Set(hdrMCPDir, url.PathEscape(s.Dir))
	h.Set(hdrMCPWorkspace, url.PathEscape(s.Workspace))
	h.Set(hdrWorker, s.Worker)
	return h
}

// ParseMCPSession reads what Header wrote.
func ParseMCPSession(h http.Header) (MCPSession, error) {
	dir, err := url.PathUnescape(h.Get(hdrMCPDir))
	if err != nil {
		return MCPSession{}, fmt.Errorf("the %s header is not escaped as a path: %w", hdrMCPDir, err)
	}
	ws, err := url.PathUnescape(h.Get(hdrMCPWorkspace))
	if err != nil {
		return MCPSession{}, fmt.Errorf("the %s header is not escaped as a path: %w", hdrMCPWorkspace, err)
	}
	return MCPSession{Dir: dir, Workspace: ws, Worker: h.Get(hdrWorker)}, nil
}

// MCPConn is a relayed session's connection to padd.
type MCPConn struct {
	net.Conn
	// R reads padd's messages: it holds what came with the 101.
	R *bufio.Reader
	// Version is padd's version.
	Version string
}

// CloseWrite tells padd the agent has no more messages; padd answers
// the ones it has, then closes.
func (c *MCPConn) CloseWrite() error {
	if tc, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return tc.CloseWrite()
	}
	return c.Conn.Close()
}

// DialMCP opens a relayed MCP session with padd. A padd from before
// relayed sessions answers with not_found (IsNotFound).
func (c *Client) DialMCP(ctx context.Context, s MCPSession) (*MCPConn, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("padd's address %q is not a URL", c.BaseURL)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	// The handshake is bounded; the session after it is not.
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Scheme: "http", Host: u.Host, Path: "/api/v1" + MCPPath},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: s.Header(), Host: u.Host}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", MCPUpgrade)
	c.setHeaders(req.Header)
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, &TransportError{Err: err}
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, &TransportError{Err: err}
	}
	c.checkVersion(resp.Header.Get(VersionHeader))
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, decodeError(resp.StatusCode, data)
	}
	if !strings.EqualFold(resp.Header.Get("Upgrade"), MCPUpgrade) {
		conn.Close()
		return nil, fmt.Errorf("padd switched to %q, not %s", resp.Header.Get("Upgrade"), MCPUpgrade)
	}
	_ = conn.SetDeadline(time.Time{})
	return &MCPConn{Conn: conn, R: br, Version: resp.Header.Get(VersionHeader)}, nil
}
