// Package syncfaultreport is the JSON report of the sync fault run:
// written by e2e.TestSyncFaultRun (-syncfault.report) and read by
// scripts/syncfault.
package syncfaultreport

// DefaultSeed is the run's random seed unless one is given: a run is
// the same run every time, so a failure replays; a seed of 0 asks for one
// from the clock. Either way the run prints the seed it used.
const DefaultSeed uint64 = 23

// Run is one run of the fault run: one remote mode.
type Run struct {
	Mode        string  `json:"mode"` // "aug2026" or "current"
	Seed        uint64  `json:"seed"`
	AgentsSec   float64 `json:"agents_s"`
	Agents      int     `json:"agents_per_side"`
	Race        bool    `json:"race"`
	FaultRate   float64 `json:"fault_rate"`
	Laptops     int     `json:"laptops"`         // local padds, each on a link of its own
	Kills       int     `json:"kills"`           // kill -9 of a local padd
	Outages     int     `json:"outages"`         // cuts of a laptop's link
	Restarts    int     `json:"remote_restarts"` // restarts of the remote
	Faults      Counts  `json:"faults"`          // injected by the proxy, by kind
	Requests    int     `json:"requests"`        // requests the local padds sent the remote
	LocalAcked  Counts  `json:"local_acked"`     // acknowledged writes on the local padds, by kind
	RemoteAcked Counts  `json:"remote_acked"`    // acknowledged writes on the remote, by kind
	Unknown     int     `json:"unknown_outcome"` // writes whose answer never came (either side)
	SettleSec   float64 `json:"settle_s"`        // from the end of the faults to idle
	// What the comparison found.
	LocalItems  int      `json:"local_items"` // the most on one laptop
	RemoteItems int      `json:"remote_items"`
	Comments    int      `json:"comments"`    // on the remote
	Links       int      `json:"links"`       // on the remote
	Attachments int      `json:"attachments"` // on the remote's items
	Equal       int      `json:"items_equal"`
	Different   []string `json:"different,omitempty"`  // item: what differs
	Unexplained int      `json:"unexplained"`          // differences no recorded conflict explains
	Duplicates  []string `json:"duplicates,omitempty"` // two remote entities from one local write
	Lost        []string `json:"lost,omitempty"`       // acknowledged writes on neither side
	// RoundTrips are writes of archived or collection that undid their
	// side's previous one while the other side changed it: a sync of
	// states sees no change there, and the other side's stands.
	RoundTrips []string `json:"round_trips,omitempty"`
	// History is every write the agents made to the items of Lost and
	// RoundTrips, in the order they were sent, so that a run printed
	// with -q can still be read.
	History      []string `json:"history,omitempty"`
	Conflicts    int      `json:"conflicts"` // recorded conflicts
	SetAside     int      `json:"set_aside"` // recorded set-aside changes
	ConflictList []string `json:"conflict_list,omitempty"`
	// Verify is what each laptop's sync verify found (none when every
	// one answered equal).
	Verify      []string `json:"verify,omitempty"`
	Errors      []string `json:"errors,omitempty"`
	Passed      bool     `json:"passed"`
	DurationSec float64  `json:"duration_s"`
}

// Counts counts by kind.
type Counts map[string]int

// Total is the sum of every kind.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Result is every run of one invocation.
type Result struct {
	Runs []Run `json:"runs"`
}
