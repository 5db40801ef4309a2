package api

// The sync feeds: what a client that mirrors a workspace reads to follow
// it (/changes by time, /items-changes and /items-index by seq).

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
