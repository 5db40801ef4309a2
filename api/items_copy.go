package api

// ItemCopyRequest is the body of both POST .../items/{ref}/copy/preflight
// and POST .../items/{ref}/copy (ITM-11). The URL names the source; the
// body the destination, in another of one's own workspaces.
type ItemCopyRequest struct {
	TargetWorkspace  string `json:"target_workspace"`
	TargetCollection string `json:"target_collection"`
	// FieldOverrides sets destination fields by key; a null value keeps
	// the key from being carried (the destination's default applies).
	FieldOverrides map[string]any `json:"field_overrides,omitempty"`
	// Field is padd's addition, as on a move: "key=value" entries, typed
	// by the destination's schema.
	Field         []string `json:"field,omitempty"`
	ArchiveSource bool     `json:"archive_source"`
	OpKey         string   `json:"op_key,omitempty"`
}

// CopySource names the item a copy reads (and, on a move, archives).
type CopySource struct {
	WorkspaceSlug  string `json:"workspace_slug"`
	CollectionSlug string `json:"collection_slug"`
	Ref            string `json:"ref,omitempty"`
	Slug           string `json:"slug"`
	Title          string `json:"title"`
	// Archived and Seq are the copy's answer only: whether the source
	// is archived after it, and the source workspace's seq of that
	// archive.
	Archived *bool `json:"archived,omitempty"`
	Seq      int64 `json:"seq,omitempty"`
}

// CopyDestination names where a copy lands; Ref, Slug and Seq are the
// copy's answer only.
type CopyDestination struct {
	WorkspaceSlug  string `json:"workspace_slug"`
	WorkspaceName  string `json:"workspace_name"`
	CollectionSlug string `json:"collection_slug"`
	CollectionName string `json:"collection_name"`
	Ref            string `json:"ref,omitempty"`
	Slug           string `json:"slug,omitempty"`
	Seq            int64  `json:"seq,omitempty"`
}

// CopyCarried is a destination field the copy writes, and whence:
// "migrated" (from the source), "override" or "default".
type CopyCarried struct {
	Key   string `json:"key"`
	Label string `json:"label,omitempty"`
	Type  string `json:"type,omitempty"`
	Value any    `json:"value"`
	From  string `json:"from"`
}

// CopyDropped is a value the copy leaves behind. Kind is "field" or
// "assignment"; Reason one of no_target_field, incompatible_type,
// target_computed, not_unique (Detail says who holds the value),
// referent_not_portable, assignee_not_a_member, agent_role_not_portable.
type CopyDropped struct {
	Key    string `json:"key"`
	Label  string `json:"label,omitempty"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// CopyNeedsValue is a destination field the caller must give a value
// before the copy goes ahead. Reason is missing_required, invalid_value
// or state_change (the copy would change the item's state).
type CopyNeedsValue struct {
	Key      string   `json:"key"`
	Label    string   `json:"label,omitempty"`
	Type     string   `json:"type,omitempty"`
	Options  []string `json:"options,omitempty"`
	Required bool     `json:"required"`
	Reason   string   `json:"reason"`
	Message  string   `json:"message,omitempty"`
}

// CopyFields is the preflight's three lists, always present.
type CopyFields struct {
	Carried    []CopyCarried    `json:"carried"`
	Dropped    []CopyDropped    `json:"dropped"`
	NeedsValue []CopyNeedsValue `json:"needs_value"`
}

// CopyPreflightWarnings is what a copy leaves behind or brings, beyond
// fields: nothing of the item's relations travels.
type CopyPreflightWarnings struct {
	ChildCount           int              `json:"child_count"`
	ChildrenOrphaned     bool             `json:"children_orphaned"`
	DroppedParent        bool             `json:"dropped_parent"`
	OutgoingLinks        map[string]int   `json:"outgoing_links"`
	IncomingLinks        map[string]int   `json:"incoming_links"`
	DroppedAssignee      bool             `json:"dropped_assignee"`
	DroppedAgentRole     bool             `json:"dropped_agent_role"`
	AttachmentCount      int              `json:"attachment_count"`
	AttachmentBytes      int64            `json:"attachment_bytes"`
	UnresolvableRefCount int              `json:"unresolvable_ref_count"`
	RelationshipsPartial bool             `json:"relationships_partial"`
	NotUnique            []map[string]any `json:"not_unique,omitempty"`
}

// ItemCopyPreflight answers POST .../copy/preflight (200): what the copy
// would do. Valid means only that NeedsValue is empty.
type ItemCopyPreflight struct {
	Source        CopySource            `json:"source"`
	Destination   CopyDestination       `json:"destination"`
	ArchiveSource bool                  `json:"archive_source"`
	Valid         bool                  `json:"valid"`
	Fields        CopyFields            `json:"fields"`
	Warnings      CopyPreflightWarnings `json:"warnings"`
}

// CopyResultWarnings is what a copy dropped and brought.
type CopyResultWarnings struct {
	DroppedFields        []string         `json:"dropped_fields"`
	DroppedAssignee      bool             `json:"dropped_assignee"`
	DroppedAgentRole     bool             `json:"dropped_agent_role"`
	AttachmentCount      int              `json:"attachment_count"`
	AttachmentBytes      int64            `json:"attachment_bytes"`
	UnresolvableRefCount int              `json:"unresolvable_ref_count"`
	NotUnique            []map[string]any `json:"not_unique,omitempty"`
}

// ItemCopyResult answers POST .../copy (201).
type ItemCopyResult struct {
	Source        CopySource         `json:"source"`
	Destination   CopyDestination    `json:"destination"`
	ArchiveSource bool               `json:"archive_source"`
	Item          *Item              `json:"item"`
	Warnings      CopyResultWarnings `json:"warnings"`
}
