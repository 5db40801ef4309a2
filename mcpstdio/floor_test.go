package mcpstdio_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// cannedEnv names the golden directory when this test binary runs as
// the canned server instead of the tests (see TestMain).
const cannedEnv = "PADD_TEST_CANNED_MCP"

// serveCanned is a stand-in MCP server over stdio, named as such: it
// answers initialize and tools/list with padd's own golden bytes, made
// once, and does nothing else. It is the fastest server a client could
// talk to with padd's catalog, so a client's round trip against it is
// the client's own floor.
func serveCanned(dir string) error {
	result := func(name string) ([]byte, error) {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		var c bytes.Buffer
		err = json.Compact(&c, raw)
		return c.Bytes(), err
	}
	answers := map[string][]byte{}
	for method, file := range map[string]string{"initialize": "initialize.json", "tools/list": "tools_list.json"} {
		b, err := result(file)
		if err != nil {
			return err
		}
		answers[method] = b
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue // notifications
		}
		if a, ok := answers[req.Method]; ok {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, a)
		} else {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"the canned server answers initialize and tools/list only"}}`+"\n", req.ID)
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// BenchmarkToolsListClientFloor is the go-sdk client's tools/list round
// trip against the canned server: the same catalog bytes over a real
// stdio pipe, with no server work at all, on the same protocol as
// BenchmarkToolsList. What that one takes beyond it is padd's share.
func BenchmarkToolsListClientFloor(b *testing.B) {
	dir, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), cannedEnv+"="+dir)
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: protoLegacy})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 11 {
		b.Fatalf("canned tools/list: %v, %d tools (the catalog has 11)", err, len(res.Tools))
	}
	b.ResetTimer()
	timed(b, func() {
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	})
}
