package mcpstdio_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// A plain tools/list is answered from the first answer's bytes, off
// mcp-go's path; everything else still reaches mcp-go. The answer must be
// the one mcp-go gives, for every form of the request and every id.
func TestToolsListAnswer(t *testing.T) {
	raw := startRaw(t, t.TempDir())
	raw.call(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cache","version":"1"}}`)
	fmt.Fprintln(raw.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Params that carry something go to mcp-go: its answer is the reference.
	ref := raw.call(2, "tools/list", `{"_meta":{"progressToken":"p"}}`)
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(ref, &res); err != nil || len(res.Tools) != 11 {
		t.Fatalf("mcp-go's tools/list: %v, %d tools, want 11", err, len(res.Tools))
	}
	for i, params := range []string{`{}`, `{}`, `null`} {
		if got := raw.call(3+i, "tools/list", params); !bytes.Equal(got, ref) {
			t.Fatalf("tools/list with params %s answered differently from mcp-go's answer:\n%s", params, firstDiff(string(ref), string(got)))
		}
	}

	// The id comes back as the client sent it, string or number.
	for _, id := range []string{`"list-a"`, `7e3`, `-1`, `12345678901234567890`} {
		fmt.Fprintf(raw.stdin, `{"jsonrpc":"2.0","id":%s,"method":"tools/list"}`+"\n", id)
		line, err := raw.stdout.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &env); err != nil || string(env.ID) != id || !bytes.Equal(env.Result, ref) {
			t.Fatalf("tools/list with id %s: answered id %s (%v), same result %v", id, env.ID, err, bytes.Equal(env.Result, ref))
		}
	}

	// A cursor is mcp-go's to read: this one is not one it made.
	fmt.Fprintln(raw.stdin, `{"jsonrpc":"2.0","id":15,"method":"tools/list","params":{"cursor":"not-a-cursor"}}`)
	if line, err := raw.stdout.ReadBytes('\n'); err != nil || !bytes.Contains(line, []byte(`"error"`)) {
		t.Fatalf("tools/list with a cursor padd never gave: %v %s", err, line)
	}

	// Lines around it still reach mcp-go, in order: a tool call, and a
	// request that only looks like tools/list.
	got := raw.call(20, "tools/call", `{"name":"pad_meta","arguments":{"action":"version"}}`)
	if !bytes.Contains(got, []byte("tool_surface_version")) {
		t.Fatalf("pad_meta version after cached lists: %s", got)
	}
	fmt.Fprintln(raw.stdin, `{"jsonrpc":"2.0","id":21,"method":"prompts/list","params":{"note":"not \"tools/list\""}}`)
	line, err := raw.stdout.ReadBytes('\n')
	if err != nil || !bytes.Contains(line, []byte(`"id":21`)) || !bytes.Contains(line, []byte("pad_plan")) {
		t.Fatalf("prompts/list mentioning tools/list: %v %s", err, line)
	}
}
