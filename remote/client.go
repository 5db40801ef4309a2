// Package remote is padd's client of a remote Pad server: the HTTP layer
// the sync engine stands on (clone, push, pull, events). Every call goes
// through one path (Client.send) that keeps the token safe, bounds the
// answer, paces the calls under the server's rate limits and sorts every failure
// into a Kind the engine can act on (errors.go).
//
// The wire types are api's (padd's wire IS Pad's); where a shape the
// Pad of August 2026 sends does not fit an api type (the feeds' cursors,
// capabilities as keys of an object) remote decodes into a type of its own.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/padd/padd/api"
)

const (
	// MaxAnswerBytes caps an answer read into memory: a page of a feed or
	// a list, an item, a comment list.
	MaxAnswerBytes = 32 << 20
	// MaxWholeAnswerBytes caps the answers that hold a whole workspace in
	// one page because the server does not page them (/items-index, and
	// /changes on a server before its paging).
	MaxWholeAnswerBytes = 128 << 20
	// maxErrorBytes caps an error envelope.
	maxErrorBytes = 64 << 10
	// maxProbeBytes caps health and capabilities answers.
	maxProbeBytes = 1 << 20
	// DefaultTimeout bounds a call whose context has no earlier deadline.
	DefaultTimeout = 60 * time.Second
	// maxRedirects bounds a chain of same-origin redirects of a read.
	maxRedirects = 5
)

// Options configure a Client.
type Options struct {
	// Insecure allows plain http to a host that is not loopback (the
	// user's --insecure-http). Without it plain http goes only to
	// 127.0.0.0/8, ::1 or localhost.
	Insecure bool
	// HTTP is the client to send with; nil means one over a clone of
	// http.DefaultTransport (https verified). Its CheckRedirect is
	// replaced by the Client's own.
	HTTP *http.Client
	// Timeout bounds each call whose context has no earlier deadline;
	// 0 means DefaultTimeout. The event stream is bounded by IdleTimeout
	// instead.
	Timeout time.Duration
	// IdleTimeout ends an event stream that sent nothing, not even a
	// keepalive, for this long (a half-open connection after a sleep);
	// 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Limits, when set, paces the calls at these rates whatever the
	// server says. The zero value adapts to the server (pace.go): Pad's
	// limits until it answers, then the limit it states in
	// X-Ratelimit-Limit, none for a server that states none, Pad's again
	// after a 429.
	Limits Limits
	// UserAgent is sent as User-Agent.
	UserAgent string
}

// Client calls one remote Pad server with one token. It is safe for
// concurrent use; all its calls share one pacing bucket.
type Client struct {
	base      *url.URL // scheme, host and path prefix; no trailing slash
	token     secret
	hc        *http.Client
	timeout   time.Duration
	idle      time.Duration
	userAgent string
	pace      *pacer
	caps      atomic.Pointer[Capabilities]
	clock     serverClock
}

// secret holds the token; every way of printing it prints a placeholder.
type secret string

const redacted = "[token]"

func (secret) String() string                 { return redacted }
func (secret) GoString() string               { return redacted }
func (secret) Format(f fmt.State, _ rune)     { _, _ = io.WriteString(f, redacted) }
func (s secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }
func (s secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
func (s secret) redact(text string) string {
	if s == "" {
		return text
	}
	return strings.ReplaceAll(text, string(s), redacted)
}

// New makes a client of the Pad server at baseURL (scheme://host[:port]
// and an optional path prefix, without /api/v1). It refuses a URL that
// would carry the token in the clear to another machine, or in itself.
func New(baseURL, token string, opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(baseURL), "/"))
	if err != nil {
		return nil, fmt.Errorf("remote: bad server URL: %w", err)
	}
	if err := checkBase(u, opts.Insecure); err != nil {
		return nil, err
	}
	if token != "" {
		if err := checkToken(token); err != nil {
			return nil, err
		}
	}
	c := &Client{base: u, token: secret(token), timeout: opts.Timeout, idle: opts.IdleTimeout,
		userAgent: opts.UserAgent, pace: newPacer(opts.Limits)}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.idle <= 0 {
		c.idle = DefaultIdleTimeout
	}
	if c.userAgent == "" {
		c.userAgent = "padd/" + api.Version + " (sync)"
	}
	var hc http.Client
	if opts.HTTP != nil {
		hc = *opts.HTTP
	} else {
		hc.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	hc.CheckRedirect = c.checkRedirect
	c.hc = &hc
	c.caps.Store(&Capabilities{})
	return c, nil
}

