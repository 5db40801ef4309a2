package api

import "time"

// An item's history: the versions of its content and the activity rows.

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
