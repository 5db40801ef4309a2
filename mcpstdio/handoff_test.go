package mcpstdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/padd/padd/api"
	"github.com/padd/padd/mcpstdio"
)

// In padd's own process a tool gets the API handler's value itself, not
// its JSON (api.Answer). Whatever a tool answers must not depend on
// which: every read here is answered by a relayed session (the value)
// and by a server that reaches the same padd over loopback (the JSON),
// and the two answers must be the same JSON.
func TestAnswersInProcessMatchAnswersOverLoopback(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Handoff")
	cs := e.session(sessionOpts{})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})
	plan := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "plans", "title": "Launch <v1> & more",
		"content": "Ship the first version."}).str("ref")
	var tasks []string
	for _, args := range []map[string]any{
		{"title": "Write the installer", "priority": "high", "fields": map[string]any{"effort": "s"}},
		{"title": "Test the installer", "content": "Run it on a clean machine."},
		{"title": "Announce it", "fields": map[string]any{"estimate_ms": json.Number("9007199254740993123")}},
	} {
		args["action"], args["collection"], args["parent"] = "create", "tasks", plan
		tasks = append(tasks, ok(t, cs, "pad_item", args).str("ref"))
	}
	ok(t, cs, "pad_item", map[string]any{"action": "link", "ref": tasks[1], "target": tasks[0], "link_type": "blocked-by"})
	ok(t, cs, "pad_item", map[string]any{"action": "comment", "ref": tasks[0], "message": "Starting on this."})
	// A lease of a worker of neither session: both rank the item alike.
	ok(t, cs, "pad_item", map[string]any{"action": "claim", "ref": tasks[0], "worker_id": "wk_0123456789abcdef0123456789abcdef"})
	ok(t, cs, "pad_item", map[string]any{"action": "star", "ref": tasks[2]})

	loopback := mcpstdio.NewServer(mcpstdio.Options{Connect: func(context.Context) (*api.Client, error) { return e.api, nil },
		Getenv: func(string) string { return "" }, Dir: t.TempDir()})
	for _, call := range []map[string]any{
		{"tool": "pad_item", "action": "get", "ref": tasks[0]},
		{"tool": "pad_item", "action": "get", "ref": tasks[2]},
		{"tool": "pad_item", "action": "get", "ref": tasks[0], "agent": true},
		{"tool": "pad_item", "action": "get", "ref": tasks[1], "lines": true},
		{"tool": "pad_item", "action": "list", "parent": plan},
		{"tool": "pad_item", "action": "deps", "ref": tasks[1]},
		{"tool": "pad_item", "action": "list-comments", "ref": tasks[0]},
		{"tool": "pad_item", "action": "backlinks", "ref": tasks[0]},
		{"tool": "pad_item", "action": "starred"},
		{"tool": "pad_item", "action": "context", "ref": tasks[0]},
		{"tool": "pad_search", "action": "query", "query": "installer"},
		{"tool": "pad_item", "action": "search", "query": "installer", "collection": "tasks"},
		{"tool": "pad_project", "action": "next"},
		{"tool": "pad_project", "action": "next", "worker_id": "wk_0123456789abcdef0123456789abcdef"},
		{"tool": "pad_project", "action": "ready", "worker_id": "wk_0123456789abcdef0123456789abcdef"},
		{"tool": "pad_project", "action": "standup"},
		{"tool": "pad_project", "action": "dashboard"},
		{"tool": "pad_collection", "action": "list"},
		{"tool": "pad_workspace", "action": "storage"},
		{"tool": "pad_workspace", "action": "audit-log", "limit": 5},
	} {
		tool := call["tool"].(string)
		args := map[string]any{"workspace": ws}
		for k, v := range call {
			if k != "tool" {
				args[k] = v
			}
		}
		relayed := callTool(t, cs, tool, args)
		text, isErr := loopbackCall(t, loopback, tool, args)
		if relayed.isError || isErr {
			t.Errorf("%s %s: relayed %v %s; over loopback %v %s", tool, call["action"], relayed.isError, relayed.texts[0], isErr, text)
			continue
		}
		if a, b := decodeNumbers(t, relayed.texts[0]), decodeNumbers(t, text); !reflect.DeepEqual(a, b) {
			t.Errorf("%s %s answers differ:\nin process: %s\nover loopback: %s", tool, call["action"], relayed.texts[0], text)
		}
	}
}

func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// loopbackCall calls a tool of s, an MCP server that reaches padd over
// loopback, and returns its first text block.
func loopbackCall(t *testing.T, s *mcpstdio.Server, tool string, args map[string]any) (string, bool) {
	t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	resp, isResult := s.MCPServer().HandleMessage(context.Background(), msg).(mcpgo.JSONRPCResponse)
	res, isCall := resp.Result.(*mcpgo.CallToolResult)
	if !isResult || !isCall || len(res.Content) == 0 {
		t.Fatalf("%s %v: no tool answer: %+v", tool, args["action"], resp)
	}
	text, _ := res.Content[0].(mcpgo.TextContent)
	return text.Text, res.IsError
}
