package model

import "strings"

// The dashboard's rules: what its attention entries are, how many of
// each it lists, how much of it the agent bootstrap carries, and which
// statuses count as work under way.

// AttentionCap bounds the dashboard's entries of one attention type (and
// a stale category's), so a workspace with thousands of stalled items
// still answers in a page; the totals are exact.
const AttentionCap = 25

// Attention (and stale) entry types.
const (
	NoticeBlocked        = "blocked"
	NoticeOverdue        = "overdue"
	NoticeStalled        = "stalled"
	NoticePlanCompletion = "plan_completion"
	NoticeOutOfWorkflow  = "out_of_workflow"
	// NoticeOrphanedTask: an unfinished task of the tasks collection
	// with no parent, while some active plan has children (Pad's rule).
	NoticeOrphanedTask = "orphaned_task"
)

// OrphanedTaskReason is Pad's reason for an orphaned task.
const OrphanedTaskReason = "Task has no plan assigned"

// OrphanCollection is the collection whose items Pad checks for
// orphans, by slug.
const OrphanCollection = "tasks"

// Bootstrap caps: each dashboard list ships at most this many entries
// and counts the rest in its *_overflow_count.
const BootstrapCap = 5

// InFlightStatus reports whether a done-field value means work is under
// way (Pad's dashboard "active" statuses), across spellings.
func InFlightStatus(status string) bool {
	switch strings.ReplaceAll(strings.ToLower(status), "-", "_") {
	case "in_progress", "exploring", "fixing", "confirmed", "in_review":
		return true
	}
	return false
}
