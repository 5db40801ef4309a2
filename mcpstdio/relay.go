package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/padd/padd/api"
	"github.com/padd/padd/padtoml"
)

// Relay is `padd mcp-serve`: it hands the agent's session to the running
// padd, which serves it in its own process (Relayed), and copies
// the messages both ways. A round trip then costs one JSON hop, not two,
// and this process holds nothing but the copy.
//
// padd may stop while the agent runs (an upgrade, `padctl daemon
// restart`). The relay reconnects on the agent's next message, starting
// padd when none answers, and repeats what the session was told before
// (initialize, notifications/initialized, the last pad_set_workspace) so
// the agent does not notice; its worker id, and so its leases, stay the
// same. A call padd was running when it stopped is answered with a tool
// error saying its outcome is unknown.
//
// When padd cannot be reached at all, or is a padd from before relayed
// sessions, the session is served here instead (Serve), as before.
func Relay(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) error {
	opts = opts.withDefaults()
	r := &relay{opts: opts, out: &lockedWriter{w: stdout}, log: newLogger(opts),
		sess: api.MCPSession{Dir: opts.Dir, Workspace: opts.Getenv("PAD_WORKSPACE"), Worker: opts.Worker}}
	l, err := r.dial(ctx)
	if err != nil {
		if api.IsNotFound(err) {
			r.log.Info("this padd serves no relayed MCP sessions; serving the agent here", "err", err)
		} else {
			r.log.Warn("padd could not be reached; serving the agent here, and each call says why padd is missing", "err", err)
		}
		return Serve(ctx, stdin, stdout, opts)
	}
	r.link = l
	return r.run(ctx, stdin)
}

// Relayed returns what serves the sessions relays hand to padd (the
// daemon's MCPServe): rw is the relay's connection, client reaches padd's
// API in process, and sess says where the agent runs. findPadToml is
// shared by the sessions (nil: padtoml.Find), so that what one learned
// of a directory serves the others.
func Relayed(findPadToml func(dir string) (*padtoml.File, error)) func(ctx context.Context, rw io.ReadWriter, client *api.Client, sess api.MCPSession, log *slog.Logger) error {
	return func(ctx context.Context, rw io.ReadWriter, client *api.Client, sess api.MCPSession, log *slog.Logger) error {
		dir := sess.Dir
		if dir == "" {
			dir = string(filepath.Separator) // not padd's own directory: it is not the agent's
		}
		return Serve(ctx, rw, rw, Options{
			Connect: func(context.Context) (*api.Client, error) { return client, nil },
			Dir:     dir,
			Getenv: func(k string) string {
				if k == "PAD_WORKSPACE" {
					return sess.Workspace
				}
				return ""
			},
			FindPadToml: findPadToml,
			Worker:      sess.Worker,
			Logger:      log,
		})
	}
}

type relay struct {
	opts Options
	sess api.MCPSession
	out  *lockedWriter
	log  *slog.Logger

	linkMu sync.Mutex
	link   *link // nil once lost, until the next message

	// dialMu is held while a new connection is made and told the
	// session's story: what a new padd is told before the agent's next
	// message.
	dialMu                                sync.Mutex
	initialize, initialized, setWorkspace []byte
	replays                               int
}

// link is one connection to padd.
type link struct {
	conn *api.MCPConn
	done chan struct{} // closed when padd's side ends

	mu      sync.Mutex
	pending map[string]string      // the agent's requests padd has not answered: id -> method
	replay  map[string]chan []byte // the relay's own requests, by id
}

// relayMsg is what the relay reads of a message.
type relayMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// idKey is a request id as a map key: the answer's id is re-encoded by
// padd, so the raw bytes may differ ("\u0041" comes back "A").
func idKey(raw json.RawMessage) (string, bool) {
	if key, ok := plainIDKey(raw); ok {
		return key, true
	}
	return decodeIDKey(raw)
}

// decodeIDKey is idKey by a full decode: an id with escapes, or anything
// that may not be an id at all.
func decodeIDKey(raw json.RawMessage) (string, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if len(raw) == 0 || d.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case json.Number:
		return "n" + v.String(), true
	}
	return "", false
}

func (r *relay) dial(ctx context.Context) (*link, error) {
	c, err := r.opts.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.OnVersionMismatch = func(server, client string) {
		r.log.Warn("padd and padctl versions differ; `padctl daemon restart` runs the padd that matches", "padd", server, "padctl", client)
	}
	conn, err := c.DialMCP(ctx, r.sess)
	if err != nil {
		return nil, err
	}
	l := &link{conn: conn, done: make(chan struct{}), pending: map[string]string{}, replay: map[string]chan []byte{}}
	go r.fromPadd(l)
	return l, nil
}

