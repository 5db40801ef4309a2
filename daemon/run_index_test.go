package daemon

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
)

// gatedServer is a second server over the harness's store whose search
// index is still being opened (o), as Run's is at start.
func gatedServer(t *testing.T, h *harness, o *indexOpening) *harness {
	srv := NewServer(h.store, nil, testToken, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv.opening = o
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &harness{t: t, srv: srv, ts: ts, store: h.store, token: testToken, clock: h.clock}
}

// searchAsync sends a search from another goroutine; its answer (or the
// failure to get one) comes on the channel.
func searchAsync(g *harness, query string) <-chan reply {
	out := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequest("GET", g.ts.URL+"/api/v1/search?workspace=w&q="+query, nil)
		req.Header.Set("Authorization", "Bearer "+g.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- reply{status: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		out <- reply{status: resp.StatusCode, body: b}
	}()
	return out
}

// While the index opens, health answers and a search waits for the open,
// then answers with what was written before: no refusal, no 5xx.
func TestSearchWaitsForIndexOpen(t *testing.T) {
	h := newHarness(t)
	a := h.task("Opened later")
	o := &indexOpening{done: make(chan struct{}), failed: make(chan struct{})}
	g := gatedServer(t, h, o)
	g.mustJSON("GET", "/api/v1/health", nil, 200, nil)
	g.mustJSON("GET", "/api/v1/workspaces/w/items/"+a.ID, nil, 200, nil) // the store's reads do not wait
	got := searchAsync(g, "opened")
	testwait.Until(t, "the search to wait for the index's open", func() bool { return o.waiting.Load() == 1 })
	o.x = h.srv.index
	close(o.done)
	r := <-got
	if r.status != 200 {
		t.Fatalf("search after the open: %d %s", r.status, r.body)
	}
	var res struct {
		Results []struct {
			Item api.Item `json:"item"`
		} `json:"results"`
	}
	if err := json.Unmarshal(r.body, &res); err != nil || len(res.Results) != 1 || res.Results[0].Item.ID != a.ID {
		t.Fatalf("search after the open found %s (%v), want %s", r.body, err, a.ID)
	}
}

// An index that cannot be opened (padd stops: Run) answers the searches
// that waited for it with Pad's coded envelope, not a hang.
func TestSearchOfUnopenableIndexIsTold(t *testing.T) {
	h := newHarness(t)
	o := &indexOpening{done: make(chan struct{}), failed: make(chan struct{})}
	g := gatedServer(t, h, o)
	got := searchAsync(g, "anything")
	testwait.Until(t, "the search to wait for the index's open", func() bool { return o.waiting.Load() == 1 })
	o.err = errors.New("search index is locked by another process")
	close(o.failed)
	close(o.done)
	r := <-got
	var env api.ErrorEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil || env.Error == nil || env.Error.Code != api.CodeUnavailable ||
		!strings.Contains(env.Error.Message, "locked by another process") {
		t.Fatalf("search of an index that failed to open: %d %s", r.status, r.body)
	}
}
