package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// oldPadd is a padd from before the bootstrap and dashboard routes: it
// serves workspaces, collections and item lists, and answers every other
// route as padd answers an unknown one. It records the headers it sees.
func oldPadd(t *testing.T) (*httptest.Server, *[]http.Header) {
	var seen []http.Header
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/workspaces/old", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"slug":"old","name":"Old Padd"}`)
	})
	mux.HandleFunc("GET /api/v1/workspaces/old/collections", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"slug":"tasks","name":"Tasks","prefix":"TASK","tracks_work":true,"item_count":9,"active_item_count":7,
			"schema":"{\"fields\":[{\"key\":\"status\",\"label\":\"Status\",\"type\":\"select\"},{\"key\":\"due_date\",\"label\":\"Deadline\",\"type\":\"date\"},{\"key\":\"cap\",\"type\":\"number\",\"default\":9007199254740993123}]}"},
			{"slug":"plans","name":"Plans","prefix":"PLAN","tracks_work":true,"item_count":1,"active_item_count":1,"schema":"{}"},
			{"slug":"docs","name":"Docs","prefix":"DOC","tracks_work":false,"item_count":3,"active_item_count":3,"schema":"{}"}]`)
	})
	item := func(n int, coll string) string {
		return fmt.Sprintf(`{"ref":"%s-%d","title":"t%d","collection_slug":"%s","fields":"{\"status\":\"open\"}","tags":"[]","seq":%d}`,
			strings.ToUpper(coll[:4]), n, n, coll, n)
	}
	mux.HandleFunc("GET /api/v1/workspaces/old/items", func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Clone())
		var rows []string
		for i := 1; i <= 8; i++ {
			coll := "tasks"
			if i%4 == 0 {
				coll = "docs"
			}
			rows = append(rows, item(i, coll))
		}
		fmt.Fprint(w, "["+strings.Join(rows, ",")+"]")
	})
	// An item get without ?include=, and comments without links.
	mux.HandleFunc("GET /api/v1/workspaces/old/items/TASK-1", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, item(1, "tasks"))
	})
	mux.HandleFunc("GET /api/v1/workspaces/old/items/TASK-1/comments", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"id":"c1","body":"an old comment"}]`)
	})
	mux.HandleFunc("GET /api/v1/workspaces/old/collections/plans/items", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "["+item(20, "plans")+"]")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"error":{"code":"not_found","message":"no route %s %s","details":{"scope":"route"}}}`, r.Method, r.URL.Path)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &seen
}

func handle(t *testing.T, s *Server, method, params string) map[string]any {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	resp := s.MCPServer().HandleMessage(context.Background(), json.RawMessage(msg))
	b, _ := json.Marshal(resp)
	var out struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Error != nil {
		t.Fatalf("%s: %s", method, b)
	}
	return out.Result
}

func toolText(t *testing.T, res map[string]any) (string, bool) {
	t.Helper()
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content: %v", res)
	}
	isErr, _ := res["isError"].(bool)
	return content[0].(map[string]any)["text"].(string), isErr
}

// Against a padd without the bootstrap and dashboard routes, both are
// assembled from collections and item lists: the agent still learns the
// collections and schemas, counts come from the collections, arrays stop
// at five with their overflow counted, and reference collections and
// plans are not "active items".
func TestBootstrapFallback(t *testing.T) {
	srv, seen := oldPadd(t)
	s := NewServer(Options{Connect: func(context.Context) (*api.Client, error) { return api.NewClient(srv.URL, "tok"), nil },
		Getenv: func(string) string { return "" }, Dir: t.TempDir()})
	text, isErr := toolText(t, handle(t, s, "tools/call", `{"name":"pad_set_workspace","arguments":{"workspace":"old"}}`))
	if isErr {
		t.Fatal(text)
	}
	for _, want := range []string{`"workspace":"old"`, `"minimal":true`, `"total_items":13`, `"open_items":11`,
		`"active_items_overflow_count":2`, `"active_plans":[{"ref":"PLAN-20"`, `"active_plans_overflow_count":0`,
		// The schema is an object; a label that repeats its key is dropped,
		// one that says more is kept; numbers keep their digits.
		`"schema":{"fields":[{"key":"status","type":"select"},{"key":"due_date","label":"Deadline","type":"date"},{"default":9007199254740993123,"key":"cap","type":"number"}]}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("bootstrap lacks %s:\n%s", want, text)
		}
	}
	var doc struct {
		Bootstrap struct {
			Dashboard struct {
				ActiveItems []struct{ Ref, Collection string } `json:"active_items"`
			} `json:"dashboard"`
		} `json:"bootstrap"`
	}
	_ = json.Unmarshal([]byte(text), &doc)
	if got := doc.Bootstrap.Dashboard.ActiveItems; len(got) != 5 || got[0].Collection != "tasks" || got[3].Ref != "TASK-5" {
		t.Errorf("active items: %+v", got)
	}
	// The dashboard tool and resource answer the same minimal dashboard.
	text, _ = toolText(t, handle(t, s, "tools/call", `{"name":"pad_project","arguments":{"action":"dashboard"}}`))
	if !strings.Contains(text, `"minimal":true`) {
		t.Errorf("dashboard: %s", text)
	}
	res := handle(t, s, "resources/read", `{"uri":"pad://workspace/old/dashboard"}`)
	if b, _ := json.Marshal(res); !strings.Contains(string(b), `\"minimal\":true`) {
		t.Errorf("dashboard resource: %s", b)
	}
	// A route this padd lacks is not_implemented, with an upgrade hint.
	text, isErr = toolText(t, handle(t, s, "tools/call", `{"name":"pad_item","arguments":{"action":"claim","ref":"TASK-1"}}`))
	if !isErr || !strings.Contains(text, `"code":"not_implemented"`) || !strings.Contains(text, "update padd") {
		t.Errorf("missing route: %s", text)
	}
	// Every request names the agent (an unnamed one as mcp-client), the
	// door, and this session's worker.
	if len(*seen) == 0 {
		t.Fatal("padd saw no item list")
	}
	h := (*seen)[0]
	if h.Get("X-Pad-Agent") != unnamedAgent || h.Get("X-Padd-Source") != "mcp" || h.Get("X-Pad-Worker") != s.worker || h.Get("Authorization") != "Bearer tok" {
		t.Errorf("headers: %v", h)
	}
}

