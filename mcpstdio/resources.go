package mcpstdio

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/padd/padd/api"
)

// Resources are read-only views that are cheaper for a client to show than
// a tool call. They sit outside the tool surface: ToolSurfaceVersion does
// not move when they change.

// itemsResourceCap bounds pad://workspace/{ws}/items (Pad's cap): a
// workspace's whole item list would not fit a context window.
const itemsResourceCap = 200

const (
	mimeJSON     = "application/json"
	mimeMarkdown = "text/markdown"
	mimeText     = "text/plain"
)

type resourceFunc func(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error)

func (s *Server) addResources() {
	s.mcp.AddResource(mcpgo.NewResource("pad://workspaces", "pad workspaces",
		mcpgo.WithMIMEType(mimeJSON), mcpgo.WithResourceDescription("The workspaces padd holds: slug, name, description.")),
		s.resource(readWorkspaces))
	s.mcp.AddResource(mcpgo.NewResource("pad://_meta/version", "pad meta version",
		mcpgo.WithMIMEType(mimeJSON), mcpgo.WithResourceDescription("The tool-surface contract versions (tool_surface_version, cmdhelp_version).")),
		s.resource(readVersion))
	templates := []struct {
		uri, name, mime, desc string
		read                  resourceFunc
	}{
		{"pad://workspace/{workspace}/items", "pad items", mimeJSON, "Item summaries of a workspace, at most 200 (a second text block says when there are more).", readItems},
		{"pad://workspace/{workspace}/items/{ref}", "pad item", mimeMarkdown, "One item as Markdown: its fields, then its body.", readItem},
		{"pad://workspace/{workspace}/collections", "pad collections", mimeJSON, "Collections with their schemas and counts.", readCollections},
		{"pad://workspace/{workspace}/dashboard", "pad dashboard", mimeJSON, "The workspace dashboard (same as pad_project dashboard).", readDashboard},
		{"pad://workspace/{workspace}/bootstrap", "pad bootstrap", mimeJSON, "One-shot workspace overview (same as pad_meta bootstrap).", readBootstrap},
		{"pad://workspace/{workspace}/attachments/{id}", "pad attachment image", "image/*", "An image attachment as base64, at most 1 MiB (other files: pad_attachment show, padctl attachment download).", readAttachment},
	}
	for _, t := range templates {
		s.mcp.AddResourceTemplate(mcpgo.NewResourceTemplate(t.uri, t.name,
			mcpgo.WithTemplateMIMEType(t.mime), mcpgo.WithTemplateDescription(t.desc)), s.resource(t.read))
	}
}

// resource adapts a reader: template variables (mcp-go hands them over as
// []string) become plain strings, and refusals become errors that carry
// code and hint, since resources have no isError result.
func (s *Server) resource(read resourceFunc) func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
	return func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		vars := map[string]string{"uri": req.Params.URI}
		for k, v := range req.Params.Arguments {
			switch x := v.(type) {
			case []string:
				if len(x) > 0 {
					vars[k] = x[0]
				}
			case string:
				vars[k] = x
			}
		}
		out, err := read(ctx, s.conn(ctx), vars)
		if err != nil {
			e := fromAPI(err)
			return nil, fmt.Errorf("%s: %s (hint: %s)", e.Code, e.Message, e.Hint)
		}
		return out, nil
	}
}

func textContents(uri, mime, text string) mcpgo.TextResourceContents {
	return mcpgo.TextResourceContents{URI: uri, MIMEType: mime, Text: text}
}

func jsonContents(uri string, v any) []mcpgo.ResourceContents {
	return []mcpgo.ResourceContents{textContents(uri, mimeJSON, jsonText(v))}
}

func readWorkspaces(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	wss, err := listWorkspaces(ctx, p)
	if err != nil {
		return nil, err
	}
	return jsonContents(vars["uri"], shapeWorkspaces(wss)), nil
}

func readVersion(_ context.Context, _ *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	return jsonContents(vars["uri"], versionDocument()), nil
}

func readItems(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	var items []api.Item
	q := url.Values{"limit": {strconv.Itoa(itemsResourceCap + 1)}}
	if _, err := p.do(ctx, "GET", wsPath(vars["workspace"])+"/items", q, nil, &items); err != nil {
		return nil, err
	}
	c := capRows(items, itemsResourceCap, func(it api.Item) any { return summarize(it) })
	out := jsonContents(vars["uri"], map[string]any{"items": c.rows, "count": len(c.rows), "has_more": c.hasMore})
	if c.hasMore {
		out = append(out, textContents(vars["uri"], mimeText, fmt.Sprintf(
			"Truncated: this resource shows the first %d items and the workspace has more. Use the pad_item tool's list action with filters to see the rest.", itemsResourceCap)))
	}
	return out, nil
}

func readItem(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	it, err := getItem(ctx, p, vars["workspace"], vars["ref"])
	if err != nil {
		return nil, err
	}
	md, err := itemMarkdown(it)
	if err != nil {
		return nil, err
	}
	return []mcpgo.ResourceContents{textContents(vars["uri"], mimeMarkdown, md)}, nil
}

func readCollections(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	cs, err := listCollections(ctx, p, vars["workspace"])
	if err != nil {
		return nil, err
	}
	return jsonContents(vars["uri"], shapeCollections(cs, shapeCollection)), nil
}

func readDashboard(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	d, err := dashboardOf(ctx, p, vars["workspace"])
	if err != nil {
		return nil, err
	}
	return jsonContents(vars["uri"], d), nil
}

func readBootstrap(ctx context.Context, p *paddConn, vars map[string]string) ([]mcpgo.ResourceContents, error) {
	doc, _, err := bootstrap(ctx, p, vars["workspace"])
	if err != nil {
		return nil, err
	}
	return jsonContents(vars["uri"], doc), nil
}

// itemMarkdown renders an item: a heading, one line per fact and field,
// then the body. Field values keep their JSON meaning: a number keeps
// every digit, null reads null, structured values are compact JSON, and
// a string is shown as is unless it spans lines (then it is quoted, so
// the list stays one line per field).
func itemMarkdown(it api.Item) (string, error) {
	fields, err := it.FieldMap()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", it.Ref, it.Title)
	line := func(k, v string) { fmt.Fprintf(&b, "- **%s**: %s\n", k, v) }
	line("collection", it.CollectionSlug)
	line("seq", strconv.FormatInt(it.Seq, 10))
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line(k, markdownValue(fields[k]))
	}
	if tags := it.TagList(); len(tags) > 0 {
		line("tags", strings.Join(tags, ", "))
	}
	if it.ParentRef != "" {
		line("parent", strings.TrimSpace(it.ParentRef+" "+it.ParentTitle))
	}
	if it.AgentRoleSlug != "" {
		line("role", it.AgentRoleSlug)
	}
	by := it.CreatedBy
	if it.CreatedByName != "" {
		by += " (" + it.CreatedByName + ")"
	}
	line("created_by", by)
	line("created_at", it.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	line("updated_at", it.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	if it.DeletedAt != nil {
		line("archived_at", it.DeletedAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if it.Content != "" {
		b.WriteString("\n---\n\n")
		b.WriteString(it.Content)
		if !strings.HasSuffix(it.Content, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

func markdownValue(v any) string {
	if s, ok := v.(string); ok && !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return jsonText(v) // json.Number keeps its digits; nil is null
}
