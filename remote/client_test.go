package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

func TestNewRefusesURLsUnsafeForTheToken(t *testing.T) {
	for _, tc := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://pad.example.com", false, true},
		{"https://pad.example.com/pad/", false, true},
		{"http://127.0.0.1:7777", false, true},
		{"http://127.9.9.9:7777", false, true},
		{"http://[::1]:7777", false, true},
		{"http://localhost:7777", false, true},
		{"http://pad.example.com", false, false},
		{"http://10.0.0.1:7777", false, false},
		{"http://pad.example.com", true, true},
		{"ftp://pad.example.com", false, false},
		{"https://user:pw@pad.example.com", false, false},
		{"https://pad.example.com/?x=1", false, false},
		{"pad.example.com", false, false},
	} {
		_, err := New(tc.url, testToken, Options{Insecure: tc.insecure})
		if (err == nil) != tc.ok {
			t.Errorf("New(%q, insecure=%v) = %v, want ok=%v", tc.url, tc.insecure, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), testToken) {
			t.Errorf("error holds the token: %v", err)
		}
	}
	if _, err := New("https://pad.example.com", "pad_x\nHost: evil", Options{}); err == nil {
		t.Error("a token with a line break was accepted")
	}
}

func TestClientPrintsNoToken(t *testing.T) {
	c, err := New("https://pad.example.com", testToken, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q %x", c, c, c, c, c, c),
		fmt.Sprintf("%v %+v %#v %s %x", c.token, c.token, c.token, c.token, c.token)} {
		if strings.Contains(s, testToken) || strings.Contains(s, fmt.Sprintf("%x", testToken)) {
			t.Errorf("printout holds the token: %s", s)
		}
	}
}

func TestHTTPSIsVerified(t *testing.T) {
	f := newFakePad(t)
	f.answer("GET /api/v1/workspaces", 200, `[]`)
	tlsSrv := newTLSFake(t, f)
	c, err := New(tlsSrv, testToken, Options{}) // the default transport does not trust the test CA
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ListWorkspaces(context.Background())
	if !IsUnreachable(err) {
		t.Fatalf("an unverified certificate = %v, want unreachable", err)
	}
	if f.count() != 0 {
		t.Error("the request reached a server whose certificate did not verify")
	}
}

func TestRedirectsKeepTheToken(t *testing.T) {
	other := newFakePad(t)
	other.answer("GET /", 200, `[]`)
	f := newFakePad(t)
	f.handle("GET /api/v1/workspaces", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+"/api/v1/workspaces", http.StatusFound)
	})
	f.handle("GET /api/v1/workspaces/here", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v1/workspaces/there", http.StatusMovedPermanently)
	})
	f.answer("GET /api/v1/workspaces/there", 200, observedWorkspace)
	f.handle("POST /api/v1/workspaces/sync-peer/collections", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v1/workspaces/there", http.StatusTemporaryRedirect)
	})
	c := f.client(Options{})
	ctx := context.Background()

	_, err := c.ListWorkspaces(ctx)
	if !IsRefused(err) || other.count() != 0 {
		t.Errorf("redirect to another origin = %v (other server saw %d requests), want refused and never sent", err, other.count())
	}
	if ws, err := c.GetWorkspace(ctx, "here"); err != nil || ws.Slug != "sync-peer" {
		t.Errorf("same-origin redirect of a read = %v, %v", ws, err)
	}
	if f.last().Header.Get("Authorization") == "" {
		t.Error("the same-origin redirect lost the token")
	}
	n := f.count()
	if _, err := c.CreateCollection(ctx, "sync-peer", api.CollectionCreate{Name: "x"}); !IsRefused(err) || f.count() != n+1 {
		t.Errorf("a redirected write = %v (%d requests after it, want 1)", err, f.count()-n)
	}
}

