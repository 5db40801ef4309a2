package api

import "time"

// Wire types of the routes around items: comments, links, backlinks,
// roles, stars, versions, activity, children, the sync feeds and the
// event stream. Shapes are Pad's (pad-cli-wire.md §3, the observed API);
// members Pad lacks are additive and say so.

// Comment is Pad's comment shape. Author is the writer's display name
// (the agent's own name for an agent); CreatedBy is "user" or "agent".
type Comment struct {
	ID          string    `json:"id"`
	ItemID      string    `json:"item_id"`
	WorkspaceID string    `json:"workspace_id"`
	Author      string    `json:"author"`
	UserID      string    `json:"user_id,omitempty"`
	Body        string    `json:"body"`
	CreatedBy   string    `json:"created_by"`
	Source      string    `json:"source"`
	ParentID    string    `json:"parent_id,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Edited is derived: updated_at is later than created_at (seconds).
	Edited bool `json:"edited"`
	// Deleted marks a tombstone kept for its replies (body emptied).
	Deleted   bool   `json:"deleted,omitempty"`
	ItemTitle string `json:"item_title,omitempty"`
	ItemSlug  string `json:"item_slug,omitempty"`
	Seq       int64  `json:"seq,omitempty"` // padd: the change-log position of the last write
}

// CommentCreate is the body of POST .../items/{ref}/comments and of
// POST .../comments/{id}/replies. ReplyTo is the MCP spelling of ParentID.
type CommentCreate struct {
	Body     string `json:"body"`
	ParentID string `json:"parent_id,omitempty"`
	ReplyTo  string `json:"reply_to,omitempty"`
	OpKey    string `json:"op_key,omitempty"`
	// Sent by some Pad clients; the server decides these itself.
	Author    string `json:"author,omitempty"`
	CreatedBy string `json:"created_by,omitempty"`
	Source    string `json:"source,omitempty"`
}

// CommentEdit is the body of PATCH .../comments/{id}.
type CommentEdit struct {
	Body *string `json:"body"`
}

// ItemLink is Pad's link shape, in its stored direction (source blocks
// target), with both ends described.
type ItemLink struct {
	ID                   string    `json:"id"`
	WorkspaceID          string    `json:"workspace_id"`
	SourceID             string    `json:"source_id"`
	TargetID             string    `json:"target_id"`
	LinkType             string    `json:"link_type"`
	CreatedBy            string    `json:"created_by"`
	CreatedAt            time.Time `json:"created_at"`
	SourceTitle          string    `json:"source_title,omitempty"`
	TargetTitle          string    `json:"target_title,omitempty"`
	SourceSlug           string    `json:"source_slug,omitempty"`
	TargetSlug           string    `json:"target_slug,omitempty"`
	SourceRef            string    `json:"source_ref,omitempty"`
	TargetRef            string    `json:"target_ref,omitempty"`
	SourceCollectionSlug string    `json:"source_collection_slug,omitempty"`
	TargetCollectionSlug string    `json:"target_collection_slug,omitempty"`
	SourceStatus         string    `json:"source_status,omitempty"`
	TargetStatus         string    `json:"target_status,omitempty"`
	Seq                  int64     `json:"seq,omitempty"` // padd addition
}

// ItemLinkCreate is the body of POST .../items/{ref}/links. TargetID is
// an item id as Pad's CLI sends it; padd also takes a ref or slug.
type ItemLinkCreate struct {
	TargetID  string `json:"target_id"`
	LinkType  string `json:"link_type,omitempty"`
	CreatedBy string `json:"created_by,omitempty"`
}

// Backlink is one [[...]] mention of an item. UpdatedAt is RFC 3339
// text, as Pad's CLI decodes it.
type Backlink struct {
	SourceItemID         string  `json:"source_item_id"`
	SourceRef            string  `json:"source_ref"`
	SourceTitle          string  `json:"source_title"`
	SourceCollectionSlug string  `json:"source_collection_slug"`
	SourceCollectionIcon string  `json:"source_collection_icon"`
	Snippet              string  `json:"snippet"`
	DisplayText          *string `json:"display_text,omitempty"`
	UpdatedAt            string  `json:"updated_at"`
}

// LinkedItem is another item as the deps answer shows it.
type LinkedItem struct {
	ID             string `json:"id"`
	Ref            string `json:"ref"`
	Slug           string `json:"slug"`
	Title          string `json:"title"`
	Status         string `json:"status,omitempty"`
	State          string `json:"state"` // open, done or abandoned
	CollectionSlug string `json:"collection_slug"`
	Archived       bool   `json:"archived,omitempty"`
}

// DepNode is one item of the blocking graph around an item.
type DepNode struct {
	LinkedItem
	Depth  int    `json:"depth"`         // 1 for a direct blocker or blockee
	Via    string `json:"via,omitempty"` // the ref it was reached through, past depth 1
	LinkID string `json:"link_id"`
}

// Deps answers GET .../items/{ref}/deps (padd's route behind the MCP
// deps action): the blocking graph both ways, nearest first.
type Deps struct {
	Item      LinkedItem `json:"item"`
	Blocks    []DepNode  `json:"blocks"`
	BlockedBy []DepNode  `json:"blocked_by"`
	// Truncated says the walk stopped at its depth or size bound.
	Truncated bool `json:"truncated"`
}

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

// StarState answers the star routes: POST and DELETE carry the ref,
// GET only starred.
type StarState struct {
	Ref     string `json:"ref,omitempty"`
	Starred bool   `json:"starred"`
}

// ItemVersion is one point of an item's content history. Pad's snapshot
// names the item document_id; item_id and the counts are newer Pad's.
type ItemVersion struct {
	ID            string    `json:"id"`
	DocumentID    string    `json:"document_id"`
	ItemID        string    `json:"item_id"`
	VersionSeq    int64     `json:"version_seq"`
	Title         string    `json:"title"`
	Content       string    `json:"content"`
	ChangeSummary string    `json:"change_summary,omitempty"`
	CreatedBy     string    `json:"created_by"`
	Source        string    `json:"source"`
	ActorName     string    `json:"actor_name,omitempty"`
	IsDiff        bool      `json:"is_diff"`
	IsCreate      bool      `json:"is_create"`
	LinesAdded    int       `json:"lines_added"`
	LinesRemoved  int       `json:"lines_removed"`
	CreatedAt     time.Time `json:"created_at"`
}

// VersionDiff answers GET .../versions/{id}/diff: the change the version
// recorded, Before -> After, and the same as a unified diff.
type VersionDiff struct {
	Version ItemVersion `json:"version"`
	Before  string      `json:"before"`
	After   string      `json:"after"`
	Unified string      `json:"unified"`
}

// Activity is Pad's activity row. Metadata is JSON text, as Pad serves
// it; DocumentID is the item's id.
type Activity struct {
	ID             string    `json:"id"`
	WorkspaceID    string    `json:"workspace_id,omitempty"`
	DocumentID     string    `json:"document_id,omitempty"`
	Action         string    `json:"action"`
	Actor          string    `json:"actor"`
	Source         string    `json:"source"`
	Metadata       string    `json:"metadata,omitempty"`
	UserID         string    `json:"user_id,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	ItemTitle      string    `json:"item_title,omitempty"`
	ItemSlug       string    `json:"item_slug,omitempty"`
	ItemRef        string    `json:"item_ref,omitempty"`
	CollectionSlug string    `json:"collection_slug,omitempty"`
	ActorName      string    `json:"actor_name,omitempty"`
	// Seq is padd's keyset position: ?before=<seq> continues below it.
	Seq int64 `json:"seq"`
}

