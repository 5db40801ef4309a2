package model

import (
	"strconv"
	"strings"
	"time"
)

// The project views' rules (Pad's PRJ-01..08): what counts as work in
// flight, stalled, overdue, which open item to suggest first and why.
// Storage finds the candidates through its indexes; the order and the
// words come from here.

// Rank is an item's urgency from its priority (or severity) value:
// lower is more urgent.
type Rank int

// Ranks. Values outside the known vocabulary are RankNone.
const (
	RankCritical Rank = iota
	RankHigh
	RankMedium
	RankLow
	RankNone
)

// PriorityRank ranks a priority or severity value, across the common
// spellings; an unknown or empty value is RankNone.
func PriorityRank(v string) Rank {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "critical", "urgent", "blocker", "highest", "p0":
		return RankCritical
	case "high", "major", "p1":
		return RankHigh
	case "medium", "normal", "moderate", "p2":
		return RankMedium
	case "low", "minor", "trivial", "lowest", "p3", "p4":
		return RankLow
	}
	return RankNone
}

// RankKeys are the fields a collection can rank its work by, in the
// order RankKey prefers them.
var RankKeys = []string{"priority", "severity"}

// RankKey is the field a collection ranks its items by: "priority" when
// it declares one, else "severity", else none.
func RankKey(s Schema) string {
	for _, k := range RankKeys {
		if s.Declares(k) {
			return k
		}
	}
	return ""
}

// IsPlanCollection reports whether c holds plans: the dashboard lists
// them as active plans with progress instead of as items in flight.
func IsPlanCollection(c *Collection) bool { return c.Slug == "plans" }

// IsActivePlan reports whether a plan's done-field value means the plan
// is being worked: "active", or any in-flight spelling.
func IsActivePlan(status string) bool {
	return strings.EqualFold(strings.TrimSpace(status), "active") || InFlightStatus(status)
}

// SuggestsWork reports whether a collection's open items may be
// suggested as work (next, ready, suggested_next): live, not a system
// collection, and tracking work (reference collections never count as
// open work).
func SuggestsWork(c *Collection) bool {
	return c.ArchivedAt == nil && !c.IsSystem && c.TracksWork()
}

// Tier is a suggestion's band; every suggestion of a lower tier ranks
// above every one of a higher tier.
type Tier int

// Tiers, in order.
const (
	// TierMine: open work the caller already holds a live lease on.
	TierMine Tier = iota
	// TierInProgress: work in an in-flight status (in progress,
	// exploring, in review...): finishing beats starting.
	TierInProgress
	// TierUrgent: open, not started, critical or high.
	TierUrgent
	// TierBacklog: the other open items of collections that declare a
	// priority or severity, initial statuses such as "new" included.
	TierBacklog
)

var tierNames = [...]string{"mine", "in_progress", "urgent", "backlog"}

func (t Tier) String() string {
	if t < 0 || int(t) >= len(tierNames) {
		return "unknown"
	}
	return tierNames[t]
}

// OldestFirst says how a tier orders equal ranks: work under way by the
// most recent touch (pick up where things were left), waiting work by
// the longest wait.
func (t Tier) OldestFirst() bool { return t >= TierUrgent }

// TierOf places an open, unblocked item: its done-field status, its
// rank, whether its collection declares a rank key, and whether the
// caller holds its lease. ok is false when the item is not suggested
// at all (an unranked collection's item that is not in flight).
func TierOf(status string, rank Rank, ranked, mine bool) (Tier, bool) {
	switch {
	case mine:
		return TierMine, true
	case InFlightStatus(status):
		return TierInProgress, true
	case !ranked:
		return 0, false
	case rank <= RankHigh:
		return TierUrgent, true
	}
	return TierBacklog, true
}

// TierRanks lists the ranks a tier draws from, in order.
func TierRanks(t Tier) []Rank {
	switch t {
	case TierUrgent:
		return []Rank{RankCritical, RankHigh}
	case TierBacklog:
		return []Rank{RankMedium, RankLow, RankNone}
	}
	return []Rank{RankCritical, RankHigh, RankMedium, RankLow, RankNone}
}

// Candidate is an item as the ranking sees it.
type Candidate struct {
	ID      string
	Tier    Tier
	Rank    Rank
	Pinned  bool
	Updated time.Time
}

// Before orders candidates: tier, rank, pinned first, then recency as
// the tier wants it (see OldestFirst), then id. The tie-breaks are the
// list index's own order read forwards or backwards, so storage can
// stream candidates in this order instead of sorting them.
func (a Candidate) Before(b Candidate) bool {
	if a.Tier != b.Tier {
		return a.Tier < b.Tier
	}
	if a.Rank != b.Rank {
		return a.Rank < b.Rank
	}
	if a.Pinned != b.Pinned {
		return a.Pinned
	}
	au, bu := a.Updated.Unix(), b.Updated.Unix()
	if a.Tier.OldestFirst() {
		if au != bu {
			return au < bu
		}
		return a.ID > b.ID
	}
	if au != bu {
		return au > bu
	}
	return a.ID < b.ID
}

// SuggestionReason says why an item is suggested, in Pad's words.
func SuggestionReason(t Tier, noun, status, rankValue, planTitle string) string {
	var r string
	switch t {
	case TierMine:
		r = "You hold the lease on this " + noun
	case TierInProgress:
		r = "In-progress " + noun
		if status != "" && !strings.EqualFold(status, "in-progress") && !strings.EqualFold(status, "in_progress") {
			r = titleWord(status) + " " + noun
		}
	default:
		r = "Open " + noun
	}
	if planTitle != "" {
		r += " in active plan \"" + planTitle + "\""
	}
	if rankValue != "" {
		r += " (" + rankValue + " priority)"
	}
	return r
}

