package api

// The project views' answers (Pad's pad_project, PRJ-01..08), in Pad's
// JSON shapes. padd computes each view as storage's result type and
// converts it to these at the edge (daemon/wire_project.go). The
// dashboard's rows are also the bootstrap's (bootstrap.go), whose
// dashboard is this one with its lists capped.

// Dashboard is GET /workspaces/{ws}/dashboard.
type Dashboard struct {
	Summary        DashboardSummary  `json:"summary"`
	ActiveItems    []DashboardItem   `json:"active_items"`
	ActivePlans    []DashboardPlan   `json:"active_plans"`
	ByRole         []RoleBreakdown   `json:"by_role,omitempty"`
	Attention      []DashboardNotice `json:"attention"`
	RecentActivity []DashboardRecent `json:"recent_activity"`
	SuggestedNext  []DashboardNotice `json:"suggested_next"`
	// PendingReminders are fired, unacknowledged reminders: the
	// delivery path of a reminder when nothing else delivers it.
	PendingReminders []ReminderView `json:"pending_reminders"`
	// AttentionTotals counts each attention type in full; the list
	// itself carries at most model.AttentionCap entries of each type.
	AttentionTotals  map[string]int `json:"attention_totals"`
	Degraded         bool           `json:"degraded"`
	DegradedSections []string       `json:"degraded_sections"`
}

// DashboardRecent is a recent feed entry as the dashboard shows it.
// ReorderCount is how many rows a collapsed reorder batch (PUT
// .../items/sort-order) stood for; 0 for any other entry.
type DashboardRecent struct {
	DashboardActivity
	Metadata     string `json:"metadata,omitempty"`
	ReorderCount int    `json:"reorder_count"`
}

// RoleBreakdown is one by_role row: the open work assigned to a role,
// and a final "Unassigned" row (role_id null) for open work with none.
type RoleBreakdown struct {
	RoleID    *string  `json:"role_id"`
	RoleName  string   `json:"role_name"`
	RoleSlug  string   `json:"role_slug"`
	RoleIcon  string   `json:"role_icon"`
	Tools     string   `json:"tools"`
	ItemCount int      `json:"item_count"`
	Users     []string `json:"assigned_users"`
}

