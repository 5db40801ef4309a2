package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// mcp-go's StdioServer keeps its one session in a package variable, so a
// process can serve only one client with it. padd serves every agent's
// session in one process, so the line loop is ours: the same messages,
// read one line at a time, each session with its own state.

// maxToolCalls is how many tool calls of one session run at once; later
// ones wait their turn (mcp-go's stdio server ran five workers).
const maxToolCalls = 5

// session is one MCP client's connection: newline-delimited JSON-RPC in
// both directions. It is the mcp-go ClientSession of that client.
type session struct {
	id    string
	out   io.Writer // one Write per message (a lockedWriter)
	notes chan mcpgo.JSONRPCNotification

	initialized atomic.Bool
	level       atomic.Value // mcpgo.LoggingLevel
	info        atomic.Value // mcpgo.Implementation
	caps        atomic.Value // mcpgo.ClientCapabilities
	protocol    atomic.Value // string

	// Requests this server sent the client (roots/list), by id.
	nextID  atomic.Int64
	mu      sync.Mutex
	waiting map[int64]chan rootsAnswer

	runners *runners // the goroutines its requests run on
}

type rootsAnswer struct {
	result *mcpgo.ListRootsResult
	err    error
}

var sessionCount atomic.Int64

var (
	_ server.SessionWithLogging         = (*session)(nil)
	_ server.SessionWithClientInfo      = (*session)(nil)
	_ server.SessionWithRoots           = (*session)(nil)
	_ server.SessionWithProtocolVersion = (*session)(nil)
)

func (c *session) SessionID() string { return c.id }
func (c *session) NotificationChannel() chan<- mcpgo.JSONRPCNotification {
	return c.notes
}
func (c *session) Initialize() {
	c.level.Store(mcpgo.LoggingLevelError)
	c.initialized.Store(true)
}
func (c *session) Initialized() bool                    { return c.initialized.Load() }
func (c *session) SetLogLevel(level mcpgo.LoggingLevel) { c.level.Store(level) }
func (c *session) SetClientInfo(i mcpgo.Implementation) { c.info.Store(i) }
func (c *session) SetProtocolVersion(v string)          { c.protocol.Store(v) }
func (c *session) GetLogLevel() mcpgo.LoggingLevel      { return load(&c.level, mcpgo.LoggingLevelError) }
func (c *session) GetClientInfo() mcpgo.Implementation  { return load(&c.info, mcpgo.Implementation{}) }
func (c *session) GetClientCapabilities() mcpgo.ClientCapabilities {
	return load(&c.caps, mcpgo.ClientCapabilities{})
}
func (c *session) SetClientCapabilities(v mcpgo.ClientCapabilities) { c.caps.Store(v) }
func (c *session) ProtocolVersion() string                          { return load(&c.protocol, "") }

func load[T any](v *atomic.Value, zero T) T {
	if x, ok := v.Load().(T); ok {
		return x
	}
	return zero
}

// ListRoots asks the client for its roots and waits for the answer.
func (c *session) ListRoots(ctx context.Context, _ mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	id := c.nextID.Add(1)
	ch := make(chan rootsAnswer, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	req, _ := json.Marshal(map[string]any{"jsonrpc": mcpgo.JSONRPC_VERSION, "id": id, "method": mcpgo.MethodListRoots})
	if _, err := c.out.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("ask the client for its roots: %w", err)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case a := <-ch:
		return a.result, a.err
	}
}

// answered hands a client's response to the request of ours it answers,
// and says whether it was one.
func (c *session) answered(msg *envelope) bool {
	if msg.Method != "" || (msg.Result == nil && msg.Error == nil) {
		return false
	}
	var id int64
	if json.Unmarshal(msg.ID, &id) != nil {
		return false
	}
	c.mu.Lock()
	ch, ok := c.waiting[id]
	c.mu.Unlock()
	if !ok {
		return false
	}
	var a rootsAnswer
	if msg.Error != nil {
		a.err = fmt.Errorf("the client refused roots/list: %s", msg.Error.Message)
	} else {
		var r mcpgo.ListRootsResult
		if err := json.Unmarshal(msg.Result, &r); err != nil {
			a.err = fmt.Errorf("the client's roots/list answer is not a list of roots: %w", err)
		} else {
			a.result = &r
		}
	}
	ch <- a
	return true
}

