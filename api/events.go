package api

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