// checkBase refuses a base URL the token must not be sent to.
func checkBase(u *url.URL, insecure bool) error {
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("remote: the server URL must be https:// (got scheme %q)", u.Scheme)
	case u.Host == "":
		return errors.New("remote: the server URL has no host")
	case u.User != nil:
		return errors.New("remote: the server URL must not hold a user or password")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("remote: the server URL must not hold a query or fragment")
	case u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()):
		return fmt.Errorf("remote: plain http to %s would send the token in the clear; use https, or allow it with --insecure-http", u.Host)
	}
	return nil
}

// isLoopback reports localhost, 127.0.0.0/8 and ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String describes the client without its token.
func (c *Client) String() string { return "remote.Client(" + c.base.String() + ")" }

// GoString is String, so %#v does not print the fields either.
func (c *Client) GoString() string { return c.String() }

// BaseURL is the server's base URL as given to New.
func (c *Client) BaseURL() string { return c.base.String() }

// Close ends the client's idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// checkRedirect follows a redirect only for a read and only to the same
// scheme, host and port: a redirect elsewhere would carry the token (or
// turn a write into something else), so it is refused.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	if first.Method != http.MethodGet && first.Method != http.MethodHead {
		return errRedirect
	}
	if req.URL.Scheme != first.URL.Scheme || req.URL.Host != first.URL.Host {
		return errRedirect
	}
	if len(via) >= maxRedirects {
		return errors.New("too many redirects")
	}
	return nil
}

var errRedirect = errors.New("redirect refused: the server sent the request to another origin (or redirected a write)")

// request is one call. path is below /api/v1 and already escaped.
type request struct {
	method string
	path   string
	query  url.Values
	body   any
	out    any
	limit  int64  // answer cap; 0 means MaxAnswerBytes
	opKey  string // sent as Idempotency-Key and (by the caller) op_key
	noAuth bool   // health and capabilities: the token is not needed
	header http.Header
	// raw is a body sent as it is (an upload), of rawLen bytes and type
	// rawType, instead of body as JSON.
	raw     io.Reader
	rawLen  int64
	rawType string
	// timeout, when set, replaces the client's for this call (a transfer
	// of many bytes).
	timeout time.Duration
}

func (r *request) write() bool { return r.method != http.MethodGet && r.method != http.MethodHead }

// do is the usual call: JSON body in, JSON answer out, answer header back.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) (http.Header, error) {
	return c.send(ctx, &request{method: method, path: path, query: query, body: body, out: out})
}

// send sends r and decodes its answer into r.out. Every call of the
// package goes through here (the event stream through open, its first
// half).
func (c *Client) send(ctx context.Context, r *request) (http.Header, error) {
	timeout := c.timeout
	if r.timeout > 0 {
		timeout = r.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout) // an earlier deadline of ctx stays
	defer cancel()
	resp, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := r.limit
	if limit <= 0 {
		limit = MaxAnswerBytes
	}
	data, err := readCapped(resp.Body, limit)
	if err != nil {
		k := KindUnreachable
		switch {
		case r.write():
			k = KindOutcomeUnknown // it was accepted; what it made is unknown
		case errors.Is(err, errTooLarge):
			k = KindBadAnswer
		}
		return resp.Header, r.errorf(k, resp.StatusCode, "reading the answer: %w", err)
	}
	if r.out != nil {
		if err := decodeJSON(data, r.out); err != nil {
			k := KindBadAnswer
			if r.write() {
				k = KindOutcomeUnknown // it was accepted; what it made is unknown
			}
			return resp.Header, r.errorf(k, resp.StatusCode, "decoding the answer: %w", err)
		}
	}
	return resp.Header, nil
}

// rateLimitedTries is how many times a request the server's rate limiter
// turned away is sent in all, each after the Retry-After it was given.
const rateLimitedTries = 3

// open sends r through the pacer and answers the response of a 2xx.
// Any other status is read (capped) into an *Error, and the body closed.
// A 429 of the server's rate limiter is waited out and the request sent
// again (the limiter refuses a request before anything handles it, so
// even a create is safe to send again), unless its body is a stream.
func (c *Client) open(ctx context.Context, r *request) (*http.Response, error) {
	for try := 1; ; try++ {
		resp, err := c.openOnce(ctx, r)
		e, ok := kindOf(err)
		if !ok || e.Kind != KindRateLimited || e.Code == api.CodeSSELimitExceeded || r.raw != nil || try == rateLimitedTries {
			return resp, err
		}
	}
}

