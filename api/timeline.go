package api

import "time"

// TimelineEntry is one entry of an item's timeline (GET
// .../items/{ref}/timeline): Kind is comment, activity, version, note
// or decision, and the field of that name holds it. Note and Decision
// are the item's stored entry objects (id, summary or decision, ...).
type TimelineEntry struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	CreatedAt time.Time      `json:"created_at"`
	Actor     string         `json:"actor"`
	ActorName string         `json:"actor_name,omitempty"`
	Source    string         `json:"source"`
	Comment   *Comment       `json:"comment,omitempty"`
	Activity  *Activity      `json:"activity,omitempty"`
	Version   *ItemVersion   `json:"version,omitempty"`
	Note      map[string]any `json:"note,omitempty"`
	Decision  map[string]any `json:"decision,omitempty"`
}

// Timeline is one page of an item's timeline, newest first. The next
// page is ?before=<last entry's created_at>&before_id=<its id>.
type Timeline struct {
	Entries []TimelineEntry `json:"entries"`
	HasMore bool            `json:"has_more"`
}
