package remote

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/padd/padd/api"
)

// answerTransport answers every request with one 200 and a body, in
// memory.
type answerTransport struct{ body []byte }

func (a answerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(a.body)), Request: r}, nil
}

// answering is a client whose every request is answered 200 with body.
func answering(t testing.TB, body []byte) *Client {
	c, err := New("https://pad.example.com", testToken, Options{
		HTTP:   &http.Client{Transport: answerTransport{body: body}},
		Limits: Limits{General: rate.Inf, GeneralBurst: 1, Search: rate.Inf, SearchBurst: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bounded runs f, which reads an answer of size bytes, and fails the
// test when it took over 2 s or allocated more than a small multiple of
// the size (read once, decoded once) plus a request's own fixed cost.
func bounded(t *testing.T, size int, f func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > 2*time.Second {
		t.Errorf("reading %d bytes took %v", size, elapsed)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64*uint64(size)+256<<10 {
		t.Errorf("reading %d bytes allocated %d", size, alloc)
	}
}

// FuzzDecodeItemAnswer sends GetItem's answer through the whole answer
// path: any body is an item or a bad answer (never a panic, never another
// kind), decoded in time and memory bounded by its size.
func FuzzDecodeItemAnswer(f *testing.F) {
	f.Add([]byte(observedItem))
	f.Add([]byte(`{"fields":{"status":"open"},"tags":["a"]}`))
	f.Add([]byte(`{"updated_at":"2026-11-30T03:56:41.123456789+02:00","deleted_at":null,"parent_id":"","item_number":null}`))
	f.Add([]byte(`{"seq":1e400,"title":"\ud800"}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte(`{"relation_targets":{"a":{"b":{"c":[1,2,3]}}},"title":"x"} trailing`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := answering(t, body)
		var it *api.Item
		var err error
		bounded(t, len(body), func() { it, err = c.GetItem(context.Background(), "w", "TASK-1") })
		if err != nil {
			if !IsBadAnswer(err) {
				t.Fatalf("a bad body = %v, want a bad answer", err)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Fatal("the error holds the token")
			}
			return
		}
		if n := len(it.Title) + len(it.Content) + len(it.Fields) + len(it.Tags); n > len(body) {
			t.Errorf("an item of %d bytes of text from %d bytes", n, len(body))
		}
	})
}
