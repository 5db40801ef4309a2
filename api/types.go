// Package api holds padd's wire types (Pad's /api/v1 JSON shapes) and the
// Go client that padctl, the MCP server, the tray, sync and the tests use
// to talk to padd.
//
// Shapes follow a real Pad server: an item's fields and tags travel as
// JSON-encoded strings, as do a collection's schema and settings, because
// Pad's own CLI decodes them that way.
package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// SeqHeader answers a write to a workspace with the workspace's seq
// after it: a search sent with min_seq at that seq sees the write.
const SeqHeader = "X-Padd-Seq"

// Error is Pad's error body: {"error":{"code","message","details"}}.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Status is the HTTP status the error came with (not on the wire).
	Status int `json:"-"`
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Message + " (" + e.Code + ")"
}

// ErrorEnvelope wraps an Error on the wire.
type ErrorEnvelope struct {
	Error *Error `json:"error"`
}

// Workspace is Pad's workspace shape.
type Workspace struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Slug        string     `json:"slug"`
	Description string     `json:"description"`
	Settings    string     `json:"settings"`
	OwnerID     string     `json:"owner_id,omitempty"`
	Source      string     `json:"source,omitempty"`
	SortOrder   int        `json:"sort_order"`
	Template    string     `json:"template,omitempty"`
	Seq         int64      `json:"seq"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	DeletedAt   *time.Time `json:"deleted_at,omitempty"`
}

// Collection is Pad's collection shape; schema and settings are JSON text.
type Collection struct {
	ID              string     `json:"id"`
	WorkspaceID     string     `json:"workspace_id"`
	Name            string     `json:"name"`
	Slug            string     `json:"slug"`
	Icon            string     `json:"icon"`
	Description     string     `json:"description"`
	Schema          string     `json:"schema"`
	Settings        string     `json:"settings"`
	Traits          string     `json:"traits"`
	Prefix          string     `json:"prefix"`
	SortOrder       int        `json:"sort_order"`
	IsDefault       bool       `json:"is_default"`
	IsSystem        bool       `json:"is_system"`
	TracksWork      bool       `json:"tracks_work"`
	Seq             int64      `json:"seq"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	DeletedAt       *time.Time `json:"deleted_at,omitempty"`
	ArchivedAt      *time.Time `json:"archived_at,omitempty"`
	ItemCount       int        `json:"item_count"`
	ActiveItemCount int        `json:"active_item_count"`
	Warnings        *Warnings  `json:"warnings,omitempty"`
}

// Warnings is the additive write-warnings envelope.
type Warnings struct {
	UndeclaredFields      []string         `json:"undeclared_fields,omitempty"`
	DroppedFields         []string         `json:"dropped_fields,omitempty"`
	NotUnique             []map[string]any `json:"not_unique,omitempty"`
	UnguardedContentWrite bool             `json:"unguarded_content_write,omitempty"`
	Orphaned              []map[string]any `json:"orphaned,omitempty"`
}

// Item is Pad's item shape. Fields and Tags are JSON-encoded text.
type Item struct {
	ID               string            `json:"id"`
	WorkspaceID      string            `json:"workspace_id"`
	CollectionID     string            `json:"collection_id"`
	Title            string            `json:"title"`
	Slug             string            `json:"slug"`
	Ref              string            `json:"ref,omitempty"`
	Content          string            `json:"content"`
	Fields           string            `json:"fields"`
	Tags             string            `json:"tags"`
	Pinned           bool              `json:"pinned"`
	SortOrder        int64             `json:"sort_order"`
	ParentID         *string           `json:"parent_id,omitempty"`
	CreatedBy        string            `json:"created_by"`
	CreatedByName    string            `json:"created_by_name,omitempty"`
	LastModifiedBy   string            `json:"last_modified_by"`
	Source           string            `json:"source"`
	CreatedAt        time.Time         `json:"created_at"`
	UpdatedAt        time.Time         `json:"updated_at"`
	DeletedAt        *time.Time        `json:"deleted_at,omitempty"`
	AssignedUserID   *string           `json:"assigned_user_id,omitempty"`
	AgentRoleID      *string           `json:"agent_role_id,omitempty"`
	AgentRoleSlug    string            `json:"agent_role_slug,omitempty"`
	AgentRoleName    string            `json:"agent_role_name,omitempty"`
	RoleSortOrder    int64             `json:"role_sort_order"`
	ItemNumber       *int64            `json:"item_number,omitempty"`
	Seq              int64             `json:"seq"`
	CollectionSlug   string            `json:"collection_slug,omitempty"`
	CollectionName   string            `json:"collection_name,omitempty"`
	CollectionIcon   string            `json:"collection_icon,omitempty"`
	CollectionPrefix string            `json:"collection_prefix,omitempty"`
	ParentRef        string            `json:"parent_ref,omitempty"`
	ParentTitle      string            `json:"parent_title,omitempty"`
	HasChildren      bool              `json:"has_children,omitempty"`
	RelationTargets  map[string]any    `json:"relation_targets,omitempty"`
	Lease            *Lease            `json:"lease,omitempty"`
	Warnings         *Warnings         `json:"warnings,omitempty"`
	Appended         []map[string]any  `json:"appended,omitempty"`
	Extra            map[string]string `json:"-"`
}

