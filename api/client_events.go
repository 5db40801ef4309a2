package api

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// SSEFrame is one server-sent event as padd writes it: an optional id,
// an event name and one line of JSON data.
type SSEFrame struct {
	ID    string
	HasID bool // an "id:" field was present (an empty one resets the client's position)
	Event string
	Data  []byte
}

// StreamEvents follows padd's event stream until ctx ends, the server
// closes it, or fn returns an error (which is returned). workspace ""
// follows every workspace (GET /events/stream), else one (GET
// /events?workspace=). lastEventID resumes after that event. The
// stream is not bound by the client's request timeout.
func (c *Client) StreamEvents(ctx context.Context, workspace, lastEventID string, fn func(SSEFrame) error) error {
	u := c.BaseURL + "/api/v1/events/stream"
	if workspace != "" {
		u = c.BaseURL + "/api/v1/events?" + url.Values{"workspace": {workspace}}.Encode()
	}
	return c.followSSE(ctx, u, lastEventID, fn)
}

// StreamArmed is StreamEvents on the all-workspaces stream as an armed
// session: it also hears the user's pushes (kind push notifications).
func (c *Client) StreamArmed(ctx context.Context, lastEventID string, fn func(SSEFrame) error) error {
	return c.followSSE(ctx, c.BaseURL+"/api/v1/events/stream?armed=true", lastEventID, fn)
}

// followSSE opens the event stream at u (resuming after lastEventID
// when set) and calls fn per event until ctx ends, the server closes
// it, or fn returns an error (which is returned). The stream is not
// bound by the client's request timeout.
func (c *Client) followSSE(ctx context.Context, u, lastEventID string, fn func(SSEFrame) error) error {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return err
	}
	c.setHeaders(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	hc := &http.Client{Transport: c.httpClient().Transport} // no Timeout: a stream lasts
	resp, err := hc.Do(req)
	if err != nil {
		return &TransportError{Err: err}
	}
	defer resp.Body.Close()
	c.checkVersion(resp.Header.Get(VersionHeader))
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return decodeError(resp.StatusCode, data)
	}
	err = readSSE(resp.Body, fn)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// readSSE parses an event stream (the subset padd writes: id, event,
// data, comment lines) and calls fn per event.
func readSSE(r io.Reader, fn func(SSEFrame) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var f SSEFrame
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if f.Event != "" || data.Len() > 0 {
				f.Data = append([]byte(nil), data.Bytes()...)
				if err := fn(f); err != nil {
					return err
				}
			}
			f, data = SSEFrame{}, bytes.Buffer{}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // keepalive comment
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			f.ID, f.HasID = value, true
		case "event":
			f.Event = value
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
		}
	}
	if err := sc.Err(); err != nil {
		return &TransportError{Err: err}
	}
	return io.ErrUnexpectedEOF // the server ended the stream
}
