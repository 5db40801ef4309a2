package api

import "time"

// AgentRole is Pad's agent role shape.
type AgentRole struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Icon        string    `json:"icon"`
	Tools       string    `json:"tools"`
	SortOrder   int       `json:"sort_order"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	ItemCount   int       `json:"item_count,omitempty"`
}

// AgentRoleCreate is the body of POST .../agent-roles.
type AgentRoleCreate struct {
	Name        string `json:"name"`
	Slug        string `json:"slug,omitempty"`
	Description string `json:"description,omitempty"`
	Icon        string `json:"icon,omitempty"`
	Tools       string `json:"tools,omitempty"`
	SortOrder   int    `json:"sort_order,omitempty"`
}

// AgentRoleUpdate is the body of PATCH .../agent-roles/{role}.
type AgentRoleUpdate struct {
	Name        *string `json:"name,omitempty"`
	Slug        *string `json:"slug,omitempty"`
	Description *string `json:"description,omitempty"`
	Icon        *string `json:"icon,omitempty"`
	Tools       *string `json:"tools,omitempty"`
	SortOrder   *int    `json:"sort_order,omitempty"`
}
