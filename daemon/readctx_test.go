package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// A list whose client disconnects mid-read stops there: the store's
// read sees the request's context end at its next look, walks no
// further, and padd neither answers nor logs a failure.
func TestClientThatLeavesStopsTheRead(t *testing.T) {
	var looks atomic.Int32
	var hold atomic.Bool           // the first look waits for the request's context to end
	entered := make(chan struct{}) // closed at the held read's first look
	var ended atomic.Bool          // the held read's context ended while it waited
	limit := testwait.Context(t)
	h := newHarnessWith(t, storage.Options{NoSync: true, ReadCheck: func(ctx context.Context) {
		if looks.Add(1) != 1 || !hold.Load() {
			return
		}
		close(entered)
		select {
		case <-ctx.Done():
			ended.Store(true)
		case <-limit.Done():
		}
	}})
	var logs bytes.Buffer
	var logMu sync.Mutex
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{&logs, &logMu}, &slog.HandlerOptions{Level: slog.LevelInfo})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	const n = 3000 // a dozen looks' worth of rows
	in := make([]storage.ItemCreate, n)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("task %d", i)}
	}
	if _, err := h.store.CreateItems("w", in, model.UserActor(model.SourceCLI), 0); err != nil {
		t.Fatal(err)
	}

	// padd behind a server of this test's, which says when padd's
	// handler has returned.
	// Sorted by title, the list reads every item for a page of ten.
	const path = "/api/v1/workspaces/w/items?limit=10&sort=title"
	returned := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.srv.ServeHTTP(w, r)
		returned <- struct{}{}
	}))
	defer ts.Close()
	get := func(ctx context.Context) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		return http.DefaultClient.Do(req)
	}

	// A client that stays gets its page, and the read looks at its
	// context all along the walk.
	resp, err := get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var items []api.Item
	err = json.NewDecoder(resp.Body).Decode(&items)
	resp.Body.Close()
	testwait.Recv(t, "the handler of the first list", returned)
	if err != nil || resp.StatusCode != 200 || len(items) != 10 {
		t.Fatalf("list: %d, %d items, %v", resp.StatusCode, len(items), err)
	}
	if walked := looks.Load(); walked < 4 {
		t.Fatalf("a whole list looked at its context %d times; the rest of the test needs a read that looks often", walked)
	}

	// A client that leaves while the read is held at its first look.
	looks.Store(0)
	hold.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		resp, err := get(ctx)
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("answered %d", resp.StatusCode)
		}
		failed <- err
	}()
	testwait.Recv(t, "the list's read to reach its first look", entered)
	cancel()
	if err := testwait.Recv(t, "the client to give up", failed); !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("the client that left: %v", err)
	}
	testwait.Recv(t, "the handler of the abandoned list", returned)
	if !ended.Load() {
		t.Fatal("the store's read never saw the request's context end: the handler does not pass it on")
	}
	if n := looks.Load(); n != 1 {
		t.Errorf("the read looked at its context %d times: it went on walking after its client left", n)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if strings.Contains(logs.String(), "request failed") || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a client that left was logged as a failure:\n%s", logs.String())
	}
}

// A read stopped by its context is no server error: a client that left
// gets nothing; one still waiting (a deadline passed, or padd cancelled
// the work) gets a coded unavailable, to retry.
func TestWriteErrorOfAStoppedRead(t *testing.T) {
	left, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name   string
		ctx    context.Context
		err    error
		status int // 0: nothing written
	}{
		{"client left", left, fmt.Errorf("list: %w", context.Canceled), 0},
		{"deadline", context.Background(), fmt.Errorf("list: %w", context.DeadlineExceeded), 503},
		{"deadline, client left", left, context.DeadlineExceeded, 0},
		{"canceled by padd", context.Background(), context.Canceled, 503},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequestWithContext(c.ctx, "GET", "/api/v1/workspaces/w/items", nil)
			w := httptest.NewRecorder()
			writeError(w, r, c.err)
			if c.status == 0 {
				if w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" {
					t.Fatalf("answered a client that left: %d %s", w.Code, w.Body)
				}
				return
			}
			var env api.ErrorEnvelope
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || w.Code != c.status || env.Error == nil ||
				env.Error.Code != api.CodeUnavailable {
				t.Fatalf("answer %d %s (%v), want %d unavailable", w.Code, w.Body, err, c.status)
			}
		})
	}
	// In process (an MCP session's call), there is always an answer.
	r := httptest.NewRequestWithContext(left, "GET", "/api/v1/workspaces/w/items", nil)
	rec := &recorder{header: http.Header{}}
	writeError(rec, r, context.Canceled)
	if rec.status != 503 || rec.body.Len() == 0 {
		t.Errorf("in process, a stopped read answered %d %q", rec.status, rec.body.String())
	}
}
