package api

import "time"

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
