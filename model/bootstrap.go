package model

import "strings"

// The agent bootstrap (Pad's PRJ-09): one answer with what an agent
// needs to start working in a workspace. Shapes are Pad's slim v0.4
// projections: no ids beyond the workspace's, no timestamps, schemas as
// objects.

// Bootstrap caps: each dashboard list ships at most this many entries
// and counts the rest in its *_overflow_count.
const BootstrapCap = 5

// Bootstrap is the reply of GET /workspaces/{ws}/agent/bootstrap.
type Bootstrap struct {
	Workspace       BootstrapWorkspace    `json:"workspace"`
	User            BootstrapUser         `json:"user"`
	Collections     []BootstrapCollection `json:"collections"`
	Conventions     []BootstrapConvention `json:"conventions"`
	ConventionIndex []ConventionMeta      `json:"convention_index"`
	Roles           []BootstrapRole       `json:"roles"`
	Playbooks       []PlaybookMeta        `json:"playbooks"`
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
	FieldDef
	Label string `json:"label,omitempty"`
}

// SlimSchema drops the derivable labels.
func SlimSchema(s Schema) BootstrapSchema {
	out := BootstrapSchema{Fields: make([]BootstrapField, len(s.Fields))}
	for i, f := range s.Fields {
		out.Fields[i] = BootstrapField{FieldDef: f}
		if f.Label != TitleCase(f.Key) {
			out.Fields[i].Label = f.Label
		}
	}
	return out
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
// capped at BootstrapCap and the remainder of each counted in its
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

// CapDashboard makes the bootstrap's view of a dashboard. d is not
// changed: the capped lists are new slice headers over its arrays.
func CapDashboard(d *Dashboard) *BootstrapDashboard {
	c := *d
	out := &BootstrapDashboard{Dashboard: &c}
	c.Attention, out.AttentionOverflowCount = capList(d.Attention)
	c.RecentActivity, out.RecentActivityOverflowCount = capList(d.RecentActivity)
	c.ActiveItems, out.ActiveItemsOverflowCount = capList(d.ActiveItems)
	c.ActivePlans, out.ActivePlansOverflowCount = capList(d.ActivePlans)
	c.ByRole, out.ByRoleOverflowCount = capList(d.ByRole)
	return out
}

func capList[T any](l []T) ([]T, int) {
	if len(l) <= BootstrapCap {
		return l, 0
	}
	return l[:BootstrapCap:BootstrapCap], len(l) - BootstrapCap
}

// DashboardSummary counts live items, per collection per done-field value.
type DashboardSummary struct {
	TotalItems   int                       `json:"total_items"`
	ByCollection map[string]map[string]int `json:"by_collection"`
}

// DashboardItem is an item in flight.
type DashboardItem struct {
	Slug           string `json:"slug"`
	Title          string `json:"title"`
	CollectionSlug string `json:"collection_slug"`
	CollectionIcon string `json:"collection_icon"`
	Priority       string `json:"priority,omitempty"`
	Status         string `json:"status"`
	UpdatedAt      string `json:"updated_at"`
	ItemRef        string `json:"item_ref,omitempty"`
}

// DashboardPlan is an active plan with its children's progress.
type DashboardPlan struct {
	Slug      string `json:"slug"`
	Ref       string `json:"ref,omitempty"`
	Title     string `json:"title"`
	Progress  int    `json:"progress"`
	TaskCount int    `json:"task_count"`
	DoneCount int    `json:"done_count"`
}

// DashboardNotice is an item the dashboard points at, with why.
type DashboardNotice struct {
	Type       string `json:"type,omitempty"`
	ItemSlug   string `json:"item_slug"`
	ItemRef    string `json:"item_ref,omitempty"`
	ItemTitle  string `json:"item_title"`
	Collection string `json:"collection"`
	Reason     string `json:"reason"`
}

// DashboardActivity is one recent feed entry.
type DashboardActivity struct {
	Action         string `json:"action"`
	Actor          string `json:"actor"`
	ActorName      string `json:"actor_name,omitempty"`
	Source         string `json:"source"`
	CreatedAt      string `json:"created_at"`
	ItemTitle      string `json:"item_title,omitempty"`
	ItemSlug       string `json:"item_slug,omitempty"`
	ItemRef        string `json:"item_ref,omitempty"`
	CollectionSlug string `json:"collection_slug,omitempty"`
}

// InFlightStatus reports whether a done-field value means work is under
// way (Pad's dashboard "active" statuses), across spellings.
func InFlightStatus(status string) bool {
	switch strings.ReplaceAll(strings.ToLower(status), "-", "_") {
	case "in_progress", "exploring", "fixing", "confirmed", "in_review":
		return true
	}
	return false
}
