package mcpstdio

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Tool schemas are Pad's FLAT UNION: one object per tool whose properties
// are every param any action reads, with only `action` (or, for
// pad_set_workspace, `workspace`) schema-required. Per-action requirements
// are checked at call time (validate.go) and spelled out in the action
// param's description, because a flat schema cannot say them.
//
// The bytes are built by hand, not through a map, so their key order is
// fixed: they are part of the golden tools/list contract.

// inputSchema renders a tool's input schema as compact JSON.
func inputSchema(t *toolDef) json.RawMessage {
	params := append([]paramDef(nil), t.Params...)
	sort.Slice(params, func(i, j int) bool { return params[i].Name < params[j].Name })
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, p.Name)
		b.WriteByte(':')
		writeParamSchema(&b, t, p)
	}
	b.WriteString(`},"required":[`)
	if len(t.Actions) > 0 {
		b.WriteString(`"action"`)
	} else {
		b.WriteString(`"workspace"`)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.Bytes())
}

func writeParamSchema(b *bytes.Buffer, t *toolDef, p paramDef) {
	b.WriteString(`{"type":`)
	writeString(b, p.Type)
	if p.Type == tArray {
		b.WriteString(`,"items":{"type":`)
		writeString(b, p.Items)
		b.WriteByte('}')
	}
	enum, desc := p.Enum, p.Desc
	if p.Name == "action" && len(t.Actions) > 0 {
		enum, desc = t.actionNames(), actionDescription(t, p.Desc)
	}
	if len(enum) > 0 {
		b.WriteString(`,"enum":[`)
		for i, e := range enum {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e)
		}
		b.WriteByte(']')
	}
	if desc != "" {
		b.WriteString(`,"description":`)
		writeString(b, desc)
	}
	b.WriteByte('}')
}

// actionDescription says, per action, what it requires: the part of the
// contract a flat schema cannot express.
func actionDescription(t *toolDef, lead string) string {
	var parts []string
	for _, a := range t.Actions {
		req := append([]string(nil), a.Required...)
		for _, g := range a.OneOf {
			req = append(req, strings.Join(g, " or "))
		}
		if len(req) > 0 {
			parts = append(parts, a.Name+" needs "+strings.Join(req, ", "))
		}
	}
	if len(parts) == 0 {
		return lead
	}
	return lead + " " + strings.Join(parts, "; ") + "."
}

// writeString writes s as a JSON string without HTML escaping, the form
// the wire carries it in.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// toolDescription is the tool's description plus, honestly, the actions
// this padd does not carry out yet.
func toolDescription(t *toolDef) string {
	var missing []string
	for _, a := range t.Actions {
		if _, ok := notWired[t.Name+"."+a.Name]; ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) == 0 {
		return t.Desc
	}
	if len(missing) == len(t.Actions) {
		return t.Desc + " Not available in this padd yet (answers not_implemented)."
	}
	return t.Desc + " Not available in this padd yet (answer not_implemented): " + strings.Join(missing, ", ") + "."
}

// mcpTool builds the mcp-go tool. NewToolWithRawSchema, never NewTool:
// NewTool sets a struct schema too and the tool then cannot be marshalled.
func mcpTool(t *toolDef) mcpgo.Tool {
	tool := mcpgo.NewToolWithRawSchema(t.Name, toolDescription(t), inputSchema(t))
	tool.Annotations = mcpgo.ToolAnnotation{
		Title:           t.Title,
		ReadOnlyHint:    mcpgo.ToBoolPtr(t.Hints.ReadOnly),
		DestructiveHint: mcpgo.ToBoolPtr(t.Hints.Destructive),
		IdempotentHint:  mcpgo.ToBoolPtr(t.Hints.Idempotent),
		OpenWorldHint:   mcpgo.ToBoolPtr(t.Hints.OpenWorld),
	}
	return tool
}
