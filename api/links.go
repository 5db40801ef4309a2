package api

import "time"

// Links between items: Pad's blocking links, [[...]] backlinks, and
// padd's deps graph.

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
