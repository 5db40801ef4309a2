package mcpstdio

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
)

// The MCP door under fuzz. Properties:
//
//   - validate never panics; a refusal is validation_failed with a
//     message and a hint; what it accepts is declared by the tool, used
//     by the action, and holds every required param;
//   - a whole tools/call (and resources/read) through the MCP server to
//     a real padd (NewServer over a temp store, in process) answers a
//     result, never a JSON-RPC error or a panic; a refusal is a tool
//     error {code, message, hint} and never server_error (padd answered
//     a 5xx, or padctl has a bug).

const fuzzToken = "padd_fuzz_token_0123456789abcdef0123456789abcdef"

// FuzzValidate feeds arbitrary bytes as the arguments of every tool.
func FuzzValidate(f *testing.F) {
	for i, s := range []string{
		`{"action":"get","ref":"TASK-1"}`, `{"action":"create","collection":"tasks","title":"x","fields":{"a":1},"tags":["a"]}`,
		`{"action":"list","limit":5,"offset":0,"field":["status=open"],"parent":"PLAN-1","unparented":false}`,
		`{"action":"update","ref":"A-1","expected_seq":3,"content":"c","replace":false}`, `{"action":"patch","ref":"A-1","edits":[{"old":"a","new":"b"}]}`,
		`{"workspace":"w"}`, `{"action":"create","name":"Bugs","fields":"a:text"}`, `{"query":"hello","limit":1e3}`,
		`{"limit":9223372036854775808}`, `{"limit":-0}`, `{"action":null,"ref":""}`, `[]`, `null`, `"x"`, `{"a":{"b":[1,{"c":null}]}}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		td := catalog[int(tool)%len(catalog)]
		act, a, terr := validate(td, raw)
		if terr != nil {
			if terr.Code != codeValidationFailed || terr.Message == "" || terr.Hint == "" {
				t.Fatalf("%s %s: refusal %+v", td.Name, raw, terr)
			}
			return
		}
		for k, v := range a {
			if _, ok := td.param(k); !ok {
				t.Fatalf("%s %s: accepted undeclared %s", td.Name, raw, k)
			}
			if !act.accepts(k) {
				t.Fatalf("%s %s: action %q accepted %s it does not use", td.Name, raw, act.Name, k)
			}
			if v == nil || v == "" {
				t.Fatalf("%s %s: kept an empty %s", td.Name, raw, k)
			}
		}
		for _, k := range act.Required {
			if !a.has(k) {
				t.Fatalf("%s %s: accepted without required %s", td.Name, raw, k)
			}
		}
	})
}

// mcpFixture is an MCP server talking to a real in-process padd.
type mcpFixture struct {
	s     *Server
	base  string
	hc    *http.Client
	store *storage.Store
}

func newMCPFixture(f *testing.F) *mcpFixture {
	f.Helper()
	dir := f.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{Logger: log, NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	index, err := searchindex.Open(dir, store, log)
	if err != nil {
		f.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { index.Run(ctx); close(ran) }()
	srv := daemon.NewServer(store, index, fuzzToken, log)
	ts := httptest.NewServer(srv)
	f.Cleanup(func() {
		srv.Close()
		ts.Close()
		stop()
		<-ran
		if err := store.Check(); err != nil {
			f.Errorf("bbolt check at the end: %v", err)
		}
		index.Close()
		store.Close()
	})
	fx := &mcpFixture{base: ts.URL, hc: ts.Client(), store: store}
	c := api.NewClient(ts.URL, fuzzToken)
	var ws api.Workspace
	if _, err := c.Do(context.Background(), "POST", "/workspaces", nil, api.WorkspaceCreate{Name: "Work", Slug: "w"}, &ws); err != nil {
		f.Fatal(err)
	}
	for _, title := range []string{"Alpha", "Beta"} {
		if _, err := c.Do(context.Background(), "POST", "/workspaces/w/collections/tasks/items", nil, api.ItemCreate{Title: title, Content: "text of " + title}, nil); err != nil {
			f.Fatal(err)
		}
	}
	fx.s = NewServer(Options{Connect: func(context.Context) (*api.Client, error) { return api.NewClient(ts.URL, fuzzToken), nil },
		Getenv: func(k string) string {
			if k == "PAD_WORKSPACE" {
				return "w"
			}
			return ""
		}, Dir: dir, Log: io.Discard})
	return fx
}

// heal brings workspace w back when a call deleted or renamed it, so the
// next inputs still reach the handlers behind it.
func (fx *mcpFixture) heal(t *testing.T) {
	c := api.NewClient(fx.base, fuzzToken)
	if _, err := c.Do(context.Background(), "GET", "/workspaces/w", nil, nil, nil); err == nil {
		return
	}
	if _, err := c.Do(context.Background(), "POST", "/workspaces/w/restore", nil, nil, nil); err == nil {
		return
	}
	if _, err := c.Do(context.Background(), "POST", "/workspaces", nil, api.WorkspaceCreate{Name: "Work", Slug: "w"}, nil); err != nil {
		t.Logf("could not bring workspace w back: %v", err)
	}
}

// call sends one JSON-RPC message and checks the answer is a result.
func (fx *mcpFixture) call(t *testing.T, method string, params map[string]any) map[string]any {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + string(p) + `}`
	resp := fx.s.MCPServer().HandleMessage(context.Background(), json.RawMessage(msg))
	b, _ := json.Marshal(resp)
	var out struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: answer is not JSON-RPC: %s", method, p, b)
	}
	if out.Error != nil {
		return nil // a protocol-level refusal (e.g. an unknown resource): fine, and not a panic
	}
	return out.Result
}

// FuzzToolCall sends arbitrary arguments to every tool, and arbitrary
// URIs to resources/read, through the whole MCP server to a real padd.
func FuzzToolCall(f *testing.F) {
	fx := newMCPFixture(f)
	for i, s := range []string{
		`{"action":"get","ref":"TASK-1"}`, `{"action":"list","limit":2}`, `{"action":"create","collection":"tasks","title":"from mcp","content":"c"}`,
		`{"action":"update","ref":"TASK-2","content":"new","expected_seq":1}`, `{"action":"comment","ref":"TASK-1","body":"hi"}`,
		`{"action":"link","ref":"TASK-1","target":"TASK-2","link_type":"blocks"}`, `{"action":"claim","ref":"TASK-1"}`,
		`{"query":"alpha"}`, `{"workspace":"w"}`, `{"action":"dashboard"}`, `{"action":"list"}`, `{"action":"bootstrap"}`,
		`{"action":"patch","ref":"TASK-1","edits":[{"old":"text","new":"words"}]}`, `{"action":"create","name":"Bugs","fields":"sev:select:a,b"}`,
		`{"action":"delete","slug":"w"}`, `{"action":"move","ref":"TASK-1","collection":"ideas"}`,
	} {
		f.Add(uint8(i), []byte(s), "")
	}
	for _, u := range []string{"pad://workspaces", "pad://workspace/w/dashboard", "pad://workspace/w/items/TASK-1", "pad://_meta/version",
		"pad://workspace/%2e%2e/items", "pad://workspace/w/collections/tasks"} {
		f.Add(uint8(0), []byte(nil), u)
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte, uri string) {
		defer fx.heal(t)
		if uri != "" {
			fx.call(t, "resources/read", map[string]any{"uri": uri})
			return
		}
		td := catalog[int(tool)%len(catalog)]
		params := map[string]any{"name": td.Name}
		if json.Valid(raw) {
			params["arguments"] = json.RawMessage(raw)
		} else {
			params["arguments"] = map[string]any{"action": string(raw)}
		}
		res := fx.call(t, "tools/call", params)
		if res == nil {
			return
		}
		content, _ := res["content"].([]any)
		if len(content) == 0 {
			t.Fatalf("%s %s: a result without content: %v", td.Name, raw, res)
		}
		first, _ := content[0].(map[string]any)
		text, _ := first["text"].(string)
		if isErr, _ := res["isError"].(bool); !isErr {
			return
		}
		var e toolError
		if err := json.Unmarshal([]byte(text), &e); err != nil || e.Code == "" || e.Message == "" || e.Hint == "" {
			t.Fatalf("%s %s: a tool error that is not {code, message, hint}: %s", td.Name, raw, text)
		}
		if e.Code == api.CodeServerError || strings.HasPrefix(e.Code, "server") {
			t.Fatalf("%s %s: %s", td.Name, raw, text)
		}
	})
}
