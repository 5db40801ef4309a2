package api

import "time"

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
	// Replies are set only in an item's timeline: the replies read on
	// the same page, oldest first (Pad's nesting).
	Replies []Comment `json:"replies,omitempty"`
	// Reactions are the comment's emoji reactions, oldest first; none
	// leaves the member out, as Pad does.
	Reactions []Reaction `json:"reactions,omitempty"`
}

// Reaction is Pad's emoji reaction on a comment: the answer of POST
// .../comments/{id}/reactions and an element of a comment's reactions.
// Actor is "user" or "agent"; ActorName the reacting user's name (Pad
// sends it in a comment's list, not in the POST's answer).
type Reaction struct {
	ID        string    `json:"id"`
	CommentID string    `json:"comment_id"`
	UserID    string    `json:"user_id,omitempty"`
	Actor     string    `json:"actor"`
	Emoji     string    `json:"emoji"`
	CreatedAt time.Time `json:"created_at"`
	ActorName string    `json:"actor_name,omitempty"`
}

// ReactionCreate is the body of POST .../comments/{id}/reactions.
type ReactionCreate struct {
	Emoji string `json:"emoji"`
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