func TestTokenIsInNoError(t *testing.T) {
	echo := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			tok := r.Header.Get("Authorization")
			w.Header().Set("Retry-After", "1")
			writeJSON(w, status, map[string]any{"error": map[string]any{"code": "x" + tok, "message": "you sent " + tok,
				"details": map[string]any{"auth": tok, tok: []any{tok}}}})
		}
	}
	f := newFakePad(t)
	for _, st := range []int{400, 403, 404, 409, 422, 500, 503} {
		f.handle(fmt.Sprintf("GET /api/v1/workspaces/s%d", st), echo(st))
	}
	f.handle("GET /api/v1/workspaces/bad", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, r.Header.Get("Authorization")) // a string, not a workspace
	})
	f.handle("GET /api/v1/workspaces/trunc", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, `{"slug":"`+r.Header.Get("Authorization"))
	})
	f.handle("GET /api/v1/workspaces/redir", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:1/"+r.Header.Get("Authorization"), http.StatusFound)
	})
	c := f.client(Options{Limits: Limits{General: 1000, GeneralBurst: 100, Search: 1000, SearchBurst: 100}})
	var errs []error
	for _, ws := range []string{"s400", "s403", "s404", "s409", "s422", "s500", "s503", "bad", "trunc", "redir"} {
		_, err := c.GetWorkspace(context.Background(), ws)
		errs = append(errs, err)
	}
	_, err := c.GetWorkspace(context.Background(), "s429")
	errs = append(errs, err)
	down := closedURL(t)
	dc, _ := New(down, testToken, Options{})
	defer dc.Close()
	_, err = dc.ListWorkspaces(context.Background())
	errs = append(errs, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.ListWorkspaces(ctx)
	errs = append(errs, err)
	for _, err := range errs {
		if err == nil {
			t.Fatal("an error path answered no error")
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%v is not a *remote.Error", err)
		}
		s := fmt.Sprintf("%v %+v %#v", err, err, e.Details)
		if strings.Contains(s, testToken) {
			t.Errorf("error holds the token: %s", s)
		}
	}
}