// Noun is how a reason names an item of a collection: "Tasks" -> "task".
func Noun(c *Collection) string {
	n := strings.ToLower(strings.TrimSpace(c.Name))
	if strings.HasSuffix(n, "ies") {
		return n[:len(n)-3] + "y"
	}
	if strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") {
		return n[:len(n)-1]
	}
	if n == "" {
		return "item"
	}
	return n
}

func titleWord(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "_", " "), "-", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// StalledAfter is how long in-flight work may sit untouched before the
// dashboard calls it stalled (Pad's three days).
const StalledAfter = 3 * 24 * time.Hour

// Stalled reports whether an open item in an in-flight status, last
// updated at updated, is stalled at now.
func Stalled(status string, updated, now time.Time, after time.Duration) bool {
	return InFlightStatus(status) && updated.Before(StalledCutoff(now, after))
}

// StalledCutoff is the update time before which in-flight work is
// stalled at now.
func StalledCutoff(now time.Time, after time.Duration) time.Time { return now.Add(-after) }

// StalledReason words a stalled entry.
func StalledReason(updated, now time.Time) string {
	days := int(now.Sub(updated) / (24 * time.Hour))
	unit := "days"
	if days == 1 {
		unit = "day"
	}
	return "In progress for " + strconv.Itoa(days) + " " + unit + " with no updates"
}

// DueKeys are the date fields whose passing makes open work overdue, in
// the order a reason names them.
var DueKeys = []string{"due_date", "end_date"}

// DueDay reads a date field value as its day (YYYY-MM-DD): a date, or
// an RFC 3339 time's UTC day. ok is false for anything else.
func DueDay(v string) (string, bool) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.Format(time.DateOnly), true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC().Format(time.DateOnly), true
	}
	return "", false
}

// EarliestDue is the earliest due day among an item's DueKeys values
// (get returns a field's string value), and the key holding it.
func EarliestDue(get func(key string) (string, bool)) (day, key string) {
	for _, k := range DueKeys {
		v, ok := get(k)
		if !ok {
			continue
		}
		if d, ok := DueDay(v); ok && (day == "" || d < day) {
			day, key = d, k
		}
	}
	return day, key
}

// Overdue reports whether a due day has passed: it is before today.
func Overdue(day, today string) bool { return day != "" && day < today }

// OverdueReason words an overdue entry: "due date was 2026-01-31".
func OverdueReason(key, day string) string {
	return strings.ReplaceAll(key, "_", " ") + " was " + day
}

// BlockedReason words a blocked entry after its first open blocker.
func BlockedReason(blockerTitle, blockerStatus string) string {
	if blockerStatus == "" {
		return "Blocked by " + blockerTitle
	}
	return "Blocked by " + blockerTitle + " (still " + blockerStatus + ")"
}

// OutOfWorkflowReason words an open item whose status is not one of its
// done field's options, so no board column shows it.
func OutOfWorkflowReason(key, status string) string {
	if status == "" {
		return "No " + key + " set"
	}
	return key + " \"" + status + "\" is not one of the collection's options"
}

// PlanCompletionReason words an active plan whose children are all done.
func PlanCompletionReason(n int) string {
	return "All " + strconv.Itoa(n) + " tasks are done. Mark as completed?"
}

// Report windows (PRJ-07): the lookback and the bucket size.
var reportWindows = map[string]struct {
	lookback time.Duration
	gran     string
}{
	"day":   {24 * time.Hour, "hour"},
	"week":  {7 * 24 * time.Hour, "day"},
	"2wk":   {14 * 24 * time.Hour, "day"},
	"month": {30 * 24 * time.Hour, "day"},
}

// ReportWindow resolves a report window; empty or unknown means a week,
// as Pad's store does.
func ReportWindow(w string) (name string, lookback time.Duration, granularity string) {
	spec, ok := reportWindows[w]
	if !ok {
		w, spec = "week", reportWindows["week"]
	}
	return w, spec.lookback, spec.gran
}

// CodeInvalidTZ refuses a report zone.
const CodeInvalidTZ = "invalid_tz"

// ReportZone resolves a report's tz: empty is UTC; "Local" (the
// server's zone, which the caller cannot know) and unknown names are
// refused with 400 invalid_tz.
func ReportZone(tz string) (*time.Location, error) {
	if tz == "" {
		return time.UTC, nil
	}
	bad := func(why string) error {
		return Errorf(CodeInvalidTZ, "tz %q %s; use an IANA zone such as America/Los_Angeles", tz, why).With("tz", tz)
	}
	if tz == "Local" {
		return nil, bad("names the server's zone, which is not yours")
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, bad("is not a known time zone")
	}
	return loc, nil
}

// Catch-up digest bounds (PRJ-08).
const (
	CatchUpCeiling = 14 * 24 * time.Hour
	CatchUpLines   = 5
)

// CatchUpSince is the digest window's start: the seen cursor, but never
// more than CatchUpCeiling back. capped says the ceiling applied.
func CatchUpSince(cursor *time.Time, now time.Time) (since time.Time, capped bool) {
	floor := Truncate1s(now.Add(-CatchUpCeiling))
	if cursor == nil || cursor.Before(floor) {
		return floor, true
	}
	return Truncate1s(*cursor), false
}

// OwnAction reports whether an action by a was the caller's own: the
// user's actions when the caller is the user, the same agent's when the
// caller is an agent. The catch-up digest leaves these out.
func OwnAction(a, caller Actor) bool {
	if caller.Kind == ActorAgent {
		return a.Kind == ActorAgent && a.Name == caller.Name
	}
	return a.Kind == ActorUser
}
