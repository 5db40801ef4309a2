package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/padd/padd/api"
)

const (
	// DefaultIdleTimeout ends an event stream silent for this long: Pad
	// sends keepalive comments well within it.
	DefaultIdleTimeout = 2 * time.Minute
	// maxEventLine bounds one line of the stream.
	maxEventLine = 64 << 10
	// maxEventData bounds one event's data.
	maxEventData = 1 << 20
)

// Event is one event of a workspace's stream.
type Event struct {
	// ID is the stream's last event id when the event came: what to send
	// as lastEventID to resume after it. sync_required sets it to "".
	ID string
	// Name is the event's name: connected, item_created, item_updated,
	// comment_created, ..., sync_required ("message" when none was sent).
	Name string
	// Data is the event's data decoded (for connected, Workspace and
	// WorkspaceID); zero when the data is not a JSON object.
	Data api.Event
	// Reason is sync_required's reason.
	Reason string
	// Raw is the data as it came.
	Raw json.RawMessage
}

// SyncRequired reports that the server cannot replay the events since
// the id asked for: the client must resync from the feeds.
func (e *Event) SyncRequired() bool { return e.Name == "sync_required" }

// Events follows a workspace's event stream from lastEventID ("" for
// from now). The connection opens when the loop starts and closes when
// it stops. Every event is yielded with a nil error; the stream always
// ends with one non-nil *Error: KindUnreachable when the connection
// dropped, went silent for the idle timeout or the server ended it,
// KindCanceled when ctx ended, KindBadAnswer for a line or event over
// its bound, or the refusal of the request itself (401, 404, 429, ...).
// No goroutine outlives the loop.
func (c *Client) Events(ctx context.Context, ws, lastEventID string) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		if err := c.events(ctx, ws, lastEventID, yield); err != nil {
			yield(nil, err)
		}
	}
}

// errStopped says the loop over Events stopped; nothing more is yielded.
var errStopped = errors.New("stopped")

func (c *Client) events(ctx context.Context, ws, lastEventID string, yield func(*Event, error) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var idle atomic.Bool
	timer := time.AfterFunc(c.idle, func() { idle.Store(true); cancel() })
	defer timer.Stop()
	r := &request{method: "GET", path: "/events", query: url.Values{"workspace": {ws}},
		header: http.Header{"Accept": {"text/event-stream"}}}
	if lastEventID != "" && !strings.ContainsAny(lastEventID, "\r\n\x00") {
		r.header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := c.open(ctx, r)
	if err != nil {
		if idle.Load() {
			return r.errorf(KindUnreachable, 0, "no answer for %s", c.idle)
		}
		return err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return r.errorf(KindBadAnswer, resp.StatusCode, "the answer is %q, not an event stream", ct)
	}
	err = readSSE(resp.Body, func() { timer.Reset(c.idle) }, func(ev *Event) bool { return yield(ev, nil) })
	switch {
	case errors.Is(err, errStopped):
		return nil
	case idle.Load():
		return r.errorf(KindUnreachable, resp.StatusCode, "no event or keepalive for %s", c.idle)
	case ctx.Err() != nil:
		return r.errorf(KindCanceled, resp.StatusCode, "%w", ctx.Err())
	case errors.Is(err, errLineTooLong), errors.Is(err, errEventTooLarge):
		return r.errorf(KindBadAnswer, resp.StatusCode, "%w", err)
	case err == nil:
		return r.errorf(KindUnreachable, resp.StatusCode, "the server ended the stream")
	}
	return r.errorf(KindUnreachable, resp.StatusCode, "%w", redactErr{err: err, s: c.token})
}

var (
	errLineTooLong   = fmt.Errorf("a line of the stream is longer than %d bytes", maxEventLine)
	errEventTooLarge = fmt.Errorf("an event's data is larger than %d bytes", maxEventData)
)

// readSSE parses a text/event-stream (the WHATWG rules: lines end with
// CRLF, LF or CR; ":" starts a comment; a blank line dispatches the
// event if it has data; "id" sets the last event id, an empty one
// clears it) and hands each event to emit until emit says stop
// (errStopped). line is called on every line, keepalives included. It
// returns nil at the end of the stream.
func readSSE(rd io.Reader, line func(), emit func(*Event) bool) error {
	lr := lineReader{br: bufio.NewReader(rd)}
	var (
		lastID string
		name   string
		data   []byte
		has    bool
	)
	for {
		l, err := lr.next()
		if err == io.EOF {
			return nil // an event not ended by a blank line is dropped
		}
		if err != nil {
			return err
		}
		line()
		if len(l) == 0 {
			if has {
				if !emit(newEvent(lastID, name, data)) {
					return errStopped
				}
			}
			name, data, has = "", data[:0], false
			continue
		}
		if l[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(l, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if len(data)+len(value)+1 > maxEventData {
				return errEventTooLarge
			}
			if has {
				data = append(data, '\n')
			}
			data, has = append(data, value...), true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				lastID = string(value)
			}
		}
	}
}

// lineReader splits a stream at CRLF, LF or CR, in time linear in its
// size however it arrives, refusing a line over maxEventLine.
type lineReader struct {
	br        *bufio.Reader
	buf       []byte
	pendingCR bool // the last line ended with CR: an LF next is its end too
}

// next returns the next line (valid until the next call), or io.EOF
// when the stream ends, a line cut off by the end included.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		b, err := lr.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if lr.pendingCR {
			lr.pendingCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return lr.buf, nil
		case '\r':
			lr.pendingCR = true
			return lr.buf, nil
		}
		if len(lr.buf) >= maxEventLine {
			return nil, errLineTooLong
		}
		lr.buf = append(lr.buf, b)
	}
}

// newEvent builds the Event dispatched with these buffers.
func newEvent(id, name string, data []byte) *Event {
	if name == "" {
		name = "message"
	}
	ev := &Event{ID: id, Name: name, Raw: json.RawMessage(bytes.Clone(data))}
	var d struct {
		api.Event
		Reason string `json:"reason"`
	}
	if json.Unmarshal(data, &d) == nil {
		ev.Data, ev.Reason = d.Event, d.Reason
	}
	return ev
}