func TestErrorKinds(t *testing.T) {
	f := newFakePad(t)
	env := func(code, msg string, details map[string]any) string {
		b := fmt.Sprintf(`{"error":{"code":%q,"message":%q`, code, msg)
		if details != nil {
			d, _ := jsonText(details)
			b += `,"details":` + d
		}
		return b + "}}"
	}
	f.answer("GET /api/v1/workspaces/gone", 404, env("not_found", "Workspace not found", nil))
	f.answer("GET /api/v1/workspaces/gone2", 404, env("not_found", "Not found", map[string]any{"scope": "workspace"}))
	f.answer("GET /api/v1/workspaces/w/items/TASK-9", 404, env("not_found", "Item not found", nil))
	f.answer("PATCH /api/v1/workspaces/w/items/TASK-1", 409, env("update_conflict", "TASK-1 was modified", map[string]any{
		"actual_updated_at": "2026-11-30T03:56:44Z", "expected_updated_at": "2026-11-30T03:56:41Z", "ref": "TASK-1"}))
	f.answer("GET /api/v1/workspaces/forbidden", 403, env("forbidden", "no", nil))
	f.answer("POST /api/v1/workspaces/w/collections/tasks/items", 400, env("validation_error", "bad status", nil))
	f.answer("POST /api/v1/workspaces/w/items/TASK-1/restore", 500, env("server_error", "boom", nil))
	f.answer("POST /api/v1/workspaces/w/items/TASK-2/restore", 503, env("unavailable", "later", nil))
	f.answer("GET /api/v1/workspaces/w/items/TASK-3", 500, env("server_error", "boom", nil))
	f.answer("POST /api/v1/workspaces/w/items/TASK-4/comments", 409, env("idempotency_in_flight", "in flight", nil))
	c := f.client(Options{})
	ctx := context.Background()
	kind := func(err error) Kind {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%v is not a *remote.Error", err)
		}
		return e.Kind
	}
	_, err := c.GetWorkspace(ctx, "gone")
	if !IsNotFound(err) || !IsWorkspaceGone(err) {
		t.Errorf("workspace 404 (message) = %v, gone=%v", err, IsWorkspaceGone(err))
	}
	_, err = c.GetWorkspace(ctx, "gone2")
	if !IsWorkspaceGone(err) {
		t.Errorf("workspace 404 (scope) = %v", err)
	}
	_, err = c.GetItem(ctx, "w", "TASK-9")
	if !IsNotFound(err) || IsWorkspaceGone(err) {
		t.Errorf("item 404 = %v, gone=%v", err, IsWorkspaceGone(err))
	}
	_, err = c.UpdateItem(ctx, "w", "TASK-1", api.ItemUpdate{}, Base{})
	if cf, ok := AsConflict(err); !ok || cf.Ref != "TASK-1" || cf.ActualUpdatedAt != "2026-11-30T03:56:44Z" || cf.ExpectedUpdatedAt != "2026-11-30T03:56:41Z" {
		t.Errorf("conflict = %v, %+v", err, cf)
	}
	_, err = c.GetWorkspace(ctx, "forbidden")
	if !IsTokenRefused(err) || Retryable(err) {
		t.Errorf("403 = %v", err)
	}
	_, err = mustNewToken(t, f.srv.URL, "pad_wrong").ListWorkspaces(ctx)
	if !IsTokenRefused(err) || Retryable(err) {
		t.Errorf("401 = %v", err)
	}
	_, err = c.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "x"}, "")
	if !IsRefused(err) || Retryable(err) {
		t.Errorf("400 = %v", err)
	}
	_, err = c.RestoreItem(ctx, "w", "TASK-1")
	if !IsOutcomeUnknown(err) || Retryable(err) {
		t.Errorf("500 to a write = %v, want outcome unknown", err)
	}
	_, err = c.RestoreItem(ctx, "w", "TASK-2")
	if !IsServerError(err) || !Retryable(err) {
		t.Errorf("503 to a write = %v, want a retryable server error", err)
	}
	_, err = c.GetItem(ctx, "w", "TASK-3")
	if !IsServerError(err) || !Retryable(err) {
		t.Errorf("500 to a read = %v", err)
	}
	_, err = c.CreateComment(ctx, "w", "TASK-4", "x", "")
	if kind(err) != KindBusy || !Retryable(err) {
		t.Errorf("idempotency_in_flight = %v", err)
	}
}