// run copies the agent's messages to padd until stdin ends, then lets
// padd answer what it has.
func (r *relay) run(ctx context.Context, stdin io.Reader) error {
	// A plain tools/list is answered here, as padd would: the catalog is
	// this binary's, a large answer that need not cross padd's socket as
	// well as the pipe. Only while padd is this same version, whose catalog it is.
	catalog := sync.OnceValues(func() ([]byte, error) { return NewServer(r.opts).toolsListResult() })
	in := newListAnswerer(func() ([]byte, error) {
		if !r.sameVersion() {
			return nil, errors.New("padd is another version; its catalog answers")
		}
		return catalog()
	}, stdin, r.out)
	lines := make(chan error, 1)
	go func() {
		for {
			line, err := in.next()
			if len(bytes.TrimSpace(line)) > 0 {
				r.toPadd(ctx, line)
			}
			if err != nil {
				lines <- err
				return
			}
		}
	}()
	var err error
	select {
	case <-ctx.Done():
	case err = <-lines:
	}
	r.linkMu.Lock()
	l := r.link
	r.linkMu.Unlock()
	if l == nil {
		return nil
	}
	if ctx.Err() != nil {
		l.conn.Close()
		return nil
	}
	_ = l.conn.CloseWrite()
	<-l.done
	l.conn.Close()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// sameVersion says whether the padd the relay talks to is this build.
func (r *relay) sameVersion() bool {
	r.linkMu.Lock()
	defer r.linkMu.Unlock()
	return r.link != nil && r.link.conn.Version == api.Version
}

// toPadd forwards one message of the agent's, reconnecting first when
// padd went away.
func (r *relay) toPadd(ctx context.Context, line []byte) {
	m, ok := scanRequest(line)
	if !ok && json.Unmarshal(line, &m) != nil {
		r.send(ctx, line, "", "") // padd answers the parse error
		return
	}
	key := "" // a request's: an answer is owed
	if m.Method != "" {
		key, _ = idKey(m.ID)
	}
	r.dialMu.Lock()
	switch {
	case m.Method == string(mcpgo.MethodInitialize):
		r.initialize = bytes.Clone(line)
	case m.Method == "notifications/initialized":
		r.initialized = bytes.Clone(line)
	case m.Method == string(mcpgo.MethodToolsCall) && m.Params.Name == "pad_set_workspace":
		r.setWorkspace = bytes.Clone(line)
	}
	r.dialMu.Unlock()
	r.send(ctx, line, key, m.Method)
}

// send writes line to padd, on a new connection if the last one is gone;
// a write that fails is tried once more on a new one. key names a
// request, whose answer is then owed.
func (r *relay) send(ctx context.Context, line []byte, key, method string) {
	for attempt := 0; ; attempt++ {
		l, err := r.current(ctx)
		if err == nil && peerClosed(l.conn.Conn) {
			// padd went away while the agent was quiet, and the relay has
			// not read the end yet: the message goes to the next padd.
			r.lose(l)
			l, err = r.current(ctx)
		}
		if err != nil {
			r.log.Warn("padd could not be reached or started; `padctl daemon status` and `padctl daemon logs` say why", "err", err)
			if key != "" {
				r.answerLost(idFromKey(key), method, unreachable(err))
			}
			return
		}
		if key != "" {
			l.mu.Lock()
			l.pending[key] = method
			l.mu.Unlock()
		}
		if _, err = l.conn.Write(line); err == nil {
			return
		}
		l.mu.Lock()
		delete(l.pending, key)
		l.mu.Unlock()
		r.lose(l)
		if attempt > 0 {
			r.log.Warn("padd took the message but the connection broke", "err", err)
			if key != "" {
				r.answerLost(idFromKey(key), method, lostCall())
			}
			return
		}
	}
}

// current is the connection to padd, made anew (and told the session's
// story) when the last one was lost.
func (r *relay) current(ctx context.Context) (*link, error) {
	r.linkMu.Lock()
	l := r.link
	r.linkMu.Unlock()
	if l != nil {
		return l, nil
	}
	r.dialMu.Lock()
	defer r.dialMu.Unlock()
	l, err := r.dial(ctx)
	if err != nil {
		return nil, err
	}
	for _, msg := range [][]byte{r.initialize, r.initialized, r.setWorkspace} {
		if msg == nil {
			continue
		}
		if err := r.replay(ctx, l, msg); err != nil {
			l.conn.Close()
			return nil, fmt.Errorf("padd restarted, and repeating the session's start to it failed: %w", err)
		}
	}
	r.linkMu.Lock()
	r.link = l
	r.linkMu.Unlock()
	r.log.Info("reconnected to padd; the session goes on")
	return l, nil
}

// replay sends the relay's copy of an earlier message under an id of its
// own, and waits for padd's answer, which the agent already had.
func (r *relay) replay(ctx context.Context, l *link, msg []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		return err
	}
	var wait chan []byte
	if _, isReq := fields["id"]; isReq {
		r.replays++
		id := strconv.Quote("padd-relay-" + strconv.Itoa(r.replays))
		fields["id"] = json.RawMessage(id)
		key, _ := idKey(fields["id"])
		wait = make(chan []byte, 1)
		l.mu.Lock()
		l.replay[key] = wait
		l.mu.Unlock()
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	if _, err := l.conn.Write(append(b, '\n')); err != nil {
		return err
	}
	if wait == nil {
		return nil
	}
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case <-wait:
		return nil
	case <-l.done:
		return errors.New("padd closed the connection")
	case <-t.C:
		return errors.New("padd did not answer within 30s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fromPadd copies padd's messages to the agent until padd's side ends.
func (r *relay) fromPadd(l *link) {
	defer close(l.done)
	for {
		line, err := l.conn.R.ReadBytes('\n')
		if len(line) > 0 {
			r.deliver(l, line)
		}
		if err != nil {
			r.lose(l)
			return
		}
	}
}

// deliver passes one message of padd's to the agent, settling the
// request it answers.
func (r *relay) deliver(l *link, line []byte) {
	if id, ok := answerID(line); ok {
		if key, ok := idKey(id); ok {
			l.mu.Lock()
			wait, mine := l.replay[key]
			delete(l.replay, key)
			delete(l.pending, key)
			l.mu.Unlock()
			if mine {
				wait <- line
				return
			}
		}
	}
	if _, err := r.out.Write(line); err != nil {
		r.log.Debug("the agent is gone; padd's message dropped", "err", err)
	}
}

// answerID is the id of a response (a message with a result or an error
// and no method). padd writes the id first, so most answers are read no
// further than their id; anything else is decoded whole.
func answerID(line []byte) (json.RawMessage, bool) {
	const head = `{"jsonrpc":"2.0","id":`
	if rest, ok := bytes.CutPrefix(line, []byte(head)); ok {
		s := jsonScan{b: rest}
		if s.value() {
			id, after := rest[:s.i], rest[s.i:]
			if bytes.HasPrefix(after, []byte(`,"result":`)) || bytes.HasPrefix(after, []byte(`,"error":`)) {
				return id, true
			}
		}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 || m.Result == nil && m.Error == nil {
		return nil, false
	}
	return m.ID, true
}

// lose forgets a connection that broke, and answers the calls padd was
// running on it: whether they took effect is unknown.
func (r *relay) lose(l *link) {
	r.linkMu.Lock()
	if r.link == l {
		r.link = nil
	}
	r.linkMu.Unlock()
	_ = l.conn.Close()
	l.mu.Lock()
	pending := l.pending
	l.pending = map[string]string{}
	l.mu.Unlock()
	for key, method := range pending {
		r.answerLost(idFromKey(key), method, lostCall())
	}
}

func lostCall() *toolError {
	return refuse(api.CodeServerError, "padd stopped while this call was running, so whether it took effect is unknown: read the item (or list) to see, then retry if it did not",
		"padd stopped before answering").with("reason", "padd_restarted")
}

// idFromKey is the id of a key, as JSON.
func idFromKey(key string) json.RawMessage {
	if key[0] == 's' {
		return json.RawMessage(strconv.Quote(key[1:]))
	}
	return json.RawMessage(key[1:])
}

// answerLost answers a request padd will not: a tool call with a tool
// error the model reads, anything else with a JSON-RPC error.
func (r *relay) answerLost(id json.RawMessage, method string, e *toolError) {
	var msg any
	if method == string(mcpgo.MethodToolsCall) {
		msg = struct {
			JSONRPC string                `json:"jsonrpc"`
			ID      json.RawMessage       `json:"id"`
			Result  *mcpgo.CallToolResult `json:"result"`
		}{"2.0", id, errorResult(e)}
	} else {
		msg = struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   any             `json:"error"`
		}{"2.0", id, map[string]any{"code": mcpgo.INTERNAL_ERROR, "message": e.Message + "; " + e.Hint}}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	_, _ = r.out.Write(append(b, '\n'))
}
