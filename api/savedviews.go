package api

import (
	"encoding/json"
	"time"
)

// SavedView is Pad's saved view of a collection (GET|POST
// /workspaces/{ws}/collections/{coll}/views, PATCH|DELETE .../views/{id}).
// Config is the view's JSON object as text, as Pad sends it.
type SavedView struct {
	ID           string    `json:"id"`
	WorkspaceID  string    `json:"workspace_id"`
	CollectionID string    `json:"collection_id"`
	Name         string    `json:"name"`
	Slug         string    `json:"slug"`
	ViewType     string    `json:"view_type"`
	Config       string    `json:"config"`
	SortOrder    int       `json:"sort_order"`
	IsDefault    bool      `json:"is_default"`
	Seq          int64     `json:"seq"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// SavedViewCreate is the body of POST .../views. Config is a JSON object
// or a string holding one; view_type list (the default), board or table.
type SavedViewCreate struct {
	Name     string          `json:"name"`
	Slug     string          `json:"slug,omitempty"`
	ViewType string          `json:"view_type,omitempty"`
	Config   json.RawMessage `json:"config,omitempty"`
}

// SavedViewUpdate is the body of PATCH .../views/{id}; absent members
// are left alone, a config of "" or {} empties it.
type SavedViewUpdate struct {
	Name      *string         `json:"name,omitempty"`
	ViewType  *string         `json:"view_type,omitempty"`
	Config    json.RawMessage `json:"config,omitempty"`
	SortOrder *int            `json:"sort_order,omitempty"`
}

// SavedViewExport is padd's member of the export (Pad's export has no
// saved views): a view with its collection's id in the export.
type SavedViewExport struct {
	CollectionID string `json:"collection_id"`
	Name         string `json:"name"`
	Slug         string `json:"slug"`
	ViewType     string `json:"view_type"`
	Config       string `json:"config"`
	SortOrder    int    `json:"sort_order"`
}