func mustNewToken(t *testing.T, url, token string) *Client {
	t.Helper()
	c, err := New(url, token, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// newTLSFake serves f over https with httptest's own certificate, which
// no default transport trusts.
func newTLSFake(t *testing.T, f *fakePad) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"1", time.Second}, {"120", 2 * time.Minute}, {"-3", 0}, {"soon", 0},
		{"99999999", maxRetryAfter},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{now.Add(48 * time.Hour).Format(http.TimeFormat), maxRetryAfter},
	} {
		if got := parseRetryAfter(tc.v, now); got != tc.want {
			t.Errorf("Retry-After %q = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// TestOutcomeUnknownIsNotUnreachable: a write whose request reached the
// server before the connection broke (or the time ran out) has an
// unknown outcome; one that never got out is unreachable; a read is
// never "outcome unknown".
func TestOutcomeUnknownIsNotUnreachable(t *testing.T) {
	ctx := context.Background()
	closer := rawServer(t, func(conn net.Conn, req *http.Request) {}) // reads the request, closes
	c := mustNew(t, closer, Options{})
	_, err := c.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "x"}, "")
	if !IsOutcomeUnknown(err) {
		t.Errorf("connection closed after the request: write = %v, want outcome unknown", err)
	}
	_, err = c.GetItem(ctx, "w", "TASK-1")
	if !IsUnreachable(err) {
		t.Errorf("connection closed after the request: read = %v, want unreachable", err)
	}

	release := make(chan struct{})
	hang := rawServer(t, func(conn net.Conn, req *http.Request) { <-release })
	defer close(release)
	hc := mustNew(t, hang, Options{Timeout: 200 * time.Millisecond})
	_, err = hc.CreateComment(ctx, "w", "TASK-1", "hi", "")
	if !IsOutcomeUnknown(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no answer in time: write = %v, want outcome unknown (deadline)", err)
	}

	c2 := mustNew(t, closedURL(t), Options{})
	_, err = c2.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "x"}, "")
	if !IsUnreachable(err) || !Retryable(err) {
		t.Errorf("nothing listening: write = %v, want unreachable", err)
	}

	// A TLS handshake that never completes: nothing of the request was written.
	silent := silentListener(t)
	sc := mustNew(t, "https://"+silent, Options{Timeout: 200 * time.Millisecond})
	_, err = sc.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "x"}, "")
	if !IsUnreachable(err) {
		t.Errorf("timeout before the write = %v, want unreachable", err)
	}

	f := newFakePad(t)
	f.handle("POST /api/v1/workspaces/w/collections/tasks/items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4000")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, observedItem[:40])
	})
	f.handle("GET /api/v1/workspaces/w/items/TASK-1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4000")
		_, _ = io.WriteString(w, observedItem[:40])
	})
	f.answer("POST /api/v1/workspaces/w/items/TASK-1/move", 200, `{"id": 7}`)
	fc := f.client(Options{})
	_, err = fc.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "x"}, "")
	if e, ok := kindOf(err); !ok || e.Kind != KindOutcomeUnknown || e.Status != 201 {
		t.Errorf("201 with a truncated answer = %v, want outcome unknown with status 201", err)
	}
	_, err = fc.GetItem(ctx, "w", "TASK-1")
	if !IsUnreachable(err) {
		t.Errorf("a read's truncated answer = %v, want unreachable", err)
	}
	_, err = fc.MoveItem(ctx, "w", "TASK-1", "ideas")
	if !IsOutcomeUnknown(err) {
		t.Errorf("a write's undecodable 200 = %v, want outcome unknown", err)
	}
}

func TestHostileAnswersAreTypedErrors(t *testing.T) {
	f := newFakePad(t)
	f.answer("GET /api/v1/workspaces/w/items/wrong", 200, `{"id": 12, "title": ["no"]}`)
	f.answer("GET /api/v1/workspaces/w/items/trailing", 200, observedItem+` {"x":1}`)
	f.answer("GET /api/v1/workspaces/w/items/notjson", 200, `<html>`)
	f.answer("GET /api/v1/workspaces/w/items-changes", 200, `{"changes":[],"cursor":"abc"}`)
	f.handle("GET /api/v1/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"`+strings.Repeat("a", maxProbeBytes)+`"}`)
	})
	c := f.client(Options{})
	ctx := context.Background()
	for _, ref := range []string{"wrong", "trailing", "notjson"} {
		if _, err := c.GetItem(ctx, "w", ref); !IsBadAnswer(err) {
			t.Errorf("item %s = %v, want bad answer", ref, err)
		}
	}
	if _, err := c.ItemsChanges(ctx, "w", 0, 10); !IsBadAnswer(err) {
		t.Errorf("bad cursor = %v, want bad answer", err)
	}
	if _, err := c.Probe(ctx); !IsBadAnswer(err) || !errors.Is(err, errTooLarge) {
		t.Errorf("huge health answer = %v, want bad answer (too large)", err)
	}
}

func TestReadCapped(t *testing.T) {
	if b, err := readCapped(strings.NewReader("12345"), 5); err != nil || string(b) != "12345" {
		t.Errorf("at the cap = %q, %v", b, err)
	}
	if _, err := readCapped(strings.NewReader("123456"), 5); !errors.Is(err, errTooLarge) {
		t.Errorf("over the cap = %v", err)
	}
}

func mustNew(t *testing.T, url string, opts Options) *Client {
	t.Helper()
	c, err := New(url, testToken, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// rawServer serves plain TCP on loopback: it reads each connection's
// first request (body too), calls then, and closes the connection.
func rawServer(t *testing.T, then func(net.Conn, *http.Request)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				then(conn, req)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return "http://" + ln.Addr().String()
}

// silentListener accepts connections and never says anything.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// closedURL is a loopback URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}
