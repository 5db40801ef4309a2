package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// The catalog never changes while the server runs, yet mcp-go marshals
// it anew for every tools/list: a large catalog whose raw schemas
// encoding/json re-validates at each level of nesting, on every call
// (docs/PERFORMANCE.md, "Why the code is as it is"). listAnswerer
// answers the plain form of the request (the
// handshake era, no params) with the bytes mcp-go produced the first
// time, and hands every other line on untouched. A request with
// params (a cursor, or 2026-07-28's _meta, whose answer mcp-go decorates
// per request) still goes to mcp-go. A line over maxMessage is answered
// with an error here, unparsed, and goes nowhere.
type listAnswerer struct {
	in  *bufio.Reader
	out io.Writer // shared with mcp-go: one Write per message

	result func() ([]byte, error) // the cached result object
}

// lockedWriter makes each Write one message on stdout, whoever writes
// it: mcp-go's responses, its requests to the client, and our answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// newListAnswerer reads the client's lines (next) and answers plain
// tools/list requests on out itself with what result gives (the bytes of
// mcp-go's own answer to the same request, made once); a request it
// cannot answer, result failing, passes on.
func newListAnswerer(result func() ([]byte, error), stdin io.Reader, out io.Writer) *listAnswerer {
	return &listAnswerer{
		in:     bufio.NewReaderSize(stdin, 64<<10),
		out:    out,
		result: result,
	}
}

// toolsListResult is the result object mcp-go answers a plain tools/list
// with, as bytes.
func (s *Server) toolsListResult() ([]byte, error) {
	resp := s.mcp.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{}}`))
	b, err := json.Marshal(resp)
	if err != nil {
		return nil, err
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, err
	}
	if len(env.Result) == 0 {
		return nil, errors.New("mcp-go answered tools/list without a result: " + string(b))
	}
	return env.Result, nil
}

// maxMessage bounds one message from the client, read whole before it
// is parsed: a line without end must not grow padd's memory without end.
// padd refuses a body over 2 MiB anyway; JSON escaping may double it.
const maxMessage = 4 << 20

// tooLong answers a message over maxMessage, which is dropped unread.
var tooLong = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message over 4 MiB was dropped: send less in one call (padd refuses a body over 2 MiB)"}}` + "\n")

// readLine reads up to and including the next newline. A line longer
// than max is read to its end and dropped: long says so.
func readLine(r *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > max {
			long, line = true, nil
		} else if !long {
			line = append(line, frag...)
		}
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
}

// next returns the client's next line that is not answered here, and
// the error that ended the stream after it (io.EOF at its end).
func (a *listAnswerer) next() ([]byte, error) {
	for {
		line, long, err := readLine(a.in, maxMessage)
		switch {
		case long:
			if _, werr := a.out.Write(tooLong); werr != nil {
				return nil, werr
			}
		case len(line) > 0:
			answered, werr := a.answer(line)
			if werr != nil {
				return nil, werr
			}
			if !answered {
				return line, err
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

var toolsListMethod = []byte(`"tools/list"`)

// answer writes the cached answer when line is a plain tools/list
// request, and says whether it did.
func (a *listAnswerer) answer(line []byte) (bool, error) {
	if !bytes.Contains(line, toolsListMethod) {
		return false, nil
	}
	var req struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      json.RawMessage            `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.JSONRPC != "2.0" || req.Method != "tools/list" || len(req.Params) > 0 || !plainID(req.ID) {
		return false, nil
	}
	result, err := a.result()
	if err != nil {
		return false, nil // mcp-go answers it, and says what is wrong
	}
	msg := make([]byte, 0, len(result)+len(req.ID)+40)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, req.ID...)
	msg = append(msg, `,"result":`...)
	msg = append(msg, result...)
	msg = append(msg, "}\n"...)
	_, err = a.out.Write(msg)
	return true, err
}

// plainID is a JSON-RPC id we can echo as is: a string or a number.
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}