// Progress answers GET .../items/{ref}/progress. Pad sends total, done
// and percentage; open and abandoned are padd's split of the rest.
type Progress struct {
	Total      int `json:"total"`
	Done       int `json:"done"`
	Percentage int `json:"percentage"`
	Open       int `json:"open"`
	Abandoned  int `json:"abandoned"`
}

// SyncItem is an item as the sync feeds send it: no body, plus the
// structural unparented bit; Deleted is set on /items-changes rows.
type SyncItem struct {
	Item
	IsUnparented bool  `json:"is_unparented"`
	Deleted      *bool `json:"deleted,omitempty"`
}

// Changes answers GET .../changes. Updated is the same list as Items,
// under the name Pad servers before the paged feed used.
type Changes struct {
	Items              []Item   `json:"items"`
	Updated            []Item   `json:"updated"`
	Deleted            []string `json:"deleted"`
	ServerTime         int64    `json:"server_time"`
	HasMore            bool     `json:"has_more"`
	NextCursor         string   `json:"next_cursor,omitempty"`
	CollectionsChanged bool     `json:"collections_changed"`
}

// ItemsChanges answers GET .../items-changes; Cursor is a decimal seq.
type ItemsChanges struct {
	Changes                    []SyncItem `json:"changes"`
	Cursor                     string     `json:"cursor"`
	IncludesUnparentedMetadata bool       `json:"includes_unparented_metadata"`
}

// ItemsIndex answers GET .../items-index; Cursor is the decimal seq to
// follow with /items-changes.
type ItemsIndex struct {
	Items                      []SyncItem `json:"items"`
	Total                      int        `json:"total"`
	Cursor                     string     `json:"cursor"`
	IncludesUnparentedMetadata bool       `json:"includes_unparented_metadata"`
}

// Event is the data of one server-sent event. ID is the event's id: the
// workspace seq on /events, the journal position on /events/stream.
type Event struct {
	ID          int64  `json:"id"`
	Type        string `json:"type"`
	WorkspaceID string `json:"workspace_id"`
	// Workspace is the workspace's slug (padd addition: the all-workspaces
	// stream needs it).
	Workspace    string `json:"workspace,omitempty"`
	ItemID       string `json:"item_id,omitempty"`
	CollectionID string `json:"collection_id,omitempty"`
	Collection   string `json:"collection,omitempty"`
	Title        string `json:"title,omitempty"`
	Ref          string `json:"ref,omitempty"`
	Actor        string `json:"actor,omitempty"`
	ActorName    string `json:"actor_name,omitempty"`
	Source       string `json:"source,omitempty"`
	Timestamp    int64  `json:"timestamp"`
	Seq          int64  `json:"seq,omitempty"`
	// Entity and Op name the change-log entry (padd addition).
	Entity string `json:"entity,omitempty"`
	Op     string `json:"op,omitempty"`
	// EntityID is the id of the changed comment, link or role (padd).
	EntityID string `json:"entity_id,omitempty"`
}

// ItemWith is an item with the parts GET .../items/{ref}?include= asked
// for (padd's addition: an agent's get in one request).
type ItemWith struct {
	Item
	Comments *[]Comment  `json:"comments,omitempty"`
	Links    *[]ItemLink `json:"links,omitempty"`
}
