package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// sse writes raw stream text and flushes it.
func sse(w http.ResponseWriter, text string) {
	_, _ = io.WriteString(w, text)
	w.(http.Flusher).Flush()
}

func sseHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	w.(http.Flusher).Flush()
}

// collect runs the loop over Events to its end.
func collect(t *testing.T, c *Client, ctx context.Context, last string) ([]*Event, error) {
	t.Helper()
	var evs []*Event
	for ev, err := range c.Events(ctx, "sync-peer", last) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("the stream ended without an error")
	return nil, nil
}

func TestEventsReadsPadsStream(t *testing.T) {
	f := newFakePad(t)
	f.handle("GET /api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("workspace") != "sync-peer" || r.Header.Get("Last-Event-ID") != "14" || r.Header.Get("Accept") != "text/event-stream" {
			http.Error(w, "bad request", 400)
			return
		}
		sseHeader(w)
		sse(w, "event: connected\ndata: {\"workspace\":\"sync-peer\",\"workspace_id\":\"w1\"}\n\n")
		sse(w, ": keepalive\n\n")
		sse(w, "id: 15\r\nevent: item_updated\r\ndata: {\"id\":15,\"type\":\"item_updated\",\"workspace_id\":\"w1\",\"item_id\":\"i1\",\"collection\":\"tasks\",\"title\":\"Task 2\",\"timestamp\":1796011031255,\"seq\":12}\r\n\r\n")
		sse(w, "event: comment_created\rdata: {\"type\":\"comment_created\",\r\rid: \nevent: sync_required\ndata: {\"reason\":\"This instance cannot vouch for events since your last ID. Full sync required.\"}\n\n")
	})
	c := f.client(Options{})
	evs, err := collect(t, c, context.Background(), "14")
	if !IsUnreachable(err) {
		t.Errorf("the stream ended with %v, want unreachable", err)
	}
	want := []struct{ name, id string }{{"connected", ""}, {"item_updated", "15"}, {"comment_created", "15"}, {"sync_required", ""}}
	if len(evs) != len(want) {
		t.Fatalf("got %d events, want %d", len(evs), len(want))
	}
	for i, w := range want {
		if evs[i].Name != w.name || evs[i].ID != w.id {
			t.Errorf("event %d = %s id %q, want %s id %q", i, evs[i].Name, evs[i].ID, w.name, w.id)
		}
	}
	if evs[0].Data.WorkspaceID != "w1" || evs[0].Data.Workspace != "sync-peer" {
		t.Errorf("connected = %+v", evs[0].Data)
	}
	if d := evs[1].Data; d.ItemID != "i1" || d.Seq != 12 || d.Type != "item_updated" {
		t.Errorf("item_updated = %+v", d)
	}
	if evs[2].Data.Type != "" || string(evs[2].Raw) != `{"type":"comment_created",` {
		t.Errorf("an event whose data is not JSON = %+v (raw %s)", evs[2].Data, evs[2].Raw)
	}
	if !evs[3].SyncRequired() || !strings.Contains(evs[3].Reason, "Full sync required") {
		t.Errorf("sync_required = %+v", evs[3])
	}
}

func TestEventsStopsWhenTheLoopStops(t *testing.T) {
	gone := make(chan struct{})
	f := newFakePad(t)
	f.handle("GET /api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		sseHeader(w)
		for i := 0; ; i++ {
			select {
			case <-r.Context().Done():
				close(gone)
				return
			default:
			}
			sse(w, "data: {}\n\n")
			time.Sleep(5 * time.Millisecond) // pacing of the fake's output, not a wait for an outcome
		}
	})
	c := f.client(Options{})
	n := 0
	for _, err := range c.Events(context.Background(), "sync-peer", "") {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server still streams after the loop stopped")
	}
}

func TestEventsEndsASilentStream(t *testing.T) {
	f := newFakePad(t)
	f.handle("GET /api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		sseHeader(w)
		if r.URL.Query().Get("workspace") == "chatty" {
			// keepalives only, each well within the idle timeout, then an event
			for range 15 {
				sse(w, ": keepalive\n")
				time.Sleep(100 * time.Millisecond) // the fake's cadence, not a wait for an outcome
			}
			sse(w, "event: item_created\ndata: {}\n\n")
		}
		<-r.Context().Done()
	})
	c := f.client(Options{IdleTimeout: time.Second}) // shorter than the keepalives' 1.5 s, far longer than one gap
	evs, err := collect(t, c, context.Background(), "")
	if !IsUnreachable(err) || !strings.Contains(err.Error(), "no event or keepalive") || len(evs) != 0 {
		t.Errorf("a silent stream ended with %v after %d events, want unreachable (idle)", err, len(evs))
	}
	var got []string
	for ev, err := range c.Events(context.Background(), "chatty", "") {
		if err != nil {
			if !IsUnreachable(err) {
				t.Errorf("chatty stream ended with %v", err)
			}
			break
		}
		got = append(got, ev.Name)
	}
	if len(got) != 1 || got[0] != "item_created" {
		t.Errorf("keepalives did not keep the stream: events %v", got)
	}
}

