package model

import (
	"strings"
	"time"
)

// Item leases (Pad's LSE-01..03) and reminders (REM-01..05): the rules,
// with no I/O. Storage keeps the records; the doors read identities.

// Lease TTL bounds, in seconds (LSE-01).
const (
	DefaultLeaseTTL = 900
	MaxLeaseTTL     = 86400
)

// Codes of the lease and reminder refusals (§3.2).
const (
	CodeLeaseHeld       = "lease_held"
	CodeInvalidWorkerID = "invalid_worker_id"
)

// Change-log entity and operations of leases and reminders. The event
// stream names an entry entity_op, so a fired reminder reaches SSE as
// reminder_fired.
const (
	EntityLease    = "lease"
	EntityReminder = "reminder"

	OpClaimed      = "claimed"
	OpRenewed      = "renewed"
	OpReleased     = "released"
	OpFired        = "fired"
	OpAcknowledged = "acknowledged"
)

// SystemActor is padd acting on its own (a reminder firing): neither
// the user nor an agent.
var SystemActor = Actor{Kind: "system", Name: "padd", Source: "padd"}

// workerPrefix starts every worker id.
const workerPrefix = "wk_"

// ValidWorkerID reports whether s is "wk_" + 32 lowercase hex digits
// (128 random bits minted once per agent session).
func ValidWorkerID(s string) bool {
	hex, ok := strings.CutPrefix(s, workerPrefix)
	if !ok || len(hex) != 32 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ShortWorkerID is the display form of a worker id (wk_3f2a): reads and
// refusals show it, only the claim's own answer carries the full id.
func ShortWorkerID(id string) string {
	if !ValidWorkerID(id) {
		return ""
	}
	return id[:len(workerPrefix)+4]
}

// InvalidWorkerID is the 400 for a malformed worker id.
func InvalidWorkerID(id string) *Error {
	return Errorf(CodeInvalidWorkerID,
		"worker_id %q is malformed: it is \"wk_\" followed by 32 lowercase hex digits, minted once per agent session", id).
		With("field", "worker_id")
}

// LeaseTTL checks a claim's ttl_seconds; nil means the default.
func LeaseTTL(ttl *int64) (time.Duration, error) {
	if ttl == nil {
		return DefaultLeaseTTL * time.Second, nil
	}
	if *ttl < 1 || *ttl > MaxLeaseTTL {
		return 0, Invalid("ttl_seconds must be between 1 and %d, got %d", MaxLeaseTTL, *ttl).With("field", "ttl_seconds")
	}
	return time.Duration(*ttl) * time.Second, nil
}

// Claimant is who claims, releases or asks for work: a display label and,
// when the caller has one, a worker id. padd has one account, so the
// account half of Pad's identity always matches.
type Claimant struct {
	Holder string
	Worker string
}

// Lease is an item's claim as stored.
type Lease struct {
	Holder     string    `json:"holder"`
	Worker     string    `json:"worker_id,omitempty"`
	ActorKind  string    `json:"actor_kind,omitempty"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// Live reports whether the lease holds at now: expiry is absence, there
// is no reaper.
func (l *Lease) Live(now time.Time) bool { return l != nil && now.Before(l.ExpiresAt) }

// Ours reports whether a claim by c would keep the lease (Pad's
// store.leaseOurs): a worker-bound lease is c's iff the worker ids
// match; a name-only lease is matched on its label, so a worker
// refreshing its own name-only lease binds it. A name-only caller never
// matches a worker-bound lease, whatever its label.
func (l *Lease) Ours(c Claimant) bool {
	if l.Worker != "" {
		return c.Worker == l.Worker
	}
	return c.Holder == l.Holder
}

// LeaseHeld is the 409 for a live lease another claimant holds.
func LeaseHeld(ref string, l *Lease, c Claimant) *Error {
	msg := "%s is claimed by %s until %s; pick other work (pad_project next) or wait for the lease to expire"
	if l.Worker != "" && c.Worker == "" && c.Holder == l.Holder {
		// The same label without a worker id cannot prove it is the
		// same session: say how to become one.
		msg = "%s is claimed by %s under a worker id until %s; send that worker_id (body, X-Pad-Worker header or ?worker_id=) to resume it"
	}
	e := Errorf(CodeLeaseHeld, msg, ref, l.Holder, l.ExpiresAt.UTC().Format(time.RFC3339)).
		With("ref", ref).With("holder", l.Holder).
		With("acquired_at", l.AcquiredAt.UTC().Format(time.RFC3339)).
		With("expires_at", l.ExpiresAt.UTC().Format(time.RFC3339))
	if w := ShortWorkerID(l.Worker); w != "" {
		e.With("worker", w)
	}
	return e
}

// Reminder states (REM-02).
const (
	ReminderArmed        = "armed"
	ReminderFired        = "fired"
	ReminderAcknowledged = "acknowledged"
)

// Reminder is an item reminder as stored. FiredAt and AcknowledgedAt are
// the two fire marks a re-arm clears.
type Reminder struct {
	ID             string     `json:"id,omitempty"`
	ItemID         string     `json:"item_id"`
	RemindAt       time.Time  `json:"remind_at"`
	FiredAt        *time.Time `json:"fired_at,omitempty"`
	AcknowledgedAt *time.Time `json:"acknowledged_at,omitempty"`
	CreatedBy      Actor      `json:"created_by"`
	CreatedAt      time.Time  `json:"created_at"`
	Seq            int64      `json:"seq"`
}

// State derives the reminder's state from its marks.
func (r *Reminder) State() string {
	switch {
	case r.AcknowledgedAt != nil:
		return ReminderAcknowledged
	case r.FiredAt != nil:
		return ReminderFired
	}
	return ReminderArmed
}

// ParseRemindAt reads a reminder time: an RFC 3339 instant only. A bare
// date is refused rather than read as some midnight, since whose
// midnight is exactly what it does not say.
func ParseRemindAt(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, Invalid("remind_at is required: an RFC 3339 instant such as 2026-03-01T09:00:00Z").With("field", "remind_at")
	}
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return time.Time{}, Invalid("remind_at %q is a date, not an instant: add the time and zone, e.g. %sT09:00:00Z", s, s).With("field", "remind_at")
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, Invalid("remind_at %q is not an RFC 3339 instant (e.g. 2026-03-01T09:00:00Z)", s).With("field", "remind_at")
	}
	if t = Truncate1s(t); t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, Invalid("remind_at %q is out of range (years 1970 to 9999)", s).With("field", "remind_at")
	}
	return t, nil
}
