package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/storage"
)

// Run stops what it started before it returns: a relayed MCP session's
// call in flight when the shutdown begins is answered and ends first, the
// jobs, the reminder loop and the indexer stop, and the database is
// closed (another Open gets it at once). The package's TestMain fails the
// tests if any goroutine is left.
func TestRunStopsWhatItStarted(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	// The session's call waits for the shutdown to begin (Run's log
	// says so), then answers.
	stopping := make(chan struct{})
	log := slog.New(&onMessage{msg: "padd shutting down", seen: stopping})
	inside := make(chan struct{})
	var ended atomic.Bool
	serve := func(ctx context.Context, conn io.ReadWriter, c *api.Client, s api.MCPSession, _ *slog.Logger) error {
		defer ended.Store(true)
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil {
			return err
		}
		close(inside)
		<-stopping
		var items []api.Item
		if _, err := c.Do(ctx, "GET", "/workspaces/w/items", nil, nil, &items); err != nil {
			return err
		}
		_, err = fmt.Fprintf(conn, "%s %d items\n", strings.TrimSpace(line), len(items))
		return err
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ready := make(chan *launch.Info, 1)
	ran := make(chan error, 1)
	go func() {
		ran <- Run(ctx, Config{DataDir: dir, Port: port, Log: log, Ready: func(i *launch.Info) { ready <- i }, MCP: serve})
	}()
	var info *launch.Info
	select {
	case info = <-ready:
	case err := <-ran:
		t.Fatalf("Run ended before serving: %v", err)
	}
	client := api.NewClient(fmt.Sprintf("http://127.0.0.1:%d", info.Port), info.Token)
	if _, err := client.Do(context.Background(), "POST", "/workspaces", nil, map[string]any{"name": "Work", "slug": "w"}, nil); err != nil {
		t.Fatal(err)
	}
	conn, err := client.DialMCP(context.Background(), api.MCPSession{Workspace: "w"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintln(conn, "call")
	<-inside
	stop()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !ended.Load() {
		t.Error("Run returned before the MCP session it served ended")
	}
	if line, err := conn.R.ReadString('\n'); err != nil || line != "call 0 items\n" {
		t.Errorf("the call in flight at shutdown was answered %q (%v)", line, err)
	}
	s, err := storage.Open(filepath.Join(dir, DBFile), storage.Options{Timeout: 100 * time.Millisecond, Logger: log})
	if err != nil {
		t.Fatalf("the database is still held after Run returned: %v", err)
	}
	s.Close()
}

// onMessage is a slog handler that drops every record and closes seen at
// the first whose message is msg.
type onMessage struct {
	msg  string
	seen chan struct{}
	once sync.Once
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h *onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return nil
}
func (h *onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *onMessage) WithGroup(string) slog.Handler      { return h }
