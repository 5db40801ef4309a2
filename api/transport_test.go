package api

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A padd that is slow is told apart from one that is gone, and the error
// quotes the request's path, not its kilobytes of query.
func TestTransportErrorTellsSlowFromGone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	c := NewClient(srv.URL, "t")
	c.HTTP = &http.Client{Timeout: 50 * time.Millisecond}
	long := strings.Repeat("login ", 1000)
	_, err := c.Search(context.Background(), SearchQuery{Query: long, Workspace: "w"})
	te, ok := err.(*TransportError)
	if !ok || !te.Slow() {
		t.Fatalf("a padd that does not answer in time: %T %v", err, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "did not answer in time") || strings.Contains(msg, "login") || len(msg) > 300 {
		t.Fatalf("slow padd's error (%d bytes): %s", len(msg), msg)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	_, err = NewClient(gone, "t").Search(context.Background(), SearchQuery{Query: long, Workspace: "w"})
	te, ok = err.(*TransportError)
	if !ok || te.Slow() {
		t.Fatalf("a padd that is gone: %T %v", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "cannot reach padd") || strings.Contains(msg, "login") || len(msg) > 300 {
		t.Fatalf("gone padd's error (%d bytes): %s", len(msg), msg)
	}
}
