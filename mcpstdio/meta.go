package mcpstdio

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/padd/padd/api"
)

func init() {
	register(map[string]handler{
		"pad_meta.bootstrap":    metaBootstrap,
		"pad_meta.version":      metaVersion,
		"pad_meta.server-info":  metaServerInfo,
		"pad_meta.tool-surface": metaToolSurface,
		"pad_search.query":      searchQuery,
		"pad_item.search":       searchQuery,
	})
}

func metaBootstrap(c *call) (*result, error) {
	doc, _, err := bootstrap(c.ctx, c.p, c.ws)
	if err != nil {
		return nil, err
	}
	return &result{value: doc}, nil
}

// metaVersion is pad://_meta/version plus the versions that vary: the
// running padd's, this padctl's, and the request's MCP protocol.
func metaVersion(c *call) (*result, error) {
	v := versionFull{versionDoc: versionDocument(), PadCatalogBase: PadCatalogBase, PadctlVersion: api.Version,
		MCPProtocolVersion: protocolVersion(c.ctx)}
	var h api.Health
	if _, err := c.p.do(c.ctx, "GET", "/health", nil, nil, &h); err != nil {
		return nil, err
	}
	v.PaddVersion = h.Version
	return &result{value: v}, nil
}

func metaServerInfo(c *call) (*result, error) {
	return &result{value: serverInfo()}, nil
}

// surfaceTool is one tool in the tool-surface dump.
type surfaceTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Annotations map[string]bool `json:"annotations"`
	Actions     []surfaceAction `json:"actions,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type surfaceAction struct {
	Name      string   `json:"name"`
	ReadOnly  bool     `json:"read_only"`
	Available bool     `json:"available"`
	Required  []string `json:"required,omitempty"`
	Accepts   []string `json:"accepts"`
}

// toolSurface dumps the catalog: every tool, action and schema, and which
// actions this padd carries out.
func toolSurface() map[string]any {
	tools := make([]surfaceTool, 0, len(catalog))
	for _, t := range catalog {
		st := surfaceTool{Name: t.Name, Description: toolDescription(t), InputSchema: inputSchema(t),
			Annotations: map[string]bool{"readOnlyHint": t.Hints.ReadOnly, "destructiveHint": t.Hints.Destructive,
				"idempotentHint": t.Hints.Idempotent, "openWorldHint": t.Hints.OpenWorld}}
		for i := range t.Actions {
			a := &t.Actions[i]
			_, missing := notWired[actionKey(t, a)]
			st.Actions = append(st.Actions, surfaceAction{Name: a.Name, ReadOnly: a.ReadOnly, Available: !missing,
				Required: a.Required, Accepts: a.params()})
		}
		tools = append(tools, st)
	}
	return map[string]any{"tool_surface_version": ToolSurfaceVersion, "tools": tools}
}

// ToolSurfaceJSON is the catalog's dump as padd's REST route serves it
// (GET /api/v1/mcp/tool-surface), the same as pad_meta tool-surface.
func ToolSurfaceJSON() ([]byte, error) { return json.Marshal(toolSurface()) }

func metaToolSurface(c *call) (*result, error) {
	return &result{value: toolSurface()}, nil
}

// searchMax is padd's REST search cap, as pad_search's limit says; a
// larger limit could not be served.
const searchMax = 200

// searchHit is a search result: the item's summary and where it matched.
type searchHit struct {
	itemSummary
	Snippet string `json:"snippet,omitempty"`
}

func searchQuery(c *call) (*result, error) {
	limit := c.limitOf(listDefault, searchMax)
	offset, _ := c.a.int("offset")
	// An agent gets hits, not counts by collection: skip the facets, the
	// costly part of a search on a large workspace.
	q := url.Values{"q": {c.a.str("query")}, "workspace": {c.ws}, "limit": {strconv.Itoa(limit)},
		"offset": {strconv.FormatInt(offset, 10)}, "facets": {"false"},
		// Read-your-writes for this session's own writes only.
		"min_seq": {strconv.FormatInt(c.s.written.Load(), 10)}}
	for _, k := range []string{"collection", "status", "priority", "sort"} {
		if v := c.a.str(k); v != "" {
			q.Set(k, v)
		}
	}
	var res api.SearchResponse
	if _, err := c.p.do(c.ctx, "GET", "/search", q, nil, &res); err != nil {
		return nil, err
	}
	hits := make([]searchHit, 0, len(res.Results))
	for _, r := range res.Results {
		hits = append(hits, searchHit{itemSummary: summarize(r.Item), Snippet: r.Snippet})
	}
	hasMore := offset+int64(len(hits)) < int64(res.Total)
	out := map[string]any{"items": hits, "total": res.Total, "count": len(hits), "limit": limit, "has_more": hasMore}
	if res.Fuzzy {
		out["fuzzy"] = true
	}
	r := &result{value: out}
	if res.Note != "" {
		r.notes = append(r.notes, res.Note)
	}
	if hasMore {
		r.notes = append(r.notes, "More matches exist: refine the query or filters, or pass offset="+strconv.FormatInt(offset+int64(len(hits)), 10)+".")
	}
	return r, nil
}