// WorkItem is a suggested or listed item with why.
type WorkItem struct {
	DashboardNotice
	Status    string `json:"status,omitempty"`
	Priority  string `json:"priority,omitempty"`
	Tier      string `json:"tier,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
	ParentRef string `json:"parent_ref,omitempty"`
}

// NextWork is GET /workspaces/{ws}/next and /ready: ranked, actionable
// items (never blocked, never leased to someone else) and, apart, the
// fired reminders waiting for an acknowledgement (not lease-filtered).
type NextWork struct {
	Items     []WorkItem     `json:"items"`
	Reminders []ReminderView `json:"reminders"`
	HasMore   bool           `json:"has_more"`
	Role      string         `json:"role,omitempty"`
}

// StaleReport is GET /workspaces/{ws}/stale.
type StaleReport struct {
	Days    int            `json:"days"`
	Totals  map[string]int `json:"totals"`
	Items   []WorkItem     `json:"items"`
	HasMore bool           `json:"has_more"`
}

// Section is a counted list.
type Section struct {
	Total int        `json:"total"`
	Items []WorkItem `json:"items"`
}

// Standup is GET /workspaces/{ws}/standup.
type Standup struct {
	Days       int     `json:"days"`
	Since      string  `json:"since"`
	Until      string  `json:"until"`
	Done       Section `json:"done"`
	InProgress Section `json:"in_progress"`
	Blockers   Section `json:"blockers"`
}

// ChangelogEntry is one completed item.
type ChangelogEntry struct {
	Ref         string `json:"ref"`
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Collection  string `json:"collection"`
	Status      string `json:"status"`
	CompletedAt string `json:"completed_at"`
	ParentRef   string `json:"parent_ref,omitempty"`
	ParentTitle string `json:"parent_title,omitempty"`
}

// Changelog is GET /workspaces/{ws}/changelog: work that reached a
// positive terminal state in [since, until], newest first.
type Changelog struct {
	Since   string           `json:"since"`
	Until   string           `json:"until"`
	Total   int              `json:"total"`
	Items   []ChangelogEntry `json:"items"`
	HasMore bool             `json:"has_more"`
}

// Report is GET /workspaces/{ws}/report (Pad's ReportData).
type Report struct {
	Window                 string            `json:"window"`
	Offset                 int               `json:"offset"`
	Granularity            string            `json:"granularity"`
	RangeStart             string            `json:"range_start"`
	RangeEnd               string            `json:"range_end"`
	TZ                     string            `json:"tz,omitempty"`
	Collections            []string          `json:"collections"`
	Buckets                []ReportBucket    `json:"buckets"`
	Totals                 ReportTotals      `json:"totals"`
	CompletedByCollection  []CollectionCount `json:"completed_by_collection"`
	StatusDistribution     []StatusCount     `json:"status_distribution"`
	CycleTime              CycleTime         `json:"cycle_time"`
	WIP                    WIP               `json:"wip"`
	CompletedItems         []CompletedItem   `json:"completed_items,omitempty"`
	CompletedItemsOverflow int               `json:"completed_items_overflow_count,omitempty"`
}

// ReportBucket is one time-series point, labelled in the report's zone
// ("YYYY-MM-DD", or "YYYY-MM-DDTHH" for the day window).
type ReportBucket struct {
	Bucket    string `json:"bucket"`
	Created   int    `json:"created"`
	Completed int    `json:"completed"`
}

// ReportTotals are the window's roll-ups.
type ReportTotals struct {
	Created   int `json:"created"`
	Completed int `json:"completed"`
	NetFlow   int `json:"net_flow"`
}

// CollectionCount is a per-collection tally.
type CollectionCount struct {
	Collection string `json:"collection"`
	Count      int    `json:"count"`
}

// StatusCount is one cell of the status distribution.
type StatusCount struct {
	Collection string `json:"collection"`
	Status     string `json:"status"`
	Count      int    `json:"count"`
}

// Duration is a per-collection median, in hours.
type Duration struct {
	Collection  string  `json:"collection"`
	Count       int     `json:"count"`
	MedianHours float64 `json:"median_hours"`
}

// CycleTime is creation-to-completion time of the window's completions.
type CycleTime struct {
	SampleSize   int        `json:"sample_size"`
	MedianHours  float64    `json:"median_hours"`
	P90Hours     float64    `json:"p90_hours"`
	ByCollection []Duration `json:"by_collection"`
}

// AgingBucket counts open items of an age band.
type AgingBucket struct {
	Label string `json:"label"`
	Count int    `json:"count"`
}

// WIP is the open work now: how much and how old.
type WIP struct {
	OpenCount      int           `json:"open_count"`
	MedianAgeHours float64       `json:"median_age_hours"`
	AgingBuckets   []AgingBucket `json:"aging_buckets"`
	ByCollection   []Duration    `json:"by_collection"`
}

// CompletedItem is one entry of the report's "what shipped" list.
type CompletedItem struct {
	Ref         string `json:"ref"`
	Title       string `json:"title"`
	Collection  string `json:"collection"`
	CompletedAt string `json:"completed_at"`
}

// CatchUp is GET /workspaces/{ws}/catch-up.
type CatchUp struct {
	Window         CatchUpWindow  `json:"window"`
	NeedsYou       CatchUpSection `json:"needs_you"`
	Finished       CatchUpSection `json:"finished"`
	NewAndReopened CatchUpSection `json:"new_and_reopened"`
	Comments       CatchUpSection `json:"comments"`
	Agents         CatchUpAgents  `json:"agents"`
	Degraded       []string       `json:"degraded,omitempty"`
}

// CatchUpWindow is the digest's span.
type CatchUpWindow struct {
	Since           string `json:"since"`
	Until           string `json:"until"`
	HasCursor       bool   `json:"has_cursor"`
	CappedAtCeiling bool   `json:"capped_at_ceiling"`
}

// CatchUpSection is a counted list of at most model.CatchUpLines lines.
type CatchUpSection struct {
	Total int           `json:"total"`
	Lines []CatchUpLine `json:"lines"`
}

// CatchUpLine is one thing that happened (or needs doing).
type CatchUpLine struct {
	Ref        string `json:"ref"`
	Title      string `json:"title"`
	Collection string `json:"collection"`
	What       string `json:"what"`
	Actor      string `json:"actor,omitempty"`
	Agent      string `json:"agent,omitempty"`
	At         string `json:"at,omitempty"`
}

// CatchUpAgents groups agent work by agent name.
type CatchUpAgents struct {
	Total  int            `json:"total"`
	Groups []CatchUpAgent `json:"groups"`
}

// CatchUpAgent is one agent's work in the window.
type CatchUpAgent struct {
	Agent   string        `json:"agent"`
	Changes int           `json:"changes"`
	Items   int           `json:"items"`
	Lines   []CatchUpLine `json:"lines"`
}

// ReminderView is a reminder with its state and its item.
type ReminderView struct {
	ID             string `json:"id"`
	ItemID         string `json:"item_id"`
	ItemRef        string `json:"item_ref,omitempty"`
	ItemTitle      string `json:"item_title,omitempty"`
	Collection     string `json:"collection,omitempty"`
	State          string `json:"state"`
	RemindAt       string `json:"remind_at"`
	FiredAt        string `json:"fired_at,omitempty"`
	AcknowledgedAt string `json:"acknowledged_at,omitempty"`
	CreatedBy      string `json:"created_by"`
	CreatedAt      string `json:"created_at"`
	Seq            int64  `json:"seq"`
}

// DashboardSummary counts live items, per collection per done-field value.
type DashboardSummary struct {
	TotalItems   int                       `json:"total_items"`
	ByCollection map[string]map[string]int `json:"by_collection"`
}

// DashboardItem is an item in flight.
type DashboardItem struct {
	Slug           string `json:"slug"`
	Title          string `json:"title"`
	CollectionSlug string `json:"collection_slug"`
	CollectionIcon string `json:"collection_icon"`
	Priority       string `json:"priority,omitempty"`
	Status         string `json:"status"`
	UpdatedAt      string `json:"updated_at"`
	ItemRef        string `json:"item_ref,omitempty"`
}

// DashboardPlan is an active plan with its children's progress.
type DashboardPlan struct {
	Slug      string `json:"slug"`
	Ref       string `json:"ref,omitempty"`
	Title     string `json:"title"`
	Progress  int    `json:"progress"`
	TaskCount int    `json:"task_count"`
	DoneCount int    `json:"done_count"`
}

// DashboardNotice is an item the dashboard points at, with why.
type DashboardNotice struct {
	Type       string `json:"type,omitempty"`
	ItemSlug   string `json:"item_slug"`
	ItemRef    string `json:"item_ref,omitempty"`
	ItemTitle  string `json:"item_title"`
	Collection string `json:"collection"`
	Reason     string `json:"reason"`
}

// DashboardActivity is one recent feed entry.
type DashboardActivity struct {
	Action         string `json:"action"`
	Actor          string `json:"actor"`
	ActorName      string `json:"actor_name,omitempty"`
	Source         string `json:"source"`
	CreatedAt      string `json:"created_at"`
	ItemTitle      string `json:"item_title,omitempty"`
	ItemSlug       string `json:"item_slug,omitempty"`
	ItemRef        string `json:"item_ref,omitempty"`
	CollectionSlug string `json:"collection_slug,omitempty"`
}