// Tool handler errors are tool results, never JSON-RPC errors, so the
// model sees them.
func TestRefusalIsToolResult(t *testing.T) {
	s := NewServer(Options{Connect: func(context.Context) (*api.Client, error) { return nil, fmt.Errorf("no padd here") },
		Getenv: func(string) string { return "" }, Dir: t.TempDir()})
	text, isErr := toolText(t, handle(t, s, "tools/call", `{"name":"pad_workspace","arguments":{"action":"list"}}`))
	var e toolError
	if err := json.Unmarshal([]byte(text), &e); err != nil || !isErr || e.Code != api.CodeServerError || e.Details["reason"] != "padd_unreachable" || e.Hint == "" {
		t.Errorf("unreachable padd: %v %s", isErr, text)
	}
	res := handle(t, s, "tools/list", `{}`)
	tools, _ := res["tools"].([]any)
	if len(tools) != len(catalog) {
		t.Errorf("tools/list has %d tools", len(tools))
	}
}

// Against a padd that ignores ?include=, an item get asks for the
// comments and links on their own routes; a route it lacks is left out.
func TestItemGetFallback(t *testing.T) {
	srv, _ := oldPadd(t)
	s := NewServer(Options{Connect: func(context.Context) (*api.Client, error) { return api.NewClient(srv.URL, "tok"), nil },
		Getenv: func(string) string { return "" }, Dir: t.TempDir()})
	text, isErr := toolText(t, handle(t, s, "tools/call", `{"name":"pad_item","arguments":{"action":"get","ref":"TASK-1","workspace":"old"}}`))
	if isErr {
		t.Fatal(text)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	if cs, _ := got["comments"].([]any); len(cs) != 1 || !strings.Contains(fmt.Sprint(cs), "an old comment") {
		t.Errorf("comments: %v", got["comments"])
	}
	if _, has := got["links"]; has {
		t.Errorf("links from a padd without the route: %v", got["links"])
	}
	if item, _ := got["item"].(map[string]any); item["ref"] != "TASK-1" {
		t.Errorf("item: %v", got["item"])
	}
}
