// Package faultreport is the JSON report of the fault run: written by
// e2e.TestFaultRun (-fault.report) and read by scripts/faultrun.
package faultreport

// DefaultSeed is the fault run's random seed unless one is given: a run
// is the same run every time, so a failure replays; a seed of 0 asks for
// one from the clock. Either way the run prints the seed it used.
const DefaultSeed uint64 = 24

// Cycle is one kill -9 cycle's measurements (the report's rows).
type Cycle struct {
	Cycle            int     `json:"cycle"`
	KillAfterMS      int64   `json:"kill_after_ms"`
	Creates          int     `json:"acked_creates"`
	Updates          int     `json:"acked_updates"`
	Comments         int     `json:"acked_comments"`
	UnackedCommitted int     `json:"unacked_creates_committed"`
	PendingCommitted int     `json:"unacked_updates_committed"`
	PendingDropped   int     `json:"unacked_updates_not_committed"`
	SSEEvents        int     `json:"sse_events_live"`
	Head             int64   `json:"workspace_head"`
	Items            int     `json:"items"`
	CheckMS          float64 `json:"offline_check_ms"`
	RestartMS        int64   `json:"restart_ms"`
	SearchMS         int64   `json:"search_caught_up_ms"`
	Lost             int     `json:"lost"`
}

// Result is the whole run.
type Result struct {
	Seed        uint64   `json:"seed"`
	Writers     int      `json:"writers"`
	Race        bool     `json:"race"`
	Cycles      []Cycle  `json:"cycles"`
	Items       int      `json:"items"`
	Comments    int      `json:"comments"`
	Head        int64    `json:"workspace_head"`
	GlobalHead  int64    `json:"journal_head"`
	Lost        int      `json:"lost"`
	Errors      []string `json:"errors,omitempty"`
	Passed      bool     `json:"passed"`
	DurationSec float64  `json:"duration_s"`
}
