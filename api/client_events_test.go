package api

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadSSE(t *testing.T) {
	stream := "event: connected\ndata: {\"workspace\":\"w\"}\n\n" +
		": keepalive\n\n" +
		"id: 7\nevent: item_created\ndata: {\"id\":7}\n\n" +
		"id: \nevent: sync_required\ndata: {\"reason\":\"x\"}\n\n" +
		"data: a\ndata: b\n\n" +
		"id: 9\nevent: partial"
	var got []SSEFrame
	err := readSSE(strings.NewReader(stream), func(f SSEFrame) error { got = append(got, f); return nil })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("end of stream = %v, want io.ErrUnexpectedEOF", err)
	}
	want := []SSEFrame{
		{Event: "connected", Data: []byte(`{"workspace":"w"}`)},
		{ID: "7", HasID: true, Event: "item_created", Data: []byte(`{"id":7}`)},
		{ID: "", HasID: true, Event: "sync_required", Data: []byte(`{"reason":"x"}`)},
		{Data: []byte("a\nb")},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d frames %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.HasID != w.HasID || g.Event != w.Event || string(g.Data) != string(w.Data) {
			t.Errorf("frame %d = %+v (%s), want %+v (%s)", i, g, g.Data, w, w.Data)
		}
	}
	stop := errors.New("stop")
	if err := readSSE(strings.NewReader(stream), func(SSEFrame) error { return stop }); err != stop {
		t.Errorf("fn's error not returned: %v", err)
	}
}
