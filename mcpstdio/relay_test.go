package mcpstdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// standInPadd stands in for a padd of the given version that takes one
// relayed session, then refuses further connections, and hands the
// session's stream to serve.
func standInPadd(t *testing.T, version string, serve func(r *bufio.Reader, w io.Writer)) *api.Client {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		ln.Close()
		defer c.Close()
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: %s\r\n%s: %s\r\n\r\n", api.MCPUpgrade, api.VersionHeader, version)
		serve(br, c)
	}()
	return api.NewClient("http://"+ln.Addr().String(), "tok")
}

// deadPadd dies while a call runs: it reads one message and closes the
// connection without answering.
func deadPadd(t *testing.T) *api.Client {
	return standInPadd(t, api.Version, func(r *bufio.Reader, _ io.Writer) { _, _ = r.ReadBytes('\n') })
}

// A call padd was running when it died is answered, as a tool error that
// says its outcome is unknown; a call when no padd can be started says
// so. Neither leaves the agent waiting.
func TestRelayAnswersLostCalls(t *testing.T) {
	c := deadPadd(t)
	tries := 0
	connect := func(context.Context) (*api.Client, error) {
		if tries++; tries > 1 {
			return nil, errors.New("padd would not start (test)")
		}
		return c, nil
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Relay(context.Background(), inR, outW, Options{Connect: connect, Dir: t.TempDir(), Log: io.Discard})
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	read := func() map[string]any {
		line, err := answers.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return m
	}
	toolError := func(m map[string]any) map[string]any {
		res, _ := m["result"].(map[string]any)
		content, _ := res["content"].([]any)
		if res["isError"] != true || len(content) != 1 {
			t.Fatalf("not a tool error: %v", m)
		}
		text, _ := content[0].(map[string]any)["text"].(string)
		var e map[string]any
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatalf("tool error text %q: %v", text, err)
		}
		return e
	}

	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":"call-\u0041","method":"tools/call","params":{"name":"pad_item","arguments":{"action":"get","ref":"TASK-1"}}}`)
	m := read()
	if m["id"] != "call-A" {
		t.Errorf("answered id %v, want call-A", m["id"])
	}
	if e := toolError(m); e["code"] != api.CodeServerError || e["details"].(map[string]any)["reason"] != "padd_restarted" || e["hint"] == "" {
		t.Errorf("lost call answered %v", e)
	}

	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pad_item","arguments":{"action":"get","ref":"TASK-1"}}}`)
	m = read()
	if m["id"] != float64(7) {
		t.Errorf("answered id %v, want 7", m["id"])
	}
	if e := toolError(m); e["details"].(map[string]any)["reason"] != "padd_unreachable" {
		t.Errorf("call without padd answered %v", e)
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":8,"method":"resources/list"}`)
	if m := read(); m["id"] != float64(8) || m["error"] == nil {
		t.Errorf("a request other than a tool call gets a JSON-RPC error: %v", m)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("relay ended with %v", err)
	}
}

// A padd from before relayed sessions answers the upgrade 404: the
// session is served in the relay's own process, as before.
func TestRelayFallsBackToOldPadd(t *testing.T) {
	srv, seen := oldPadd(t)
	connect := func(context.Context) (*api.Client, error) { return api.NewClient(srv.URL, "tok"), nil }
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = Relay(context.Background(), inR, outW, Options{Connect: connect, Dir: t.TempDir(), Log: io.Discard})
		outW.Close()
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pad_set_workspace","arguments":{"workspace":"old"}}}`)
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `\"workspace\":\"old\"`) || strings.Contains(string(line), `"isError":true`) {
		t.Errorf("served here, the call answered %s", line)
	}
	if len(*seen) == 0 {
		t.Error("the old padd saw no item list")
	}
	inW.Close()
}

// FuzzRelayAnswerID feeds the relay arbitrary lines from padd. Property:
// a line the relay takes for an answer holds a result or an error, under
// the id a full decode reads (a line that also names a method is not
// JSON-RPC; the relay passes it on all the same), and an answer it does
// not take for one has no id a client could wait on.
func FuzzRelayAnswerID(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"a\u0041","error":{"code":-32603,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
		`{"id":2,"jsonrpc":"2.0","method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":1.5e3,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"method":"x"}`,
		`{"jsonrpc":"2.0","id":[1],"result":{}}`,
		`not json`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		id, ok := answerID([]byte(line))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		full := json.Unmarshal([]byte(line), &m) == nil
		if !ok {
			if full && m.Method == nil && len(m.ID) > 0 && (m.Result != nil || m.Error != nil) {
				if _, isID := idKey(m.ID); isID {
					t.Fatalf("an answer to id %s was not taken for one: %s", m.ID, line)
				}
			}
			return
		}
		if !full {
			return // not JSON: passed on as it is, as padd's error would be
		}
		if m.Result == nil && m.Error == nil {
			t.Fatalf("taken for an answer, but holds no result or error: %s", line)
		}
		got, gok := idKey(id)
		want, wok := idKey(m.ID)
		if gok != wok || got != want {
			t.Fatalf("id %q (%v), a full decode reads %q (%v): %s", got, gok, want, wok, line)
		}
	})
}

