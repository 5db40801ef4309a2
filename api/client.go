package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Client talks to padd's API. It is safe for concurrent use.
type Client struct {
	BaseURL string // http://127.0.0.1:<port>
	Token   string
	// Agent, when set, makes writes agent writes under this name
	// (X-Pad-Agent); Source names the door (X-Padd-Source).
	Agent  string
	Source string
	Worker string
	HTTP   *http.Client
	// OnVersionMismatch is called once when padd's version differs from
	// this build's.
	OnVersionMismatch func(server, client string)

	versionOnce sync.Once
}

// NewClient makes a client for a padd at baseURL.
func NewClient(baseURL, token string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Token: token,
		HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Response is a decoded answer's metadata.
type Response struct {
	Status  int
	Header  http.Header
	HasMore bool
}

// Do sends one request. body (if not nil) is sent as JSON; out (if not
// nil) receives the JSON answer. A status >= 400 comes back as *Error.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) (*Response, error) {
	return c.DoHeaders(ctx, method, path, query, nil, body, out)
}

// DoHeaders is Do with extra request headers.
func (c *Client) DoHeaders(ctx context.Context, method, path string, query url.Values, hdr http.Header, body, out any) (*Response, error) {
	u := c.BaseURL + "/api/v1" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.setHeaders(req.Header)
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, &TransportError{Err: err}
	}
	defer resp.Body.Close()
	c.checkVersion(resp.Header.Get(VersionHeader))
	r := &Response{Status: resp.StatusCode, Header: resp.Header, HasMore: resp.Header.Get("X-Pad-Has-More") == "true"}
	if a, ok := resp.Body.(*Answer); ok && resp.StatusCode < 400 && a.handTo(out) {
		return r, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return r, &TransportError{Err: err}
	}
	if resp.StatusCode >= 400 {
		return r, decodeError(resp.StatusCode, data)
	}
	if vb, ok := out.(*Verbatim); ok {
		out = &vb.V
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(out); err != nil {
			return r, fmt.Errorf("decode answer of %s %s: %w", method, path, err)
		}
	}
	return r, nil
}

func (c *Client) setHeaders(h http.Header) {
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	if c.Agent != "" {
		h.Set("X-Pad-Agent", c.Agent)
	}
	if c.Source != "" {
		h.Set("X-Padd-Source", c.Source)
	}
	if c.Worker != "" {
		h.Set("X-Pad-Worker", c.Worker)
	}
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) checkVersion(server string) {
	if server == "" || server == Version || c.OnVersionMismatch == nil {
		return
	}
	c.versionOnce.Do(func() { c.OnVersionMismatch(server, Version) })
}

func decodeError(status int, data []byte) error {
	var env ErrorEnvelope
	if json.Unmarshal(data, &env) == nil && env.Error != nil && env.Error.Message != "" {
		env.Error.Status = status
		return env.Error
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return &Error{Code: "http_" + fmt.Sprint(status), Message: fmt.Sprintf("padd answered %d: %s", status, msg), Status: status}
}

// TransportError means the request did not get an answer.
type TransportError struct{ Err error }

func (e *TransportError) Error() string {
	var ue *url.Error
	cause, where := e.Err, ""
	if errors.As(e.Err, &ue) {
		cause, where = ue.Err, ue.Op+" "+shortURL(ue.URL)+": "
	}
	if e.Slow() {
		return "padd is running but did not answer in time: " + where + "no answer before the deadline"
	}
	return "cannot reach padd: " + where + cause.Error()
}

func (e *TransportError) Unwrap() error { return e.Err }

// Slow says padd was reached but did not answer in time (a timeout),
// rather than gone (refused, reset).
func (e *TransportError) Slow() bool {
	var ne interface{ Timeout() bool }
	return errors.Is(e.Err, context.DeadlineExceeded) || (errors.As(e.Err, &ne) && ne.Timeout())
}

// shortURL is a request's URL as an error quotes it: its path, without
// the query (a search's can be kilobytes), and cut.
func shortURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		raw = "(a request)"
	} else {
		raw = u.EscapedPath()
		if u.RawQuery != "" {
			raw += "?…"
		}
	}
	if len(raw) > 120 {
		raw = raw[:119] + "…"
	}
	return raw
}

// IsTransport reports whether err means padd could not be reached.
func IsTransport(err error) bool {
	var t *TransportError
	return errors.As(err, &t)
}

// ErrorCode is the Pad code of an API error, "" for other errors.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// IsNotFound reports a not_found answer.
func IsNotFound(err error) bool { return ErrorCode(err) == CodeNotFound }

// IsUpdateConflict reports an update_conflict answer (a stale expected_seq).
func IsUpdateConflict(err error) bool { return ErrorCode(err) == CodeUpdateConflict }

// IsUnauthorized reports a refused token.
func IsUnauthorized(err error) bool { return ErrorCode(err) == CodeUnauthorized }

// PathEscape escapes one path segment (a slug, ref or id).
func PathEscape(s string) string { return url.PathEscape(s) }
