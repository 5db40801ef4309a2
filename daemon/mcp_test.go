package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
)

// lineSessions stands in for padd's MCP server (package mcpstdio, which
// the daemon does not link): for each line the relay sends it lists the
// workspace's items through the in-process client and answers with the
// count. A line that says "hold" first calls hold, which lets a test
// keep a call running for as long as it needs. It reports each session
// it is handed.
func lineSessions(seen chan<- api.MCPSession, hold func()) MCPServe {
	return func(ctx context.Context, conn io.ReadWriter, c *api.Client, s api.MCPSession, _ *slog.Logger) error {
		seen <- s
		r := bufio.NewReader(conn)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return nil
			}
			if strings.HasPrefix(line, "hold") {
				hold()
			}
			var items []api.Item
			resp, err := c.Do(ctx, "GET", "/workspaces/w/items", nil, nil, &items)
			if err != nil {
				fmt.Fprintf(conn, "error %v\n", err)
				continue
			}
			fmt.Fprintf(conn, "%s %d items, padd %s\n", strings.TrimSpace(line), len(items), resp.Header.Get(api.VersionHeader))
		}
	}
}

func (h *harness) mcpClient() *api.Client { return api.NewClient(h.ts.URL, h.token) }

// A relayed session: the upgrade carries where the agent runs, and the
// session reaches the API in process, through the same guards.
func TestMCPSessionRelayed(t *testing.T) {
	h := newHarness(t)
	seen := make(chan api.MCPSession, 4)
	h.srv.mcpServe = lineSessions(seen, nil)
	h.task("one")
	h.task("two")
	want := api.MCPSession{Dir: "/home/ana/my project/日本\n", Workspace: "w", Worker: "wk_test"}
	conn, err := h.mcpClient().DialMCP(context.Background(), want)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Version != api.Version {
		t.Errorf("the upgrade answered version %q", conn.Version)
	}
	if got := <-seen; got != want {
		t.Errorf("padd was handed %+v, want %+v", got, want)
	}
	var st api.DaemonStatus
	h.mustJSON("GET", "/api/v1/padd/status", nil, 200, &st)
	if st.MCPSessions != 1 {
		t.Errorf("status counts %d MCP sessions, want 1", st.MCPSessions)
	}
	fmt.Fprintln(conn, "first")
	fmt.Fprintln(conn, "second")
	for _, w := range []string{"first 2 items, padd " + api.Version, "second 2 items, padd " + api.Version} {
		line, err := conn.R.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != w {
			t.Errorf("answer %q (%v), want %q", line, err, w)
		}
	}
	// The agent is done: padd ends the session.
	_ = conn.CloseWrite()
	if _, err := conn.R.ReadString('\n'); err != io.EOF {
		t.Errorf("after the relay's end, read %v, want EOF", err)
	}
	h.mustJSON("GET", "/api/v1/padd/status", nil, 200, &st)
	if st.MCPSessions != 0 {
		t.Errorf("status counts %d MCP sessions after the end, want 0", st.MCPSessions)
	}
}

// What is not a relayed session is refused in Pad's envelope: no token,
// no upgrade, or a padd that serves none (which relays take for an older
// padd, and serve the agent themselves).
func TestMCPSessionRefusals(t *testing.T) {
	h := newHarness(t)
	path := "/api/v1" + api.MCPPath
	h.wantError("GET", path, nil, 404, "not_found", "Upgrade", api.MCPUpgrade, "Connection", "Upgrade")
	if _, err := h.mcpClient().DialMCP(context.Background(), api.MCPSession{}); !api.IsNotFound(err) {
		t.Errorf("dial a padd without sessions: %v, want not_found", err)
	}
	h.srv.mcpServe = lineSessions(make(chan api.MCPSession, 1), nil)
	h.wantError("GET", path, nil, http.StatusUpgradeRequired, "upgrade_required")
	noToken := api.NewClient(h.ts.URL, "wrong")
	if _, err := noToken.DialMCP(context.Background(), api.MCPSession{}); !api.IsUnauthorized(err) {
		t.Errorf("dial with a wrong token: %v, want unauthorized", err)
	}
	h.wantError("GET", path, nil, 403, "forbidden", "Upgrade", api.MCPUpgrade, "Origin", "https://evil.example")
}

// At shutdown a session answers the call it is running, then ends; no
// new session is taken.
func TestMCPSessionsDrain(t *testing.T) {
	h := newHarness(t)
	seen := make(chan api.MCPSession, 4)
	inside, release := make(chan struct{}), make(chan struct{})
	h.srv.mcpServe = lineSessions(seen, func() { close(inside); <-release })
	conn, err := h.mcpClient().DialMCP(context.Background(), api.MCPSession{Worker: "wk_a"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	testwait.Recv(t, "the session", seen)
	fmt.Fprintln(conn, "hold")
	testwait.Recv(t, "the session to be inside the call", inside)
	ctx, drained := testwait.Context(t), make(chan struct{})
	go func() { h.srv.mcp.drain(ctx); close(drained) }()
	testwait.Until(t, "the drain to begin", func() bool {
		h.srv.mcp.mu.Lock()
		defer h.srv.mcp.mu.Unlock()
		return h.srv.mcp.closing
	})
	close(release) // the call ends after the drain began
	testwait.Recv(t, "the drain to end", drained)
	if line, err := conn.R.ReadString('\n'); err != nil || !strings.HasPrefix(line, "hold 0 items") {
		t.Errorf("the call running at shutdown answered %q (%v)", line, err)
	}
	if _, err := conn.R.ReadString('\n'); err != io.EOF {
		t.Errorf("after the drain, read %v, want EOF", err)
	}
	if c, err := h.mcpClient().DialMCP(context.Background(), api.MCPSession{}); err == nil {
		c.Close()
		t.Error("a session was taken after the drain began")
	}
}
