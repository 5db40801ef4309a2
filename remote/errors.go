package remote

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/padd/padd/api"
)

// Kind sorts a failed call by what the caller may do next.
type Kind int

const (
	// KindCanceled: the caller's context ended (or would have ended)
	// before the request was written. Nothing reached the server.
	KindCanceled Kind = iota + 1
	// KindUnreachable: no answer, and the request was never fully
	// written (dial, TLS, a timeout before the write), or it was a read
	// that broke off. Retry with backoff: the remote is offline.
	KindUnreachable
	// KindOutcomeUnknown: a write may have reached the server and we do
	// not know what it did: the connection broke or the time ran out
	// after the request was written, the server answered 2xx with an
	// answer we could not read, or it answered 500/502/504, which do not
	// prove that nothing was written. Never resend blindly: resend with
	// the same idempotency key, or read the server first. Status is the
	// 2xx when the server did accept it and only its answer was lost.
	KindOutcomeUnknown
	// KindTokenRefused: 401 or 403. Retrying cannot help until the user
	// gives a new token or access.
	KindTokenRefused
	// KindNotFound: 404; WorkspaceGone tells the workspace from a thing
	// inside it.
	KindNotFound
	// KindConflict: 409 update_conflict, the base token was stale.
	KindConflict
	// KindRateLimited: 429; RetryAfter says how long the server asked us
	// to wait (the Client's pacing already waits it out).
	KindRateLimited
	// KindBusy: 409 idempotency_in_flight, an earlier request under the
	// same key is still running: retry with the same key after RetryAfter.
	KindBusy
	// KindServer: 5xx that says nothing was done (501, 503, a read's 5xx)
	// or 408: retry with backoff.
	KindServer
	// KindRefused: any other refusal (400 validation, 409 conflict, 422,
	// a refused redirect, a URL that is not safe to send the token to).
	// The same request will be refused again.
	KindRefused
	// KindBadAnswer: a read answered with something that is not what the
	// route sends (wrong JSON, larger than the cap, a bad cursor).
	KindBadAnswer
)

var kindNames = map[Kind]string{
	KindCanceled:       "not sent",
	KindUnreachable:    "unreachable",
	KindOutcomeUnknown: "outcome unknown",
	KindTokenRefused:   "token refused",
	KindNotFound:       "not found",
	KindConflict:       "conflict",
	KindRateLimited:    "rate limited",
	KindBusy:           "busy",
	KindServer:         "server error",
	KindRefused:        "refused",
	KindBadAnswer:      "bad answer",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "kind " + strconv.Itoa(int(k))
}

// Error is every failure of a call. Message and Details come from the
// server's error envelope with the token taken out; Err is the cause
// from the transport or the decoder (never holds the token: the token
// only travels in a request header).
type Error struct {
	Kind   Kind
	Method string
	Path   string // the request path, without the query
	Status int    // the HTTP status, 0 when no answer came
	// Code, Message and Details are the envelope's, when there was one.
	Code       string
	Message    string
	Details    map[string]any
	RetryAfter time.Duration // 429, 503, idempotency_in_flight
	Err        error
}

