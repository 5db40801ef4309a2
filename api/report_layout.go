package api

// ReportLayout is GET and PUT .../report/layout: the report page's
// hidden cards (throughput, cycle_time, wip, completed_by_collection,
// status_distribution), its window (day, week, 2wk, month; "" the
// default) and the collection slugs it opens with (none: all). A PUT
// answers what was stored: unknown cards and an unknown window dropped,
// as Pad's does.
type ReportLayout struct {
	HiddenCards        []string `json:"hidden_cards"`
	DefaultWindow      string   `json:"default_window"`
	DefaultCollections []string `json:"default_collections"`
}
