package api

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/padd/padd/model"
)

// The bounds of a search query (model's, which padd refuses a query
// over with validation_error): the most characters, and the most terms.
const (
	SearchMaxQueryChars = model.MaxQueryChars
	SearchMaxQueryTerms = model.MaxQueryTerms
)

// SearchQuery is the parameters of GET /search, in Pad's vocabulary.
// Zero members are not sent.
type SearchQuery struct {
	Query string
	// Workspace is a slug; "" searches every workspace.
	Workspace  string
	Collection string
	// Status and Priority values are ORed (sent comma-separated).
	Status          []string
	Priority        []string
	Sort            string // relevance (the default), created_at, updated_at or title
	IncludeArchived bool
	Limit           int // 0 = padd's default (50)
	Offset          int
}

// Values encodes the query as Pad's search parameters.
func (q SearchQuery) Values() url.Values {
	v := url.Values{"q": {q.Query}}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("workspace", q.Workspace)
	set("collection", q.Collection)
	set("status", strings.Join(q.Status, ","))
	set("priority", strings.Join(q.Priority, ","))
	if q.Sort != "relevance" {
		set("sort", q.Sort)
	}
	if q.IncludeArchived {
		v.Set("include_archived", "true")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	return v
}

// SearchResult is one hit: the item without its body, and the excerpt
// that matched, the matched words wrapped in <mark>...</mark>.
type SearchResult struct {
	Item    Item    `json:"item"`
	Snippet string  `json:"snippet"`
	Rank    float64 `json:"rank"`
}

// SearchFacets count the matches by collection slug and by status.
type SearchFacets struct {
	Collections map[string]int `json:"collections"`
	Statuses    map[string]int `json:"statuses"`
}

// SearchResponse answers GET /search. Fuzzy and Note are padd's: set
// when nothing matched exactly and the results allow for a typo.
type SearchResponse struct {
	Results []SearchResult `json:"results"`
	Total   int            `json:"total"`
	Limit   int            `json:"limit"`
	Offset  int            `json:"offset"`
	Facets  *SearchFacets  `json:"facets,omitempty"`
	Fuzzy   bool           `json:"fuzzy,omitempty"`
	Note    string         `json:"note,omitempty"`
}

// Search answers GET /search.
func (c *Client) Search(ctx context.Context, q SearchQuery) (*SearchResponse, error) {
	return call[SearchResponse](ctx, c, "GET", "/search", q.Values(), nil)
}

// Search index states.
const (
	IndexReady      = "ready"
	IndexRebuilding = "rebuilding"
	IndexFailed     = "failed"
)

// IndexStatus answers GET /padd/index: padd's search index. Done and
// Total are a rebuild's progress in items; Watermarks are, by workspace
// id, the change-log position the index has caught up to.
type IndexStatus struct {
	State      string           `json:"state"`
	Reason     string           `json:"reason,omitempty"`
	Done       int              `json:"done"`
	Total      int              `json:"total"`
	Docs       uint64           `json:"docs"`
	SizeBytes  int64            `json:"size_bytes"`
	Watermarks map[string]int64 `json:"watermarks"`
	Error      string           `json:"error,omitempty"`
}

// IndexStatus answers GET /padd/index.
func (c *Client) IndexStatus(ctx context.Context) (*IndexStatus, error) {
	return call[IndexStatus](ctx, c, "GET", "/padd/index", nil, nil)
}

// RebuildIndex sends POST /padd/index/rebuild. padd answers 202 at once
// and rebuilds in the background; the status it answers may not show
// the rebuild yet.
func (c *Client) RebuildIndex(ctx context.Context) (*IndexStatus, error) {
	return call[IndexStatus](ctx, c, "POST", "/padd/index/rebuild", nil, nil)
}

// call sends one request and decodes the answer into a new T.
func call[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any) (*T, error) {
	var out T
	if _, err := c.Do(ctx, method, path, q, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