// A line that is not a JSON-RPC object, or is over maxMessage, gets a
// JSON-RPC error and the session goes on: nothing the client sends ends
// it but the end of its stream.
func TestSessionMalformedLines(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := NewServer(Options{Getenv: func(string) string { return "" }, Dir: t.TempDir(), Log: io.Discard})
	done := make(chan error, 1)
	go func() { done <- s.serveLines(context.Background(), inR, outW); outW.Close() }()
	answers := bufio.NewReader(outR)
	for _, c := range []struct{ send, want string }{
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `"code":-32700`},
		{`{"jsonrpc":"2.0","id":2,"method":`, `"code":-32700`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"pad_meta","arguments":{"x":"` + strings.Repeat("a", maxMessage) + `"}}}`, `"code":-32600`},
		{"\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`},
	} {
		fmt.Fprintln(inW, c.send)
		line, err := answers.ReadString('\n')
		if err != nil || !strings.Contains(line, c.want) {
			t.Errorf("after %q: answer %q (%v), want %s", c.send, line, err, c.want)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("session ended with %v", err)
	}
}

// echoPadd answers every request with {"from":"padd"}.
func echoPadd(t *testing.T, version string) *api.Client {
	return standInPadd(t, version, func(r *bufio.Reader, w io.Writer) {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m struct{ ID json.RawMessage }
			_ = json.Unmarshal(line, &m)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"from":"padd"}}`+"\n", m.ID)
		}
	})
}

// The relay answers a plain tools/list with its own catalog only when
// padd is its own version; another padd's catalog is padd's to give.
func TestRelayToolsListOnlyFromItsOwnVersion(t *testing.T) {
	for _, c := range []struct {
		version string
		local   bool
	}{{api.Version, true}, {"0.0.1-other", false}} {
		client := echoPadd(t, c.version)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go func() {
			_ = Relay(context.Background(), inR, outW,
				Options{Connect: func(context.Context) (*api.Client, error) { return client, nil }, Dir: t.TempDir(), Log: io.Discard})
			outW.Close()
		}()
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		line, err := bufio.NewReader(outR).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if local := strings.Contains(line, `"tools":[`); local != c.local || !strings.Contains(line, `"id":1`) {
			t.Errorf("padd %s: tools/list answered %.80s, want answered here %v", c.version, line, c.local)
		}
		inW.Close()
	}
}

// FuzzRelayScan holds the relay's in-place reading of an agent's message
// to encoding/json's: wherever the scan reads a line, it reads the id, the
// method and a call's tool name a full decode reads, and the same request
// key; a line it leaves alone is decoded as before.
func FuzzRelayScan(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pad_item","arguments":{"action":"get","ref":"TASK-1"}}}`,
		`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"arguments":{"name":"not this"},"name":"pad_set_workspace"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"ID":1,"id":null,"Method":"x","method":null,"params":{"name":"a"},"params":null,"PARAMS":{}}`,
		`{"id":"a\u0041","method":"tools/\u006cist"}`,
		`{"id":1.5e3,"method":1}`,
		`{"id":[1],"params":[]}`,
		` { "id" : -0 , "method" : "ping" } `,
		`{"\u0069d":1}`,
		`{"ſ":1,"K":2}`,
		`null`,
		`[{"id":1}]`,
		`{"id":1}{"id":2}`,
		`not json`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, ok := scanRequest([]byte(line))
		var want relayMsg
		err := json.Unmarshal([]byte(line), &want)
		if !ok {
			return // decoded as before
		}
		if err != nil {
			t.Fatalf("scanned a line encoding/json refuses (%v): %s", err, line)
		}
		if string(m.ID) != string(want.ID) || m.Method != want.Method || m.Params.Name != want.Params.Name {
			t.Fatalf("scan read id %s method %q name %q; encoding/json reads id %s method %q name %q: %s",
				m.ID, m.Method, m.Params.Name, want.ID, want.Method, want.Params.Name, line)
		}
		got, gok := idKey(m.ID)
		wantKey, wok := decodeIDKey(want.ID)
		if gok != wok || got != wantKey {
			t.Fatalf("request key %q (%v), a full decode's %q (%v): %s", got, gok, wantKey, wok, line)
		}
	})
}
