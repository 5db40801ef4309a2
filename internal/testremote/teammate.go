package testremote

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/padd/padd/api"
)

// A teammate: another user of the same Pad server. The second padd has
// one user, so the proxy plays the part: what a teammate's client makes
// through it is remembered by id, and every answer says another user
// wrote it, as Pad's user_id and author do (a comment written with a
// teammate's token carries the teammate's user_id).

// teammateHeader marks a request of the teammate's client.
const teammateHeader = "X-Testremote-Teammate"

// Teammate's user_id and name in the remote's answers.
const (
	TeammateUserID = "teammate"
	TeammateName   = "Teammate"
)

// Teammate is a client writing through the proxy as another user of the
// remote: no rate limit and no fault hook hold it (it is another
// laptop), and what it creates answers with the teammate's user_id.
func (r *Remote) Teammate() *api.Client {
	if r.proxy == nil {
		panic("testremote: Teammate needs the proxy (Options.Direct is set)")
	}
	c := api.NewClient(r.proxy.url(), r.token)
	c.HTTP = &http.Client{Transport: teammateTransport{r.proxy.tr}}
	return c
}

type teammateTransport struct{ rt http.RoundTripper }

func (t teammateTransport) RoundTrip(q *http.Request) (*http.Response, error) {
	q = q.Clone(q.Context())
	q.Header.Set(teammateHeader, "1")
	return t.rt.RoundTrip(q)
}

// teammateAnswer remembers what a teammate's write made, and says in any
// answer that the teammate wrote what it made.
func (p *proxy) teammateAnswer(resp *http.Response) error {
	q := resp.Request
	mine := q.Header.Get(teammateHeader) != "" && q.Method == http.MethodPost && resp.StatusCode < 300
	p.mu.Lock()
	known := len(p.teammates) > 0
	p.mu.Unlock()
	if !mine && !known || !isJSON(resp.Header.Get("Content-Type")) {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerRewriteBytes+1))
	resp.Body.Close()
	if err != nil {
		return err
	}
	if v, err := decodeAny(raw); err == nil && len(raw) <= maxAnswerRewriteBytes {
		p.mu.Lock()
		if mine {
			if m, ok := v.(map[string]any); ok {
				if id, _ := m["id"].(string); id != "" {
					p.teammates[id] = true
				}
			}
		}
		forEachObject(v, func(m map[string]any) {
			if id, _ := m["id"].(string); p.teammates[id] {
				m["user_id"], m["author"] = TeammateUserID, TeammateName
			}
		})
		p.mu.Unlock()
		if out, err := encodeAny(v); err == nil {
			raw = out
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return nil
}

// isTeammate says a request is the teammate's.
func isTeammate(r *http.Request) bool { return r.Header.Get(teammateHeader) != "" }