// openOnce is one try of open.
func (c *Client) openOnce(ctx context.Context, r *request) (*http.Response, error) {
	search := isSearch(r.path)
	if err := c.pace.wait(ctx, search); err != nil {
		return nil, r.errorf(KindCanceled, 0, "waiting for the rate limit: %w", err)
	}
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	var written atomic.Bool
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				written.Store(true)
			}
		},
	}))
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(r, written.Load(), err)
	}
	c.clock.observe(resp.Header)
	if resp.StatusCode != http.StatusTooManyRequests {
		c.pace.observe(resp.StatusCode, resp.Header, search)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, c.statusError(r, resp)
}

// newRequest builds the HTTP request of r.
func (c *Client) newRequest(ctx context.Context, r *request) (*http.Request, error) {
	u := c.base.Scheme + "://" + c.base.Host + c.base.EscapedPath() + "/api/v1" + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var rd io.Reader
	if r.raw != nil {
		rd = r.raw
	} else if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, r.errorf(KindRefused, 0, "encoding the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, rd)
	if err != nil {
		return nil, r.errorf(KindRefused, 0, "%w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	if r.raw != nil {
		req.ContentLength = r.rawLen
		req.Header.Set("Content-Type", r.rawType)
	} else if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.opKey != "" {
		req.Header.Set("Idempotency-Key", r.opKey)
	}
	if !r.noAuth && c.token != "" {
		req.Header.Set("Authorization", "Bearer "+string(c.token))
	}
	return req, nil
}

// transportError sorts a failure with no answer. Before the request was
// written nothing can have happened on the server; after, a write's
// outcome is unknown (a read's is irrelevant: it is simply retried).
func (c *Client) transportError(r *request, wrote bool, err error) error {
	if errors.Is(err, errRedirect) {
		return r.errorf(KindRefused, 0, "%s", c.token.redact(errRedirect.Error()))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the URL; the Error says method and path
	}
	k := KindUnreachable
	if wrote && r.write() {
		k = KindOutcomeUnknown
	}
	return r.errorf(k, 0, "%w", redactErr{err: err, s: c.token})
}

// redactErr is a cause whose text has the token taken out (a transport
// error never holds it, but a proxy's or a TLS library's text is not ours
// to trust); errors.Is still sees through it.
type redactErr struct {
	err error
	s   secret
}

func (e redactErr) Error() string { return e.s.redact(e.err.Error()) }
func (e redactErr) Unwrap() error { return e.err }

// statusError reads an error answer's envelope into an *Error.
func (c *Client) statusError(r *request, resp *http.Response) error {
	e := &Error{Method: r.method, Path: r.path, Status: resp.StatusCode}
	data, readErr := readCapped(resp.Body, maxErrorBytes)
	var env struct {
		Error *struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if readErr == nil && json.Unmarshal(data, &env) == nil && env.Error != nil {
		e.Code = c.token.redact(env.Error.Code)
		e.Message = c.token.redact(env.Error.Message)
		e.Details = redactValue(c.token, env.Error.Details).(map[string]any)
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	e.Kind = classify(resp.StatusCode, e.Code, r.write())
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if e.Kind == KindRateLimited {
		if e.RetryAfter <= 0 {
			e.RetryAfter = time.Second // Pad's own Retry-After
		}
		if e.Code != api.CodeSSELimitExceeded {
			c.pace.tooMany(resp.Header, isSearch(r.path))
		}
		c.pace.pause(e.RetryAfter)
	}
	return e
}

// isSearch reports a call of search's own bucket.
func isSearch(path string) bool { return strings.HasSuffix(path, "/search") }

// redactValue copies a decoded JSON value with the token taken out of
// every string in it.
func redactValue(s secret, v any) any {
	switch v := v.(type) {
	case string:
		return s.redact(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = redactValue(s, x)
		}
		return out
	case map[string]any:
		if v == nil {
			return map[string]any(nil)
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[s.redact(k)] = redactValue(s, x)
		}
		return out
	}
	return v
}

var errTooLarge = errors.New("the answer is larger than its cap")

// readCapped reads all of rd, refusing more than limit bytes.
func readCapped(rd io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, limit)
	}
	return data, nil
}

// decodeJSON decodes one JSON value into out, refusing trailing data.
func decodeJSON(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(out); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// Path helpers: every variable segment is escaped.
func wsPath(ws string) string { return "/workspaces/" + url.PathEscape(ws) }
func itemPath(ws, ref string) string {
	return wsPath(ws) + "/items/" + url.PathEscape(ref)
}
