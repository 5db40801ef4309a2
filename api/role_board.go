package api

// RoleLane is one lane of GET /workspaces/{ws}/roles/board: Role nil for
// the unassigned lane, its open items by role_sort_order, and the names
// of the users its items are assigned to.
type RoleLane struct {
	Role          *AgentRole `json:"role"`
	Items         []Item     `json:"items"`
	AssignedUsers []string   `json:"assigned_users"`
}

// RoleBoard is the board's answer.
type RoleBoard struct {
	Lanes []RoleLane `json:"lanes"`
}

// RoleSortUpdate is one element of PUT .../roles/board/reorder's array:
// an item's place in its lane.
type RoleSortUpdate struct {
	ItemID        string `json:"item_id"`
	RoleSortOrder int64  `json:"role_sort_order"`
}

// RoleOrderUpdate is one element of PUT .../roles/board/lane-order's
// array: a role's lane's place.
type RoleOrderUpdate struct {
	RoleID    string `json:"role_id"`
	SortOrder int    `json:"sort_order"`
}