// Lease is an item's live claim.
type Lease struct {
	Holder     string    `json:"holder"`
	Worker     string    `json:"worker,omitempty"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// FieldMap decodes the item's fields, keeping numbers exact.
func (it *Item) FieldMap() (map[string]any, error) { return DecodeObject(it.Fields) }

// TagList decodes the item's tags.
func (it *Item) TagList() []string {
	var t []string
	_ = json.Unmarshal([]byte(it.Tags), &t)
	return t
}

// DecodeObject decodes JSON object text keeping numbers exact; empty
// text is an empty object.
func DecodeObject(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("fields are not a JSON object: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// Flex is a request member that Pad accepts either as JSON text or as the
// JSON value itself ("fields": "{...}" or "fields": {...}).
type Flex json.RawMessage

// UnmarshalJSON keeps the raw bytes.
func (f *Flex) UnmarshalJSON(b []byte) error {
	*f = append((*f)[:0], b...)
	return nil
}

// MarshalJSON writes the raw bytes (null when empty).
func (f Flex) MarshalJSON() ([]byte, error) {
	if len(f) == 0 {
		return []byte("null"), nil
	}
	return f, nil
}

// Present reports whether the member was sent (and not null).
func (f Flex) Present() bool { return len(f) > 0 && string(f) != "null" }

// Value decodes the member: a JSON string is parsed as JSON text, any
// other JSON value is taken as is. Numbers stay exact.
func (f Flex) Value() (any, error) {
	if !f.Present() {
		return nil, nil
	}
	raw := []byte(f)
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		raw = []byte(s)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// FlexOf wraps a Go value as a Flex object member.
func FlexOf(v any) Flex {
	b, _ := json.Marshal(v)
	return Flex(b)
}

// ItemCreate is the body of POST .../collections/{coll}/items.
type ItemCreate struct {
	Title            string   `json:"title"`
	Content          string   `json:"content,omitempty"`
	Fields           Flex     `json:"fields,omitempty"`
	Field            []string `json:"field,omitempty"`
	Tags             Flex     `json:"tags,omitempty"`
	Pinned           bool     `json:"pinned,omitempty"`
	ParentID         *string  `json:"parent_id,omitempty"`
	Parent           *string  `json:"parent,omitempty"`
	AssignedUserID   *string  `json:"assigned_user_id,omitempty"`
	AgentRoleID      *string  `json:"agent_role_id,omitempty"`
	Role             *string  `json:"role,omitempty"`
	SortOrder        *int64   `json:"sort_order,omitempty"`
	RefuseUndeclared bool     `json:"refuse_undeclared_fields,omitempty"`
	OpKey            string   `json:"op_key,omitempty"`
	CreatedBy        string   `json:"created_by,omitempty"`
	Source           string   `json:"source,omitempty"`
}

// NoteEntry is an implementation-note append.
type NoteEntry struct {
	Summary string `json:"summary"`
	Details string `json:"details,omitempty"`
}

// DecisionEntry is a decision-log append.
type DecisionEntry struct {
	Decision  string `json:"decision"`
	Rationale string `json:"rationale,omitempty"`
}

// ItemUpdate is the body of PATCH .../items/{ref}.
type ItemUpdate struct {
	Title                    *string        `json:"title,omitempty"`
	Content                  *string        `json:"content,omitempty"`
	Fields                   Flex           `json:"fields,omitempty"`
	FieldsPatch              Flex           `json:"fields_patch,omitempty"`
	Field                    []string       `json:"field,omitempty"`
	Tags                     Flex           `json:"tags,omitempty"`
	Pinned                   *bool          `json:"pinned,omitempty"`
	SortOrder                *int64         `json:"sort_order,omitempty"`
	ParentID                 *string        `json:"parent_id,omitempty"`
	Parent                   *string        `json:"parent,omitempty"`
	ClearParent              bool           `json:"clear_parent,omitempty"`
	AssignedUserID           *string        `json:"assigned_user_id,omitempty"`
	AgentRoleID              *string        `json:"agent_role_id,omitempty"`
	Role                     *string        `json:"role,omitempty"`
	ClearAssignedUser        bool           `json:"clear_assigned_user,omitempty"`
	ClearAgentRole           bool           `json:"clear_agent_role,omitempty"`
	ExpectedSeq              *int64         `json:"expected_seq,omitempty"`
	ExpectedUpdatedAt        string         `json:"expected_updated_at,omitempty"`
	Replace                  bool           `json:"replace,omitempty"`
	Force                    bool           `json:"force,omitempty"`
	RefuseUndeclared         bool           `json:"refuse_undeclared_fields,omitempty"`
	OverwritePendingEdits    bool           `json:"overwrite_pending_edits,omitempty"`
	Comment                  *string        `json:"comment,omitempty"`
	ChangeSummary            string         `json:"change_summary,omitempty"`
	AppendImplementationNote *NoteEntry     `json:"append_implementation_note,omitempty"`
	AppendDecision           *DecisionEntry `json:"append_decision,omitempty"`
	Source                   string         `json:"source,omitempty"`
	OpKey                    string         `json:"op_key,omitempty"`
}

// ItemMove is the body of POST .../items/{ref}/move.
type ItemMove struct {
	TargetCollection string         `json:"target_collection"`
	FieldOverrides   map[string]any `json:"field_overrides,omitempty"`
	Fields           map[string]any `json:"fields,omitempty"`
	Field            []string       `json:"field,omitempty"`
	Force            bool           `json:"force,omitempty"`
}

// BulkRequest is the body of POST .../items/bulk.
type BulkRequest struct {
	IDs        []string       `json:"ids"`
	Op         string         `json:"op"`
	Status     string         `json:"status,omitempty"`
	Priority   string         `json:"priority,omitempty"`
	Collection string         `json:"collection,omitempty"`
	Tags       []string       `json:"tags,omitempty"`
	Role       string         `json:"role,omitempty"`
	Assign     string         `json:"assign,omitempty"`
	Fields     map[string]any `json:"fields,omitempty"`
}

// BulkRow is one item's outcome in a bulk answer.
type BulkRow struct {
	Ref     string `json:"ref"`
	ID      string `json:"id,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

// BulkResponse answers a bulk request.
type BulkResponse struct {
	Op      string    `json:"op"`
	Updated []BulkRow `json:"updated"`
	Failed  []BulkRow `json:"failed"`
	Total   int       `json:"total"`
}

// WorkspaceCreate is the body of POST /workspaces.
type WorkspaceCreate struct {
	Name        string `json:"name"`
	Slug        string `json:"slug,omitempty"`
	Description string `json:"description,omitempty"`
	Template    string `json:"template,omitempty"`
}

// WorkspaceUpdate is the body of PATCH /workspaces/{ws}.
type WorkspaceUpdate struct {
	Name              *string `json:"name,omitempty"`
	Description       *string `json:"description,omitempty"`
	SortOrder         *int    `json:"sort_order,omitempty"`
	ClearImportStatus bool    `json:"clear_import_status,omitempty"`
}

// CollectionCreate is the body of POST /workspaces/{ws}/collections.
type CollectionCreate struct {
	Name        string `json:"name"`
	Slug        string `json:"slug,omitempty"`
	Prefix      string `json:"prefix,omitempty"`
	Icon        string `json:"icon,omitempty"`
	Description string `json:"description,omitempty"`
	Schema      Flex   `json:"schema,omitempty"`
	Fields      string `json:"fields,omitempty"` // the field DSL
	Settings    Flex   `json:"settings,omitempty"`
	TracksWork  Flex   `json:"tracks_work,omitempty"`
	IsSystem    bool   `json:"is_system,omitempty"`
	SortOrder   *int   `json:"sort_order,omitempty"`
}

// CollectionUpdate is the body of PATCH .../collections/{coll}.
type CollectionUpdate struct {
	Name              *string `json:"name,omitempty"`
	Prefix            *string `json:"prefix,omitempty"`
	Icon              *string `json:"icon,omitempty"`
	Description       *string `json:"description,omitempty"`
	Schema            Flex    `json:"schema,omitempty"`
	Fields            *string `json:"fields,omitempty"`
	Settings          Flex    `json:"settings,omitempty"`
	TracksWork        Flex    `json:"tracks_work,omitempty"`
	SortOrder         *int    `json:"sort_order,omitempty"`
	ExpectedUpdatedAt string  `json:"expected_updated_at,omitempty"`
}

// Health answers GET /health.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	PID     int    `json:"pid,omitempty"`
}

// Capabilities answers GET /server/capabilities.
type Capabilities struct {
	CollectionResolution bool     `json:"collection_resolution"`
	Capabilities         []string `json:"capabilities"`
	Version              string   `json:"version"`
}

// Has reports whether the server advertises a capability.
func (c *Capabilities) Has(name string) bool {
	for _, n := range c.Capabilities {
		if n == name {
			return true
		}
	}
	return false
}
