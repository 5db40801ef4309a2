//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// Hostile requests, sent byte for byte on a raw connection (so nothing
// in a client cleans them up first), each with the answer padd owes it.
// The loopback guards (Host, Origin, tokens), oversize Content-Length
// bodies, invalid UTF-8 bodies and malformed JSON are in
// security_test.go; this is everything else.

// wireReq is one request as it goes on the wire.
type wireReq struct {
	method, target string
	headers        []string // "Name: value"
	body           string
	noAuth         bool
	http10         bool // HTTP/1.0 without a Host header
	chunked        bool // send the body chunked (no Content-Length)
	contentLength  string
}

func (w wireReq) bytes(port int, token string) []byte {
	var b bytes.Buffer
	proto := "HTTP/1.1"
	if w.http10 {
		proto = "HTTP/1.0"
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", w.method, w.target, proto)
	if !w.http10 {
		fmt.Fprintf(&b, "Host: 127.0.0.1:%d\r\n", port)
	}
	if !w.noAuth {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", token)
	}
	b.WriteString("Connection: close\r\n")
	for _, h := range w.headers {
		b.WriteString(h + "\r\n")
	}
	switch {
	case w.chunked:
		b.WriteString("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
		for rest := w.body; rest != ""; {
			n := min(len(rest), 32<<10)
			fmt.Fprintf(&b, "%x\r\n%s\r\n", n, rest[:n])
			rest = rest[n:]
		}
		b.WriteString("0\r\n\r\n")
	case w.contentLength != "":
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %s\r\n\r\n%s", w.contentLength, w.body)
	case w.body != "":
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(w.body), w.body)
	default:
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// wire sends one raw request on a fresh connection and reads the answer.
// The request is written while the answer is read, so a server that
// answers before the whole body arrived is heard.
func (d *instance) wire(t *testing.T, w wireReq) (reply, time.Duration) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(d.port), 5*time.Second)
	if err != nil {
		t.Fatalf("dial padd: %v", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	start := time.Now()
	go conn.Write(w.bytes(d.port, d.info.Token)) // may fail once padd answered and closed
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %.80s: no HTTP answer: %v", w.method, w.target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: body}, time.Since(start)
}

func nested(open, leaf, close string, depth int) string {
	return strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth)
}

func TestHostileRequests(t *testing.T) {
	t.Parallel()
	d := startPadd(t, t.TempDir())
	ws := d.mkWorkspace(t, "Hostile")
	it := d.createItem(t, ws, "tasks", api.ItemCreate{Title: "the target", Content: "unchanged"})
	base := "/api/v1/workspaces/" + ws
	items := base + "/collections/tasks/items"
	item := base + "/items/" + it.Ref
	deepArr := func(n int) string { return `{"title":"deep","fields":{"x":` + nested("[", "", "]", n) + `}}` }
	deepObj := func(n int) string { return `{"title":"deep","fields":{"x":` + nested(`{"a":`, "1", "}", n) + `}}` }

	cases := []struct {
		name   string
		req    wireReq
		status int
		code   string // Pad's error code; "" for a success
		reason string // details.reason, when the refusal names one
		plain  bool   // net/http answers before padd sees the request
	}{
		// Deep JSON: encoding/json stops at 10,000 levels.
		{"deep JSON 10k arrays", wireReq{method: "POST", target: items, body: deepArr(10000)}, 400, "bad_request", "", false},
		{"deep JSON 10k objects", wireReq{method: "POST", target: items, body: deepObj(10000)}, 400, "bad_request", "", false},
		{"deep JSON 100k arrays", wireReq{method: "POST", target: items, body: deepArr(100000)}, 400, "bad_request", "", false},
		{"deep JSON on update", wireReq{method: "PATCH", target: item, body: `{"fields":{"x":` + nested("[", "", "]", 20000) + `}}`}, 400, "bad_request", "", false},

		// Invalid UTF-8 outside the body.
		{"invalid UTF-8 in the path", wireReq{method: "GET", target: base + "/items/%ff%fe"}, 400, "bad_request", "path", false},
		{"invalid UTF-8 in X-Pad-Agent", wireReq{method: "POST", target: items, body: `{"title":"from an agent"}`,
			headers: []string{"X-Pad-Agent: agent-\xff\xfe"}}, 400, "bad_request", "header", false},
		// No word in it to search for: refused, as a query of punctuation is.
		{"invalid UTF-8 in a search", wireReq{method: "GET", target: "/api/v1/search?q=%ff%fe&workspace=" + ws}, 400, "validation_error", "no_words", false},

		// Inputs past their limits (issue 24): refused, never a 5xx.
		{"a one-word search of 3,000 characters", wireReq{method: "GET", target: "/api/v1/search?q=" + strings.Repeat("a", 3000)}, 400, "validation_error", "", false},
		{"a search of 1,000 typo terms", wireReq{method: "GET", target: "/api/v1/search?q=" + strings.Repeat("x~", 1000)}, 400, "validation_error", "too_many_terms", false},
		{"a search of 6,000 characters", wireReq{method: "GET", target: "/api/v1/search?q=" + strings.Repeat("x-", 3000)}, 400, "validation_error", "", false},
		{"a title of 33,000 characters", wireReq{method: "POST", target: items, body: `{"title":"` + strings.Repeat("t", 33000) + `"}`}, 400, "validation_error", "", false},
		{"a tag of 33,000 characters", wireReq{method: "PATCH", target: item, body: `{"tags":["` + strings.Repeat("g", 33000) + `"]}`}, 400, "validation_error", "", false},

		// Traversal in refs and slugs: never resolved, never redirected.
		{"../ in a ref", wireReq{method: "GET", target: base + "/items/../../workspaces"}, 400, "bad_request", "path", false},
		{"%2e%2e in a ref", wireReq{method: "GET", target: base + "/items/%2e%2e"}, 400, "bad_request", "path", false},
		{"%2e%2e%2f in a ref", wireReq{method: "GET", target: base + "/items/%2e%2e%2f%2e%2e%2fhealth"}, 400, "bad_request", "path", false},
		{"..%2f to /etc/passwd", wireReq{method: "GET", target: base + "/items/..%2f..%2f..%2f..%2fetc%2fpasswd"}, 400, "bad_request", "path", false},
		{"../ on a write", wireReq{method: "PATCH", target: base + "/items/" + it.Ref + "/../" + it.Ref, body: `{"title":"moved"}`}, 400, "bad_request", "path", false},
		{"NUL in a ref", wireReq{method: "GET", target: item + "%00"}, 400, "bad_request", "path", false},
		{"NUL in a slug", wireReq{method: "GET", target: "/api/v1/workspaces/" + ws + "%00/items"}, 400, "bad_request", "path", false},
		{"// in the path", wireReq{method: "GET", target: "/api/v1//workspaces"}, 400, "bad_request", "path", false},
		{"/./ in the path", wireReq{method: "GET", target: "/api/v1/./workspaces"}, 400, "bad_request", "path", false},
		{"a ref that does not exist", wireReq{method: "GET", target: base + "/items/TASK-999999999999999999999"}, 404, "not_found", "", false},

		// Paging: one rule for limit and offset (issue 24): not a whole
		// number in range is refused; a limit above the cap is the cap.
		{"limit=1e12", wireReq{method: "GET", target: base + "/items?limit=1e12"}, 400, "invalid_limit", "", false},
		{"limit=10^12", wireReq{method: "GET", target: base + "/items?limit=1000000000000"}, 200, "", "", false},
		{"limit past int64", wireReq{method: "GET", target: base + "/items?limit=99999999999999999999"}, 200, "", "", false},
		{"limit=-5", wireReq{method: "GET", target: base + "/items?limit=-5"}, 400, "invalid_limit", "", false},
		{"limit not a number", wireReq{method: "GET", target: base + "/items?limit=lots"}, 400, "invalid_limit", "", false},
		{"negative offset", wireReq{method: "GET", target: base + "/items?offset=-1"}, 400, "bad_request", "", false},
		{"offset not a number", wireReq{method: "GET", target: base + "/items?offset=abc"}, 400, "bad_request", "", false},
		{"offset past int64", wireReq{method: "GET", target: base + "/items?offset=99999999999999999999"}, 400, "bad_request", "", false},
		{"offset=10^12", wireReq{method: "GET", target: base + "/items?offset=1000000000000"}, 200, "", "", false},
		{"search limit=10^12", wireReq{method: "GET", target: "/api/v1/search?q=target&limit=1000000000000"}, 200, "", "", false},
		{"search negative offset", wireReq{method: "GET", target: "/api/v1/search?q=target&offset=-5"}, 400, "bad_request", "", false},
		{"items-changes limit=1e12", wireReq{method: "GET", target: base + "/items-changes?limit=1e12"}, 400, "invalid_limit", "", false},
		{"items-changes since=-1", wireReq{method: "GET", target: base + "/items-changes?since=-1"}, 400, "invalid_cursor", "", false},
		{"activity since past int64", wireReq{method: "GET", target: base + "/activity?since=99999999999999999999"}, 400, "invalid_since", "", false},
		{"report tz=../../etc/passwd", wireReq{method: "GET", target: base + "/report?tz=..%2F..%2Fetc%2Fpasswd"}, 400, "invalid_tz", "", false},

		// Sizes.
		{"64 KiB+ of headers", wireReq{method: "GET", target: "/api/v1/workspaces", headers: []string{"X-Junk: " + strings.Repeat("j", 100<<10)}}, 431, "too_large", "headers", false},
		{"16 KiB+ request target", wireReq{method: "GET", target: base + "/items?tag=" + strings.Repeat("t", 20<<10)}, 414, "too_large", "uri", false},
		{"2 MiB of headers", wireReq{method: "GET", target: "/api/v1/workspaces", headers: []string{"X-Junk: " + strings.Repeat("j", 2<<20)}}, 431, "", "", true},
		{"10 GB Content-Length", wireReq{method: "POST", target: items, body: `{"title":"tiny"}`, contentLength: "10000000000"}, 413, "too_large", "body", false},
		{"3 MiB chunked body", wireReq{method: "POST", target: items, chunked: true, body: string(jsonOfSize(3 << 20))}, 413, "too_large", "body", false},

		// Odd requests.
		{"HTTP/1.0 without Host", wireReq{method: "GET", target: "/api/v1/workspaces", http10: true}, 403, "forbidden", "host", false},
		{"token in the query string", wireReq{method: "GET", target: "/api/v1/workspaces?token=x", noAuth: true}, 401, "unauthorized", "", false},
		{"unknown method", wireReq{method: "BREW", target: "/api/v1/workspaces"}, 405, "method_not_allowed", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, took := d.wire(t, tc.req)
			if r.Status >= 500 {
				t.Fatalf("a 5xx for a hostile request: %s", r)
			}
			if took > 5*time.Second {
				t.Errorf("answered after %s: a hostile request must be refused at once", took)
			}
			switch {
			case tc.plain:
				wantStatus(t, r, tc.status)
			case tc.code == "":
				wantStatus(t, r, tc.status)
				if !json.Valid(r.Body) {
					t.Errorf("answer is not JSON: %s", r)
				}
			default:
				details := wantError(t, r, tc.status, tc.code)
				if tc.reason != "" && details["reason"] != tc.reason {
					t.Errorf("details %v, want reason %q", details, tc.reason)
				}
			}
		})
	}

	// Nesting within the field value limit (its JSON text at most 4,000
	// characters) is stored and reads back; deeper nesting that
	// encoding/json still accepts is refused by that limit.
	t.Run("deep JSON that fits reads back", func(t *testing.T) {
		r := d.do(t, "POST", items, []byte(deepArr(1999)))
		wantStatus(t, r, 201)
		var made api.Item
		decode(t, r, &made)
		got, err := d.getItem(t, ws, made.ID)
		if err != nil || !strings.Contains(got.Fields, nested("[", "", "]", 1999)) {
			t.Fatalf("a stored 1999-deep value does not read back: %v", err)
		}
		r = d.do(t, "POST", items, []byte(deepArr(9998)))
		wantStatus(t, r, 400)
		if !strings.Contains(string(r.Body), `"validation_error"`) {
			t.Fatalf("a 9998-deep value: %s", r.Body)
		}
	})

	// Nothing above touched the target item, and padd is well.
	got, err := d.getItem(t, ws, it.ID)
	if err != nil || got.Title != "the target" || got.Content != "unchanged" {
		t.Errorf("the target item changed: %+v %v", got, err)
	}
	wantStatus(t, d.do(t, "GET", "/api/v1/health", nil), 200)
	if strings.Contains(d.stderr.String(), "panic") {
		t.Errorf("padd logged a panic:\n%s", tail(d.stderr.String(), 4000))
	}
}

// TestSlowClients: a client that trickles its request cannot hold padd.
// Slow headers are cut at the server's ReadHeaderTimeout (10 s); a slow
// body is answered 408 request_timeout at its body timeout
// (PADD_BODY_TIMEOUT, 1 s here, 20 s by default). Meanwhile padd serves
// everyone else.
func TestSlowClients(t *testing.T) {
	t.Parallel()
	d := startPaddEnv(t, t.TempDir(), []string{"PADD_BODY_TIMEOUT=1s"})
	ws := d.mkWorkspace(t, "Slow")
	items := "/api/v1/workspaces/" + ws + "/collections/tasks/items"

	trickle := func(conn net.Conn, stop <-chan struct{}, b byte) {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				if _, err := conn.Write([]byte{b}); err != nil {
					return
				}
			}
		}
	}
	dial := func(t *testing.T) net.Conn {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(d.port), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.SetDeadline(time.Now().Add(40 * time.Second))
		return conn
	}

	t.Run("slow body 408", func(t *testing.T) {
		t.Parallel()
		conn := dial(t)
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"title\":\"",
			items, d.port, d.info.Token)
		stop := make(chan struct{})
		defer close(stop)
		go trickle(conn, stop, 'a')
		start := time.Now()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a slow body: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		took := time.Since(start)
		wantError(t, reply{Status: resp.StatusCode, Header: resp.Header, Body: body}, 408, "request_timeout")
		if took > 5*time.Second {
			t.Errorf("a 1 s body timeout answered after %s", took)
		}
		t.Logf("slow body refused after %s", took.Round(time.Millisecond))
	})

	t.Run("slow headers cut", func(t *testing.T) {
		t.Parallel()
		conn := dial(t)
		fmt.Fprintf(conn, "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: ", d.port)
		stop := make(chan struct{})
		defer close(stop)
		go trickle(conn, stop, 'z')
		start := time.Now()
		_, err := io.ReadAll(conn) // ends when padd closes the connection
		took := time.Since(start)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("padd kept a trickling header open for %s", took)
		}
		if took > 15*time.Second {
			t.Errorf("slow headers cut after %s, want about ReadHeaderTimeout (10 s)", took)
		}
		t.Logf("slow headers cut after %s", took.Round(time.Millisecond))
	})

	t.Run("others are served meanwhile", func(t *testing.T) {
		t.Parallel()
		for i := range 20 {
			wantStatus(t, d.do(t, "POST", items, mustJSON(t, map[string]string{"title": fmt.Sprintf("meanwhile %d", i)})), 201)
			time.Sleep(100 * time.Millisecond) // spreads the requests over the slow clients' time
		}
	})

	// A well-behaved body just under the timeout is fine, and keep-alive
	// connections are not cut by the body deadline afterwards.
	t.Run("normal bodies on a reused connection", func(t *testing.T) {
		t.Parallel()
		for i := range 5 {
			wantStatus(t, d.do(t, "POST", items, mustJSON(t, map[string]string{"title": fmt.Sprintf("normal %d", i)})), 201)
			time.Sleep(1200 * time.Millisecond) // longer than the body timeout, between requests
		}
	})
}