func TestEventsErrors(t *testing.T) {
	f := newFakePad(t)
	f.handle("GET /api/v1/events", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("workspace") {
		case "long":
			sseHeader(w)
			sse(w, "data: "+strings.Repeat("x", maxEventLine)+"\n\n")
		case "json":
			writeJSON(w, 200, map[string]any{})
		case "wait":
			sseHeader(w)
			sse(w, "data: {}\n\n")
			<-r.Context().Done()
		}
	})
	c := f.client(Options{})
	ctx := context.Background()
	one := func(ws string, ctx context.Context) error {
		for _, err := range c.Events(ctx, ws, "") {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := one("long", ctx); !IsBadAnswer(err) {
		t.Errorf("an over-long line = %v, want bad answer", err)
	}
	if err := one("json", ctx); !IsBadAnswer(err) {
		t.Errorf("a JSON answer = %v, want bad answer", err)
	}
	bad := mustNewToken(t, f.srv.URL, "pad_wrong")
	for _, err := range bad.Events(ctx, "sync-peer", "") {
		if !IsTokenRefused(err) {
			t.Errorf("a refused token = %v", err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	for ev, err := range c.Events(cctx, "wait", "") {
		if ev != nil {
			cancel()
			continue
		}
		if e, ok := kindOf(err); !ok || e.Kind != KindCanceled || !errors.Is(err, context.Canceled) {
			t.Errorf("a canceled stream = %v", err)
		}
	}
	cancel()
}

func TestReadSSE(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // name/id/data
		err  error
	}{
		{"data: a\n\n", []string{"message//a"}, nil},
		{"data:a\ndata: b\n\n", []string{"message//a\nb"}, nil},
		{"event: x\n\n", nil, nil}, // no data: not dispatched
		{"id: 3\n\ndata: a\n\n", []string{"message/3/a"}, nil},
		{"id: 3\ndata: a\n\nid\ndata: b\n\n", []string{"message/3/a", "message//b"}, nil},
		{"data: a\r\n\r\ndata: b\r\rdata: c\n\n", []string{"message//a", "message//b", "message//c"}, nil},
		{": keepalive\n\n:\n\n", nil, nil},
		{"data: a\n", nil, nil}, // an event cut off at the end is dropped
		{"event: e\ndata:  two\nretry: 5\nbogus\n\n", []string{"e// two"}, nil},
		{"id: a\x00b\ndata: x\n\n", []string{"message//x"}, nil},
		{"data: " + strings.Repeat("y", maxEventLine) + "\n\n", nil, errLineTooLong},
	} {
		for _, rd := range []func(string) io.Reader{
			func(s string) io.Reader { return strings.NewReader(s) },
			func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		} {
			var got []string
			lines := 0
			err := readSSE(rd(tc.in), func() { lines++ }, func(ev *Event) bool {
				got = append(got, ev.Name+"/"+ev.ID+"/"+string(ev.Raw))
				return true
			})
			if tc.err == errLineTooLong && !errors.Is(err, errLineTooLong) || tc.err == nil && err != nil {
				t.Errorf("%q: err %v, want %v", tc.in, err, tc.err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("%q: events %q, want %q", tc.in, got, tc.want)
			}
		}
	}
}

// FuzzReadSSE: any input parses the same whole or a byte at a time, in
// time linear in its size and memory bounded by it and the caps.
func FuzzReadSSE(f *testing.F) {
	for _, s := range []string{
		"event: connected\ndata: {\"workspace\":\"w\"}\n\n",
		"id: 15\r\nevent: item_updated\r\ndata: {\"id\":15}\r\n\r\n",
		"id: \nevent: sync_required\ndata: {\"reason\":\"r\"}\n\n",
		": keepalive\r\r\ndata: a\rdata: b\r\r",
		"data\n\ndata:\n\nid\x00\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		parse := func(rd io.Reader) ([]string, int, error) {
			var got []string
			size := 0
			err := readSSE(rd, func() {}, func(ev *Event) bool {
				if len(ev.Raw) > maxEventData || len(ev.ID) > maxEventLine || len(ev.Name) > maxEventLine {
					t.Fatalf("an event over its bounds: data %d, id %d, name %d", len(ev.Raw), len(ev.ID), len(ev.Name))
				}
				size += len(ev.Raw)
				got = append(got, ev.Name+"\x00"+ev.ID+"\x00"+string(ev.Raw))
				return true
			})
			return got, size, err
		}
		start := time.Now()
		whole, size, err1 := parse(bytes.NewReader(in))
		bytewise, _, err2 := parse(iotest.OneByteReader(bytes.NewReader(in)))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("parsing %d bytes took %v", len(in), d)
		}
		if (err1 == nil) != (err2 == nil) || strings.Join(whole, "\x01") != strings.Join(bytewise, "\x01") {
			t.Errorf("whole %q (%v) != byte at a time %q (%v)", whole, err1, bytewise, err2)
		}
		if size > len(in) || len(whole) > bytes.Count(in, []byte("\n"))+bytes.Count(in, []byte("\r")) {
			t.Errorf("%d events of %d bytes from %d bytes of input", len(whole), size, len(in))
		}
	})
}