// envelope is what the loop reads of a message to route it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// serveLines serves one client on in and out until in ends (nil) or ctx
// is cancelled. At the end of in, the requests already read finish and
// answer first; when ctx is cancelled, they are cancelled with it. Either
// way they have ended when serveLines returns.
func (s *Server) serveLines(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	c := &session{id: fmt.Sprintf("padd-mcp-%d", sessionCount.Add(1)), out: w,
		notes: make(chan mcpgo.JSONRPCNotification, 100), waiting: map[int64]chan rootsAnswer{}, runners: newRunners()}
	if err := s.mcp.RegisterSession(ctx, c); err != nil {
		return fmt.Errorf("register the MCP session: %w", err)
	}
	defer s.mcp.UnregisterSession(context.Background(), c.id)
	reqCtx, cancel := context.WithCancel(s.mcp.WithContext(ctx, c))
	var forwarding sync.WaitGroup
	forwarding.Go(func() { s.forwardNotes(reqCtx, c, w) })
	defer func() {
		cancel()
		forwarding.Wait()
	}()

	// The loop reads on its own goroutine: a read from stdin cannot be
	// interrupted, and a cancelled ctx must not wait for the next line.
	// It dispatches under gate, so that once ctx is cancelled no request
	// starts after the wait for those running.
	var (
		running sync.WaitGroup
		gate    sync.Mutex
		ended   bool
	)
	done := make(chan error, 1)
	go func() {
		calls := make(chan struct{}, maxToolCalls)
		lines := newListAnswerer(sync.OnceValues(s.toolsListResult), in, w)
		for {
			line, err := lines.next()
			if len(line) > 0 {
				gate.Lock()
				if !ended && reqCtx.Err() == nil {
					s.dispatch(reqCtx, c, w, line, calls, &running)
				}
				gate.Unlock()
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case <-ctx.Done():
		// The requests running are cancelled with ctx, and end before the
		// session does; the loop may stay blocked in its read.
		gate.Lock()
		ended = true
		gate.Unlock()
		running.Wait()
		c.runners.stop()
		return nil
	case err := <-done:
		// Requests still running finish and answer; a handler that blocks
		// (subscriptions/listen) is released by the cancel after them.
		running.Wait()
		c.runners.stop()
		if errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("read the client's messages: %w", err)
	}
}

// dispatch routes one message: an answer to our roots/list, a request
// (served on its own goroutine; tool calls a few at a time), or a
// notification (served in order).
func (s *Server) dispatch(ctx context.Context, c *session, w io.Writer, line []byte, calls chan struct{}, running *sync.WaitGroup) {
	var msg envelope
	if err := json.Unmarshal(line, &msg); err != nil {
		switch raw := bytes.TrimSpace(line); {
		case len(raw) == 0:
		case json.Valid(raw):
			s.handle(ctx, w, nil, raw) // not an object (a batch): mcp-go says what is wrong
		default:
			s.write(w, mcpgo.NewJSONRPCError(mcpgo.NewRequestId(nil), mcpgo.PARSE_ERROR, "Parse error", nil))
		}
		return
	}
	if c.answered(&msg) {
		return
	}
	raw := json.RawMessage(bytes.TrimSpace(line))
	if len(msg.ID) == 0 || msg.Method == "" {
		// A notification, or an answer to nothing we asked: mcp-go
		// decides, in order.
		s.handle(ctx, w, nil, raw)
		return
	}
	running.Add(1)
	c.runners.run(func() {
		defer running.Done()
		if msg.Method == string(mcpgo.MethodToolsCall) {
			// Waiting here, not in the loop: the loop must keep reading, or
			// a call waiting on the client's roots would never hear them.
			calls <- struct{}{}
			defer func() { <-calls }()
		}
		s.handle(ctx, w, msg.ID, raw)
	})
}

// runners are the goroutines a session's requests run on. A request's
// goroutine grows its stack through mcp-go, the API handler and storage,
// which showed in padd's profile under load when each request had a new
// one (docs/PERFORMANCE.md, "Why the code is as it is"), so a runner stays a while for the
// session's next request. They end with
// the session: none outlives it.
type runners struct {
	idle chan func()
	done chan struct{} // closed: the session ended
	wg   sync.WaitGroup
}

// runnerIdle is how long a runner waits for its next request.
const runnerIdle = 10 * time.Second

func newRunners() *runners {
	return &runners{idle: make(chan func()), done: make(chan struct{})}
}

// run runs f on an idle runner, or on a new one.
func (p *runners) run(f func()) {
	select {
	case p.idle <- f:
	default:
		p.wg.Go(func() { p.runner(f) })
	}
}

func (p *runners) runner(f func()) {
	idle := time.NewTimer(runnerIdle)
	defer idle.Stop()
	for {
		f()
		idle.Reset(runnerIdle)
		select {
		case f = <-p.idle:
		case <-idle.C:
			return
		case <-p.done:
			return
		}
	}
}

// stop ends the runners, once their requests are done, and waits for
// them; nothing may be run after.
func (p *runners) stop() {
	close(p.done)
	p.wg.Wait()
}

// handle runs one message through mcp-go and writes its answer. A handler
// that panics answers INTERNAL_ERROR instead of ending the session.
func (s *Server) handle(ctx context.Context, w io.Writer, id json.RawMessage, raw json.RawMessage) {
	var resp mcpgo.JSONRPCMessage
	func() {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("MCP handler panicked", "panic", p)
				if id != nil {
					var rid any
					_ = json.Unmarshal(id, &rid)
					resp = mcpgo.NewJSONRPCError(mcpgo.NewRequestId(rid), mcpgo.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", p), nil)
				}
			}
		}()
		resp = s.mcp.HandleMessage(ctx, raw)
	}()
	if resp != nil {
		s.write(w, resp)
	}
}

func (s *Server) write(w io.Writer, msg any) {
	b, err := encodeMessage(msg)
	if err != nil {
		s.log.Error("cannot encode an MCP answer", "err", err)
		return
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		s.log.Debug("the MCP client is gone; answer dropped", "err", err)
	}
}

// encodeMessage is json.Marshal(msg), byte for byte, but for a tool's
// answer without json.Marshal's second pass over what the result's own
// MarshalJSON returns: it validates and compacts those bytes again, and a
// tool's answer is mostly one long string (docs/PERFORMANCE.md,
// "Why the code is as it is").
// mcp-go's CallToolResult encodes itself with json.Marshal, so its bytes
// are already compact and escaped as json.Marshal would.
func encodeMessage(msg any) ([]byte, error) {
	r, ok := msg.(mcpgo.JSONRPCResponse)
	if !ok {
		return json.Marshal(msg)
	}
	res, ok := r.Result.(*mcpgo.CallToolResult)
	if !ok || res == nil {
		return json.Marshal(msg)
	}
	version, err := json.Marshal(r.JSONRPC)
	if err != nil {
		return nil, err
	}
	id, err := json.Marshal(r.ID)
	if err != nil {
		return nil, err
	}
	body, err := res.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(version)+len(id)+len(body)+32)
	b = append(append(b, `{"jsonrpc":`...), version...)
	b = append(append(b, `,"id":`...), id...)
	b = append(append(b, `,"result":`...), body...)
	return append(b, '}'), nil
}

func (s *Server) forwardNotes(ctx context.Context, c *session, w io.Writer) {
	for {
		select {
		case n := <-c.notes:
			s.write(w, n)
		case <-ctx.Done():
			return
		}
	}
}
