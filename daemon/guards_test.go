package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testbin"
)

// A body that trickles in is refused at the body timeout with 408, at
// once: net/http's drain of the unread rest must not wait on the trickle.
func TestSlowBodyRefused(t *testing.T) {
	h := newHarness(t)
	h.srv.limits.BodyTimeout = 300 * time.Millisecond
	addr := strings.TrimPrefix(h.ts.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/workspaces/w/collections/tasks/items HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{\"title\":\"", addr, h.token)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := conn.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickling body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	if resp.StatusCode != 408 || json.Unmarshal(b, &env) != nil || env.Error == nil || env.Error.Code != "request_timeout" {
		t.Fatalf("answer %d %s, want 408 request_timeout", resp.StatusCode, b)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("refused after %s with a 300ms body timeout", took)
	}
	// The store took nothing from it.
	h.mustJSON("GET", wsPath("/items"), nil, 200, nil)
}

func TestPathProblem(t *testing.T) {
	for p, bad := range map[string]bool{
		"/": false, "/api/v1/workspaces": false, "/api/v1/workspaces/w/items/TASK-1": false, "/api/v1/workspaces/w/items/é": false,
		"/api/v1/workspaces/w/items/a..b": false, "/api/v1/workspaces/w/items/.hidden": false,
		"/api/v1/workspaces/w/items/..": true, "/api/v1/workspaces/w/items/../x": true, "/api/v1/./workspaces": true,
		"/api/v1//workspaces": true, "/api/v1/workspaces/w\x00": true, "/api/v1/workspaces/w/items/\xff": true,
		"/api/v1/workspaces/w/items/a\x7fb": true, "/api/v1/workspaces/w/items/a\nb": true,
	} {
		if got := pathProblem(p) != ""; got != bad {
			t.Errorf("pathProblem(%q) = %q, want refused=%v", p, pathProblem(p), bad)
		}
	}
}

// An answer slower than limits.SlowAfter leaves a line in padd's log naming the
// route and the time, so a client's timeout can be explained; a quick
// one leaves none.
func TestSlowRequestLogged(t *testing.T) {
	h := newHarness(t)
	var logs testbin.Buffer
	h.srv.log = slog.New(slog.NewTextHandler(&logs, nil))
	h.mustJSON("GET", "/api/v1/workspaces/w/items", nil, 200, nil)
	if strings.Contains(logs.String(), "slow request") {
		t.Fatalf("a quick list was logged as slow:\n%s", logs.String())
	}
	h.srv.limits.SlowAfter = time.Nanosecond
	h.mustJSON("GET", "/api/v1/workspaces/w/items", nil, 200, nil)
	got := logs.String()
	if !strings.Contains(got, "slow request") || !strings.Contains(got, "path=/api/v1/workspaces/w/items") || !strings.Contains(got, "took=") {
		t.Fatalf("a list slower than limits.SlowAfter left no slow-request line naming its path and time:\n%s", got)
	}
}
