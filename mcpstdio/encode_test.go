package mcpstdio

import (
	"bytes"
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// encodeMessage writes what json.Marshal writes, for tool answers of any
// text (HTML, line and paragraph separators, invalid UTF-8, control
// characters), errors, structured content, and ids of either kind.
func FuzzEncodeMessage(f *testing.F) {
	for _, s := range []string{"", `{"ref":"TASK-1","title":"<b>a & b</b>"}`, "line\u2028para\u2029", "\xff\xfe bad", "tab\tnul\x00", `"quoted" \ back`} {
		f.Add(s, int64(7), false)
		f.Add(s, int64(-1), true)
	}
	f.Fuzz(func(t *testing.T, text string, id int64, isError bool) {
		results := []any{
			&mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(text)}, IsError: isError},
			&mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(text), mcpgo.NewTextContent("note")}},
			&mcpgo.CallToolResult{Content: []mcpgo.Content{}, StructuredContent: map[string]any{"text": text}},
			&mcpgo.CallToolResult{Result: mcpgo.Result{ResultType: "complete", Meta: &mcpgo.Meta{AdditionalFields: map[string]any{"k": text}}},
				Content: []mcpgo.Content{mcpgo.NewTextContent(text)}},
			&mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent("x")}, RawStructuredContent: json.RawMessage(`{"a":"<&>"}`)},
			(*mcpgo.CallToolResult)(nil),
			map[string]any{"tools": []any{text}},
		}
		for _, rid := range []any{id, text} {
			for _, res := range results {
				msg := mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(rid), res)
				want, werr := json.Marshal(msg)
				got, gerr := encodeMessage(msg)
				if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
					t.Fatalf("encodeMessage(%#v)\n got %s (%v)\nwant %s (%v)", res, got, gerr, want, werr)
				}
			}
		}
	})
}
