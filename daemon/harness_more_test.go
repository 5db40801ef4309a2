package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
)

// harness is a padd API over a real store and index in a temp dir,
// served by httptest on loopback, with one workspace ("w") made from the
// default template.
type harness struct {
	t     *testing.T
	srv   *Server
	ts    *httptest.Server
	store *storage.Store
	token string
	clock *testClock
	// stopIndexer stops the indexer (the index stays open): searches
	// then see only what it indexed before.
	stopIndexer func()
}

// testClock is the store's clock: real time plus an offset tests move,
// so "later" writes (an edit a second after its create) need no sleep.
type testClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

const testToken = "padd_test_token_0123456789abcdef0123456789abcdef"

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, storage.Options{NoSync: true})
}

// newHarnessWith is newHarness over a store opened with opt; its clock
// and logger are the harness's.
func newHarnessWith(t *testing.T, opt storage.Options) *harness {
	t.Helper()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	clock := &testClock{}
	opt.Now, opt.Logger = clock.now, log
	store, err := storage.Open(filepath.Join(dir, "padd.db"), opt)
	if err != nil {
		t.Fatal(err)
	}
	index, err := searchindex.Open(dir, store, log)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	indexed := make(chan struct{})
	go func() { index.Run(ctx); close(indexed) }()
	srv := NewServer(store, index, testToken, log)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close() // streams end before the server waits for them
		ts.Close()
		stop()
		<-indexed
		index.Close()
		store.Close()
	})
	h := &harness{t: t, srv: srv, ts: ts, store: store, token: testToken, clock: clock,
		stopIndexer: func() { stop(); <-indexed }}
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Work", "slug": "w"}, 201, nil)
	return h
}

// reply is one answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request; headers come in name, value pairs.
func (h *harness) call(method, path string, body any, headers ...string) reply {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: raw}
}

// mustJSON sends a request, wants the status, and decodes the answer
// into out (when not nil) strictly by type: a member of the wrong JSON
// type fails, as it fails Pad's CLI.
func (h *harness) mustJSON(method, path string, body any, status int, out any, headers ...string) reply {
	h.t.Helper()
	r := h.call(method, path, body, headers...)
	if r.status != status {
		h.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	if out != nil {
		if err := json.Unmarshal(r.body, out); err != nil {
			h.t.Fatalf("%s %s: decode %T: %v; body %s", method, path, out, err, r.body)
		}
	}
	return r
}

// wantError sends a request and wants Pad's error envelope with status
// and code; it returns the error.
func (h *harness) wantError(method, path string, body any, status int, code string, headers ...string) *api.Error {
	h.t.Helper()
	var env api.ErrorEnvelope
	h.mustJSON(method, path, body, status, &env, headers...)
	if env.Error == nil || env.Error.Code != code || env.Error.Message == "" {
		h.t.Fatalf("%s %s: error %+v, want code %q with a message", method, path, env.Error, code)
	}
	return env.Error
}

// task creates a task in workspace w.
func (h *harness) task(title string, extra ...any) api.Item {
	h.t.Helper()
	body := map[string]any{"title": title}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	return h.create("tasks", body)
}

func (h *harness) create(coll string, body map[string]any) api.Item {
	h.t.Helper()
	var it api.Item
	h.mustJSON("POST", "/api/v1/workspaces/w/collections/"+coll+"/items", body, 201, &it)
	return it
}

// wsPath is a path under workspace w.
func wsPath(path string) string { return "/api/v1/workspaces/w" + path }
