package api

import (
	"encoding/json"
	"time"

	"github.com/padd/padd/model"
)

// Workspace is Pad's workspace shape.
type Workspace struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Description string `json:"description"`
	// Settings is Pad's settings text: {"context": ...} when the
	// workspace has a context, else {}.
	Settings  string     `json:"settings"`
	OwnerID   string     `json:"owner_id,omitempty"`
	Source    string     `json:"source,omitempty"`
	SortOrder int        `json:"sort_order"`
	Template  string     `json:"template,omitempty"`
	Seq       int64      `json:"seq"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
	// Context is what `pad workspace context set` keeps, as Pad answers
	// it; absent when none was set.
	Context *model.WorkspaceContext `json:"context,omitempty"`
}

// DeletedWorkspace is an entry of GET /workspaces/deleted: when the
// workspace is purged, and the whole days left until then (rounded up,
// never below 0), which Pad's CLI prints as DAYS LEFT.
type DeletedWorkspace struct {
	Workspace
	PurgeAt  time.Time `json:"purge_at"`
	DaysLeft int       `json:"days_left"`
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
	// Context is Pad's workspace context (`pad workspace context set`):
	// a JSON object replacing the one kept (null: left alone). Settings
	// is Pad's settings text; padd keeps its "context" member only and
	// refuses settings holding anything else, so nothing is dropped in
	// silence.
	Context  json.RawMessage `json:"context,omitempty"`
	Settings json.RawMessage `json:"settings,omitempty"`
}

// WorkspaceOrder is one entry of PUT /workspaces/reorder's list.
type WorkspaceOrder struct {
	Slug      string `json:"slug"`
	SortOrder int    `json:"sort_order"`
}

// Status is the answer of a write with nothing else to say:
// {"status": "ok"} (a reorder), {"status": "deleted"} (a role).
type Status struct {
	Status string `json:"status"`
}

// WorkspaceAccess is Pad's GET /workspaces/{ws}/me: the caller's role and
// which collections and items it may see. The lists of ids are null when
// access is "all", as Pad sends them.
type WorkspaceAccess struct {
	Role                    string   `json:"role"`
	CollectionAccess        string   `json:"collection_access"`
	VisibleCollectionIDs    []string `json:"visible_collection_ids"`
	FullAccessCollectionIDs []string `json:"full_access_collection_ids"`
	CollectionGrants        []any    `json:"collection_grants"`
	ItemGrants              []any    `json:"item_grants"`
}
