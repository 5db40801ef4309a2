package remote

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/padd/padd/internal/leakcheck"
)

// TestMain fails the tests if a goroutine outlives them (bleve's workers
// aside: the contract test runs a whole padd in this process).
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// testToken is in Pad's PAT format; the tests look for it in every
// error and printout.
const testToken = "pad_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fakePad is a test double of a Pad server: a ServeMux of the routes a
// test gives it, behind Pad's bearer check (health and capabilities
// need none), recording every request it sees.
type fakePad struct {
	t   *testing.T
	srv *httptest.Server
	mux *http.ServeMux

	mu   sync.Mutex
	seen []seenRequest
}

// seenRequest is one request as the fake received it.
type seenRequest struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

func newFakePad(t *testing.T) *fakePad {
	f := &fakePad{t: t, mux: http.NewServeMux()}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakePad) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
	f.mu.Unlock()
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	open := r.URL.Path == "/api/v1/health" || r.URL.Path == "/api/v1/server/capabilities"
	if !open && r.Header.Get("Authorization") != "Bearer "+testToken {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"code": "unauthorized", "message": "Authentication required"}})
		return
	}
	f.mux.ServeHTTP(w, r)
}

// handle adds a route (a ServeMux pattern).
func (f *fakePad) handle(pattern string, h http.HandlerFunc) { f.mux.HandleFunc(pattern, h) }

// answer adds a route answering status and body (JSON text).
func (f *fakePad) answer(pattern string, status int, body string) {
	f.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
}

// last is the last request the fake saw.
func (f *fakePad) last() seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) == 0 {
		f.t.Fatal("the fake saw no request")
	}
	return f.seen[len(f.seen)-1]
}

func (f *fakePad) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

// client is a Client of the fake with the test token.
func (f *fakePad) client(opts Options) *Client {
	c, err := New(f.srv.URL, testToken, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(c.Close)
	return c
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Shapes as the Pad of August 2026 sends them (docs: shared spec).
const (
	observedItem = `{"id":"68681456-0000-4000-8000-000000000001","workspace_id":"w1","collection_id":"c1","title":"First task","slug":"first-task","ref":"TASK-1",
"content":"Hello **world**","fields":"{\"priority\":\"high\",\"status\":\"open\"}","tags":"[\"sync\",\"peer\"]",
"pinned":false,"sort_order":0,"created_by":"user","last_modified_by":"user","source":"cli",
"created_at":"2026-11-30T03:56:41Z","updated_at":"2026-11-30T03:56:41Z","role_sort_order":0,"item_number":1,"seq":1,
"collection_slug":"tasks","collection_name":"Tasks","collection_icon":"✓","collection_prefix":"TASK"}`
	observedComment = `{"id":"cm1","item_id":"68681456-0000-4000-8000-000000000001","workspace_id":"w1","author":"Peer Admin","user_id":"u1","body":"hi",
"created_by":"user","source":"cli","activity_id":"a1","created_at":"2026-11-30T03:57:00Z","updated_at":"2026-11-30T03:57:00Z","item_title":"First task","item_slug":"first-task"}`
	observedCollection = `{"id":"c1","workspace_id":"w1","name":"Tasks","slug":"tasks","icon":"✓","description":"","schema":"{\"fields\":[{\"key\":\"status\",\"type\":\"select\",\"options\":[\"open\",\"done\"]}]}",
"settings":"{}","traits":"{}","prefix":"TASK","sort_order":0,"is_default":true,"is_system":false,"created_at":"2026-11-30T03:56:00Z","updated_at":"2026-11-30T03:56:00Z","item_count":1,"active_item_count":1}`
	observedWorkspace = `{"id":"w1","name":"Sync Peer","slug":"sync-peer","owner_id":"u1","owner_username":"peer-admin","description":"","settings":"{}",
"source":"cli","sort_order":0,"created_at":"2026-11-30T03:56:00Z","updated_at":"2026-11-30T03:56:00Z"}`
)
