package mcpstdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzListAnswerer feeds arbitrary stdin through the tools/list
// answerer. Properties: every input line either reaches mcp-go byte for
// byte, in order, or is a plain tools/list request answered with the
// cached result under the request's own id; nothing else is written.
func FuzzListAnswerer(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n",
		`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pad_meta"}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c"}}` + "\n",
		`[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]` + "\n",
		`{"jsonrpc":"2.0","method":"tools/list"}` + "\n" + `not json "tools/list"`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
		"\n\n",
	} {
		f.Add(seed)
	}
	result, err := NewServer(Options{Getenv: func(string) string { return "" }, Dir: f.TempDir(), Log: io.Discard}).toolsListResult()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		a := &listAnswerer{in: bufio.NewReader(strings.NewReader(in)), out: &out, result: func() ([]byte, error) { return result, nil }}
		var forwarded []byte
		for {
			line, err := a.next()
			forwarded = append(forwarded, line...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read: %v", err)
			}
		}
		answers := bytes.SplitAfter(out.Bytes(), []byte("\n"))
		var rebuilt []byte
		rest := forwarded
		for _, line := range strings.SplitAfter(in, "\n") {
			if line == "" {
				continue
			}
			if bytes.HasPrefix(rest, []byte(line)) {
				rebuilt = append(rebuilt, line...)
				rest = rest[len(line):]
				continue
			}
			// Not forwarded: it must be a plain tools/list, answered next.
			var req struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Params  map[string]any  `json:"params"`
			}
			if json.Unmarshal([]byte(line), &req) != nil || req.Method != "tools/list" || req.JSONRPC != "2.0" || len(req.Params) != 0 {
				t.Fatalf("line %q was neither forwarded nor a plain tools/list", line)
			}
			if len(answers) == 0 || len(answers[0]) == 0 {
				t.Fatalf("tools/list %q got no answer", line)
			}
			var ans struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(answers[0], &ans); err != nil || ans.JSONRPC != "2.0" || !bytes.Equal(ans.ID, req.ID) || !bytes.Equal(ans.Result, result) {
				t.Fatalf("answer %q to %q: %v", answers[0], line, err)
			}
			answers = answers[1:]
		}
		if len(rest) != 0 || !bytes.Equal(rebuilt, forwarded) {
			t.Fatalf("forwarded %q, which is not the input's unanswered lines in order", forwarded)
		}
		if len(answers) > 1 || (len(answers) == 1 && len(answers[0]) != 0) {
			t.Fatalf("answers left over: %q", answers)
		}
	})
}
