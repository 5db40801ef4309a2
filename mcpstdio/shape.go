package mcpstdio

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/padd/padd/api"
)

// Agent-facing result caps (Pad's, applied here because a token budget is
// only knowable at the agent's door; padd's REST clamp is a separate,
// larger server-resource bound).
const (
	listDefault = 50
	listMax     = 300
	starredMax  = 300
)

// itemSummary is the default list shape: enough to choose and address an
// item, with seq to write it safely, and no body (Pad's ItemSummary).
type itemSummary struct {
	Ref           string          `json:"ref"`
	Title         string          `json:"title"`
	Collection    string          `json:"collection"`
	Fields        json.RawMessage `json:"fields"`
	Tags          json.RawMessage `json:"tags,omitempty"`
	Parent        string          `json:"parent,omitempty"`
	Role          string          `json:"role,omitempty"`
	HasChildren   bool            `json:"has_children,omitempty"`
	Seq           int64           `json:"seq"`
	UpdatedAt     time.Time       `json:"updated_at"`
	CreatedBy     string          `json:"created_by"`
	CreatedByName string          `json:"created_by_name,omitempty"`
	DeletedAt     *time.Time      `json:"deleted_at,omitempty"`
}

// itemFull is an item with its body, for get, full lists and writes.
// fields and tags are JSON, not the JSON text padd's REST shape carries,
// and keep every digit of a number.
type itemFull struct {
	ID              string           `json:"id"`
	Ref             string           `json:"ref"`
	Slug            string           `json:"slug"`
	Title           string           `json:"title"`
	Collection      string           `json:"collection"`
	Content         *string          `json:"content,omitempty"`
	Fields          json.RawMessage  `json:"fields"`
	Tags            json.RawMessage  `json:"tags"`
	Parent          string           `json:"parent,omitempty"`
	ParentTitle     string           `json:"parent_title,omitempty"`
	HasChildren     bool             `json:"has_children,omitempty"`
	Role            string           `json:"role,omitempty"`
	AssignedUserID  *string          `json:"assigned_user_id,omitempty"`
	Pinned          bool             `json:"pinned,omitempty"`
	Seq             int64            `json:"seq"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`
	CreatedBy       string           `json:"created_by"`
	CreatedByName   string           `json:"created_by_name,omitempty"`
	LastModifiedBy  string           `json:"last_modified_by"`
	Source          string           `json:"source,omitempty"`
	DeletedAt       *time.Time       `json:"deleted_at,omitempty"`
	RelationTargets map[string]any   `json:"relation_targets,omitempty"`
	CodeContext     *api.CodeContext `json:"code_context,omitempty"`
	Warnings        *api.Warnings    `json:"warnings,omitempty"`
	Appended        []map[string]any `json:"appended,omitempty"`
}

// rawJSON passes padd's JSON text through untouched (so numbers keep
// their digits), falling back to def when the text is empty or not JSON.
func rawJSON(text, def string) json.RawMessage {
	if text == "" || !json.Valid([]byte(text)) {
		return json.RawMessage(def)
	}
	return json.RawMessage(text)
}

func summarize(it api.Item) itemSummary {
	tags := rawJSON(it.Tags, "[]")
	if string(tags) == "[]" {
		tags = nil
	}
	return itemSummary{Ref: it.Ref, Title: it.Title, Collection: it.CollectionSlug, Fields: rawJSON(it.Fields, "{}"),
		Tags: tags, Parent: it.ParentRef, Role: it.AgentRoleSlug, HasChildren: it.HasChildren, Seq: it.Seq,
		UpdatedAt: it.UpdatedAt, CreatedBy: it.CreatedBy, CreatedByName: it.CreatedByName, DeletedAt: it.DeletedAt}
}

// fullItem is the item with its body (get, full lists).
func fullItem(it api.Item) itemFull {
	out := written(it)
	out.Content = &it.Content
	return out
}

// written is the answer to a write: the item as it now stands without the
// body the agent just sent (echoing it back costs tokens and says nothing).
func written(it api.Item) itemFull {
	return itemFull{ID: it.ID, Ref: it.Ref, Slug: it.Slug, Title: it.Title, Collection: it.CollectionSlug,
		Fields: rawJSON(it.Fields, "{}"), Tags: rawJSON(it.Tags, "[]"), Parent: it.ParentRef,
		ParentTitle: it.ParentTitle, HasChildren: it.HasChildren, Role: it.AgentRoleSlug, AssignedUserID: it.AssignedUserID,
		Pinned: it.Pinned, Seq: it.Seq, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, CreatedBy: it.CreatedBy,
		CreatedByName: it.CreatedByName, LastModifiedBy: it.LastModifiedBy, Source: it.Source, DeletedAt: it.DeletedAt,
		RelationTargets: it.RelationTargets, CodeContext: it.CodeContext, Warnings: it.Warnings, Appended: it.Appended}
}

// shapeItems projects a page: summaries unless full.
func shapeItems(items []api.Item, full bool) []any {
	out := make([]any, 0, len(items))
	for _, it := range items {
		if full {
			out = append(out, fullItem(it))
		} else {
			out = append(out, summarize(it))
		}
	}
	return out
}

// limitOf is a list's agent-facing limit: default 50, at most max (a
// larger ask is clamped, and the answer says the limit it used).
func (c *call) limitOf(def, max int) int {
	n, ok := c.a.int("limit")
	if !ok {
		return def
	}
	if n > int64(max) {
		return max
	}
	return int(n)
}

// capped is a list cut at its limit. Handlers ask padd for limit+1 rows,
// so one extra row proves more exist without counting them.
type capped struct {
	rows    []any
	limit   int
	hasMore bool
}

func capRows[T any](rows []T, limit int, shape func(T) any) capped {
	c := capped{limit: limit}
	if len(rows) > limit {
		rows, c.hasMore = rows[:limit], true
	}
	c.rows = make([]any, 0, len(rows))
	for _, r := range rows {
		c.rows = append(c.rows, shape(r))
	}
	return c
}

// listResult answers a capped list: {key: rows, count, limit, has_more},
// plus, when truncated, a second text block telling the agent how to see
// the rest. It never pages for the agent.
func listResult(key string, c capped, narrow string, extra map[string]any) *result {
	v := map[string]any{key: c.rows, "count": len(c.rows), "limit": c.limit, "has_more": c.hasMore}
	for k, x := range extra {
		v[k] = x
	}
	r := &result{value: v}
	if c.hasMore {
		r.notes = append(r.notes, fmt.Sprintf("Truncated: these are the first %d %s and more exist. %s", c.limit, key, narrow))
	}
	return r
}