func (e *Error) Error() string {
	s := "remote: " + e.Method + " " + e.Path + ": " + e.Kind.String()
	if e.Status != 0 {
		s += " (" + strconv.Itoa(e.Status) + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Code != "" {
		s += " [" + e.Code + "]"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// WorkspaceGone reports a 404 about the workspace itself (deleted, or
// the token's user is no longer a member), not about a thing inside it.
// Newer Pad marks it with details.scope "workspace"; the Pad of August
// 2026 only says so in its message.
func (e *Error) WorkspaceGone() bool {
	if e.Kind != KindNotFound {
		return false
	}
	if s, ok := e.Details["scope"].(string); ok {
		return s == "workspace"
	}
	return e.Message == "Workspace not found"
}

func kindOf(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

func isKind(err error, k Kind) bool {
	e, ok := kindOf(err)
	return ok && e.Kind == k
}

// IsTokenRefused reports 401/403: stop retrying until the user acts.
func IsTokenRefused(err error) bool { return isKind(err, KindTokenRefused) }

// IsForbidden reports a 403: the token is good but may not do this (Pad
// exports a workspace to its owner only). A token the server no longer
// takes is refused with 401 on every route.
func IsForbidden(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusForbidden
}

// IsNotFound reports a 404 of any scope.
func IsNotFound(err error) bool { return isKind(err, KindNotFound) }

// IsWorkspaceGone reports a 404 about the workspace itself.
func IsWorkspaceGone(err error) bool {
	e, ok := kindOf(err)
	return ok && e.WorkspaceGone()
}

// IsUnreachable reports that the remote could not be reached.
func IsUnreachable(err error) bool { return isKind(err, KindUnreachable) }

// IsOutcomeUnknown reports a write that may or may not have happened.
func IsOutcomeUnknown(err error) bool { return isKind(err, KindOutcomeUnknown) }

// IsServerError reports a 5xx (or 408) after which a retry may succeed.
func IsServerError(err error) bool { return isKind(err, KindServer) }

// IsBadAnswer reports an answer that is not what the route sends.
func IsBadAnswer(err error) bool { return isKind(err, KindBadAnswer) }

// IsArchived reports a write refused because its item is archived on the
// server (409 archived): the server changed under the write.
func IsArchived(err error) bool {
	e, ok := kindOf(err)
	return ok && e.Status == 409 && e.Code == api.CodeArchived
}

// IsDuplicate reports a create refused because the server holds what it
// would make (409 conflict: Pad's answer to a link made twice).
func IsDuplicate(err error) bool {
	e, ok := kindOf(err)
	return ok && e.Status == 409 && e.Code == api.CodeConflict
}

// IsRefused reports a refusal that the same request will meet again.
func IsRefused(err error) bool { return isKind(err, KindRefused) }

// IsRateLimited reports a 429 and how long the server asked to wait.
func IsRateLimited(err error) (time.Duration, bool) {
	e, ok := kindOf(err)
	if !ok || e.Kind != KindRateLimited {
		return 0, false
	}
	return e.RetryAfter, true
}

// Conflict is a 409 update_conflict's details: the base the write was
// made on and what the server holds now. Seq members are set by servers
// with expected_seq, UpdatedAt members by those without.
type Conflict struct {
	Ref               string
	ExpectedUpdatedAt string
	ActualUpdatedAt   string
	ExpectedSeq       int64
	ActualSeq         int64
}

// AsConflict returns the details of a 409 update_conflict.
func AsConflict(err error) (*Conflict, bool) {
	e, ok := kindOf(err)
	if !ok || e.Kind != KindConflict {
		return nil, false
	}
	str := func(k string) string { s, _ := e.Details[k].(string); return s }
	num := func(k string) int64 {
		switch v := e.Details[k].(type) {
		case float64:
			return int64(v)
		case string:
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
		return 0
	}
	return &Conflict{Ref: str("ref"), ExpectedUpdatedAt: str("expected_updated_at"), ActualUpdatedAt: str("actual_updated_at"),
		ExpectedSeq: num("expected_seq"), ActualSeq: num("actual_seq")}, true
}

// Retryable reports whether the same request may be sent again as it is
// (after a backoff, or RetryAfter). Outcome unknown is not: it has to be
// resolved first (see KindOutcomeUnknown).
func Retryable(err error) bool {
	e, ok := kindOf(err)
	if !ok {
		return false
	}
	switch e.Kind {
	case KindCanceled, KindUnreachable, KindRateLimited, KindBusy, KindServer:
		return true
	}
	return false
}

// NotDone reports a failed write that the server surely did not carry
// out, so that nothing of it need be looked for before it is sent again:
// it was never sent (KindCanceled, KindUnreachable; a write the
// connection took is KindOutcomeUnknown), the server's rate limiter
// turned it away (before any handler ran), the server said nothing was
// done (KindServer), or it refused it.
func NotDone(err error) bool {
	e, ok := kindOf(err)
	if !ok {
		return false
	}
	switch e.Kind {
	case KindCanceled, KindUnreachable, KindRateLimited, KindServer, KindTokenRefused, KindNotFound, KindConflict, KindRefused:
		return true
	}
	return false
}

// maxRetryAfter bounds how long a server's Retry-After can hold the
// client: a hostile or broken value must not park sync for days.
const maxRetryAfter = 10 * time.Minute

// parseRetryAfter reads Retry-After as delay seconds or an HTTP date;
// 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// classify sorts an answered error status (>= 300) into a Kind. write
// says the request was not a read.
func classify(status int, code string, write bool) Kind {
	switch {
	case status == 401 || status == 403:
		return KindTokenRefused
	case status == 404:
		return KindNotFound
	case status == 409 && code == api.CodeUpdateConflict:
		return KindConflict
	case status == 409 && code == api.CodeIdempotencyInFlight:
		return KindBusy
	case status == 429:
		return KindRateLimited
	case status == 408:
		return KindServer
	case write && (status == 500 || status == 502 || status == 504):
		return KindOutcomeUnknown
	case status >= 500:
		return KindServer
	}
	return KindRefused
}

// errorf makes an Error about r with a cause.
func (r *request) errorf(k Kind, status int, format string, args ...any) *Error {
	return &Error{Kind: k, Method: r.method, Path: r.path, Status: status, Err: fmt.Errorf(format, args...)}
}
