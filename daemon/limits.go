package daemon

import (
	"fmt"
	"strconv"
	"time"

	"github.com/padd/padd/storage"
)

// Limits bound what one client may hold: how long a request body may take
// to arrive, and the event streams' keepalive, write deadline and counts.
// padd's main reads them from the environment (LimitsFromEnv); a zero
// field means its default.
type Limits struct {
	// BodyTimeout bounds reading a request body (PADD_BODY_TIMEOUT). A
	// loopback client sends MaxBody in milliseconds.
	BodyTimeout time.Duration
	// SlowAfter is how long an answer may take before padd logs it: every
	// route but the event streams answers in milliseconds, so one that
	// takes seconds is worth a log line that explains a client's timeout.
	SlowAfter time.Duration
	// SSEKeepalive is the idle interval between an event stream's
	// ": keepalive" comments (PADD_SSE_KEEPALIVE).
	SSEKeepalive time.Duration
	// SSEWriteTimeout bounds each write to a stream, so a client that
	// stops reading releases its goroutine instead of pinning it.
	SSEWriteTimeout time.Duration
	// SSEMaxTotal and SSEMaxPerWorkspace cap the open streams
	// (PAD_SSE_MAX_CONNECTIONS, PAD_SSE_MAX_PER_WORKSPACE, as Pad names
	// them).
	SSEMaxTotal, SSEMaxPerWorkspace int
	// SyncTimeout bounds each request of the sync engine to a remote
	// (PADD_SYNC_TIMEOUT), SyncSettle is how long after a create whose
	// outcome is unknown it reads whether the create landed
	// (PADD_SYNC_SETTLE; default SyncTimeout + 30 s), and SyncMaxBackoff
	// caps its wait while a remote is unreachable (PADD_SYNC_MAX_BACKOFF).
	// Zero: the engine's defaults. The sync fault run shortens them so
	// that its faults settle in seconds.
	SyncTimeout, SyncSettle, SyncMaxBackoff time.Duration
}

// DefaultLimits are Pad's stream limits (its keepalive is 30 s, padd's
// 15 s) and padd's own.
func DefaultLimits() Limits {
	return Limits{BodyTimeout: 20 * time.Second, SlowAfter: 2 * time.Second,
		SSEKeepalive: 15 * time.Second, SSEWriteTimeout: 10 * time.Second, SSEMaxTotal: 1000, SSEMaxPerWorkspace: 100}
}

// orDefaults fills each zero field with its default.
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, def *time.Duration }{{&l.BodyTimeout, &d.BodyTimeout}, {&l.SlowAfter, &d.SlowAfter},
		{&l.SSEKeepalive, &d.SSEKeepalive}, {&l.SSEWriteTimeout, &d.SSEWriteTimeout}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if l.SSEMaxTotal <= 0 {
		l.SSEMaxTotal = d.SSEMaxTotal
	}
	if l.SSEMaxPerWorkspace <= 0 {
		l.SSEMaxPerWorkspace = d.SSEMaxPerWorkspace
	}
	return l
}

// LimitsFromEnv reads the limits the environment overrides; each value
// it cannot use keeps its default and is named in a warning.
func LimitsFromEnv(getenv func(string) string) (Limits, []string) {
	l := DefaultLimits()
	var warns []string
	for env, dst := range map[string]*time.Duration{"PADD_BODY_TIMEOUT": &l.BodyTimeout, "PADD_SSE_KEEPALIVE": &l.SSEKeepalive,
		"PADD_SYNC_TIMEOUT": &l.SyncTimeout, "PADD_SYNC_SETTLE": &l.SyncSettle, "PADD_SYNC_MAX_BACKOFF": &l.SyncMaxBackoff} {
		if v := getenv(env); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d > 0 {
				*dst = d
			} else {
				warns = append(warns, fmt.Sprintf("%s=%q is not a positive duration (e.g. 15s); using the default %s", env, v, *dst))
			}
		}
	}
	for env, dst := range map[string]*int{"PAD_SSE_MAX_CONNECTIONS": &l.SSEMaxTotal, "PAD_SSE_MAX_PER_WORKSPACE": &l.SSEMaxPerWorkspace} {
		if v := getenv(env); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				*dst = n
			} else {
				warns = append(warns, fmt.Sprintf("%s=%q is not a positive integer; using the default %d", env, v, *dst))
			}
		}
	}
	return l, warns
}

// ssePage is how many changes a stream replays per read.
const ssePage = storage.DefaultChangesLimit
