package api

import "github.com/padd/padd/model"

// The agent bootstrap (Pad's PRJ-09): one answer with what an agent
// needs to start working in a workspace. Shapes are Pad's slim v0.4
// projections: no ids beyond the workspace's, no timestamps, schemas as
// objects.

// Bootstrap is the reply of GET /workspaces/{ws}/agent/bootstrap.
type Bootstrap struct {
	Workspace       BootstrapWorkspace    `json:"workspace"`
	User            BootstrapUser         `json:"user"`
	Collections     []BootstrapCollection `json:"collections"`
	Conventions     []BootstrapConvention `json:"conventions"`
	ConventionIndex []ConventionMeta      `json:"convention_index"`
	Roles           []BootstrapRole       `json:"roles"`
	Playbooks       []model.PlaybookMeta  `json:"playbooks"`
	Dashboard       *BootstrapDashboard   `json:"dashboard,omitempty"`
	NeedsOnboarding bool                  `json:"needs_onboarding"`
	BuiltinUpdates  int                   `json:"builtin_updates,omitempty"`
}

// BootstrapWorkspace addresses the workspace.
type BootstrapWorkspace struct {
	ID          string `json:"id"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// BootstrapUser is the caller.
type BootstrapUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// BootstrapCollection is a collection without ids, timestamps or
// settings, its schema an object whose derivable labels are left out.
type BootstrapCollection struct {
	Slug            string          `json:"slug"`
	Name            string          `json:"name"`
	Prefix          string          `json:"prefix"`
	Icon            string          `json:"icon,omitempty"`
	Description     string          `json:"description,omitempty"`
	Schema          BootstrapSchema `json:"schema"`
	SortOrder       int             `json:"sort_order,omitempty"`
	IsDefault       bool            `json:"is_default"`
	IsSystem        bool            `json:"is_system"`
	ItemCount       int             `json:"item_count"`
	ActiveItemCount int             `json:"active_item_count"`
}

// BootstrapSchema is a schema whose labels are omitted when they equal
// TitleCase(key): an agent can rebuild those, so they only cost bytes.
type BootstrapSchema struct {
	Fields []BootstrapField `json:"fields"`
}

// BootstrapField is a FieldDef whose label may be left out. The outer
// Label shadows the embedded one in JSON, so every other member of
// FieldDef, present or future, still ships verbatim.
type BootstrapField struct {
	model.FieldDef
	Label string `json:"label,omitempty"`
}

// BootstrapConvention is an always-on convention with its body; it has
// no slug (agents address items by ref).
type BootstrapConvention struct {
	Ref      string `json:"ref"`
	Title    string `json:"title"`
	Content  string `json:"content"`
	Priority string `json:"priority,omitempty"`
	Scope    string `json:"scope,omitempty"`
	Trigger  string `json:"trigger,omitempty"`
}

// ConventionMeta lists every active convention without its body, so the
// triggered ones are discoverable before their trigger fires.
type ConventionMeta struct {
	Ref     string `json:"ref"`
	Title   string `json:"title"`
	Trigger string `json:"trigger,omitempty"`
	Role    string `json:"role,omitempty"`
}

// BootstrapRole is a role without ids, timestamps or tools.
type BootstrapRole struct {
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Icon        string `json:"icon,omitempty"`
	SortOrder   int    `json:"sort_order"`
	ItemCount   int    `json:"item_count"`
}

// BootstrapDashboard is the workspace dashboard with five of its lists
// capped at model.BootstrapCap and the remainder of each counted in its
// *_overflow_count (omitted when nothing was cut). The cap is the
// bootstrap's: GET .../dashboard answers the full lists.
type BootstrapDashboard struct {
	*Dashboard
	AttentionOverflowCount      int `json:"attention_overflow_count,omitempty"`
	RecentActivityOverflowCount int `json:"recent_activity_overflow_count,omitempty"`
	ActiveItemsOverflowCount    int `json:"active_items_overflow_count,omitempty"`
	ActivePlansOverflowCount    int `json:"active_plans_overflow_count,omitempty"`
	ByRoleOverflowCount         int `json:"by_role_overflow_count,omitempty"`
}
