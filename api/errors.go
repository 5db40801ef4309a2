package api

import (
	"fmt"
	"sort"

	"github.com/padd/padd/model"
)

// Error is Pad's error body: {"error":{"code","message","details"}}.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Status is the HTTP status the error came with (not on the wire).
	// On an error padd makes, 0 means the status of Code in the table
	// below; a status set here answers instead (see WithStatus).
	Status int `json:"-"`
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Message + " (" + e.Code + ")"
}

// ErrorEnvelope wraps an Error on the wire.
type ErrorEnvelope struct {
	Error *Error `json:"error"`
}

// FieldIssue is one refused field value. A validation_error that refuses
// several values lists them all in details.issues; its details.field and
// details.reason are the first one's.
type FieldIssue struct {
	Key     string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Index   *int   `json:"index,omitempty"`
}

// Errorf makes a coded error; padd answers it with the code's status.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns e with one more details key. It mutates e: call it only on
// an error you just made.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// RetryAfterDetail is the details key (Pad's, from rate_limited) that
// says in how many seconds the same request may succeed; padd answers
// it as the Retry-After header too.
const RetryAfterDetail = "retry_after_seconds"

// WithStatus returns e answered with status instead of its code's; it
// mutates e. It is for the few answers padd sends with another status
// than their code's: too_large for a long URI (414) or long headers
// (431), and server_error from a padd that cannot be stopped over the
// API (503).
func (e *Error) WithStatus(status int) *Error {
	e.Status = status
	return e
}

// The codes padd answers with and its clients read. The domain's
// refusals are spelled in model, which makes them; the others are made
// by padd's HTTP layer. Codes that only the MCP door or padctl make for
// themselves (no_workspace, bad_pad_toml, ...) are theirs, not here.
const (
	CodeArchived                    = model.CodeArchived
	CodeBadRequest                  = model.CodeBadRequest
	CodeCommentDeleted              = model.CodeCommentDeleted
	CodeConflict                    = model.CodeConflict
	CodeDecisionProviderUnavailable = model.CodeDecisionProviderUnavailable
	CodeIdempotencyKeyReused        = model.CodeIdempotencyKeyReused
	CodeIdempotencyTargetGone       = model.CodeIdempotencyTargetGone
	CodeInsufficientStorage         = model.CodeInsufficientStorage
	CodeInvalidSince                = model.CodeInvalidSince
	CodeInvalidTZ                   = model.CodeInvalidTZ
	CodeInvalidWorkerID             = model.CodeInvalidWorkerID
	CodeLeaseHeld                   = model.CodeLeaseHeld
	CodeMalformedOverride           = model.CodeMalformedOverride
	CodeNotFound                    = model.CodeNotFound
	CodeOpenChildren                = model.CodeOpenChildren
	CodePatchAnchorAmbiguous        = model.CodePatchAnchorAmbiguous
	CodePatchAnchorMissing          = model.CodePatchAnchorMissing
	CodePatchNotFound               = model.CodePatchNotFound
	CodePlaybookNotActive           = model.CodePlaybookNotActive
	CodeServerError                 = model.CodeServerError
	CodeStateChangeRequiresValue    = model.CodeStateChangeRequiresValue
	CodeStoredStateUnreadable       = model.CodeStoredStateUnreadable
	CodeTooLarge                    = model.CodeTooLarge
	CodeUnavailable                 = model.CodeUnavailable
	CodeUnknownIntent               = model.CodeUnknownIntent
	CodeUnknownRole                 = model.CodeUnknownRole
	CodeUpdateConflict              = model.CodeUpdateConflict
	CodeValidation                  = model.CodeValidation
	CodeVersionUnreconstructable    = model.CodeVersionUnreconstructable

	CodeAttachmentsDisabled = "attachments_disabled"  // Pad's: a server with no attachment storage (padd keeps its own, and reads this from a remote)
	CodeIdempotencyInFlight = "idempotency_in_flight" // Pad's: a request under the same key is still being answered
	CodeBadBundle           = "bad_bundle"            // an import Pad's format refuses: bad entries, caps, hashes, JSON (docs/BUNDLES.md)
	CodeImportInterrupted   = "import_interrupted"    // an import whose body stopped arriving; nothing was written
	CodeImportKeyInUse      = "import_key_in_use"     // an import whose import_key names one still running
	CodeForbidden           = "forbidden"
	CodeIndexRebuilding     = "index_rebuilding"
	CodeInvalidCursor       = "invalid_cursor"
	CodeInvalidLimit        = "invalid_limit"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodePushOutcomeUnknown  = "push_outcome_unknown" // Pad's: a push retried under the key of one whose delivery was never confirmed
	CodePushUnconfirmed     = "push_unconfirmed"     // Pad's: a push no session confirmed, though one may have had it
	CodeRequestTimeout      = "request_timeout"      // padd's own: a request body that did not arrive in time
	CodeSSELimitExceeded    = "sse_limit_exceeded"
	CodeUnauthorized        = "unauthorized"
	CodeUpgradeRequired     = "upgrade_required"

	// An item artifact refused (docs/BUNDLES.md), as Pad names them.
	CodeMalformedArtifact     = "malformed_artifact"
	CodeUnknownKind           = "unknown_kind"
	CodeUnsupportedVersion    = "unsupported_version"
	CodeUnsafeYAML            = "unsafe_yaml"
	CodeUnsupportedCollection = "unsupported_collection"

	// An image transform refused (docs/ATTACHMENTS.md), as Pad names them.
	CodeBadTransform      = "bad_transform"      // an operation or its parameters Pad refuses
	CodeBadVariant        = "bad_variant"        // a download's ?variant= Pad does not know
	CodeImageTooLarge     = "image_too_large"    // an image whose header states more pixels than the cap
	CodeUnsupportedFormat = "unsupported_format" // not an image padd can transform
)

// CodeInfo is one code's row: the HTTP status padd answers it with, and
// whether the same request may succeed if sent again later, unchanged
// (the refusal is about the moment, not the request).
type CodeInfo struct {
	Code   string
	Status int
	Retry  bool
}

// codeTable is every code of the constants above, sorted by code.
var codeTable = []CodeInfo{
	{CodeArchived, 409, false},
	{CodeAttachmentsDisabled, 503, false},
	{CodeBadBundle, 400, false},
	{CodeBadRequest, 400, false},
	{CodeBadTransform, 400, false},
	{CodeBadVariant, 400, false},
	{CodeCommentDeleted, 409, false},
	{CodeConflict, 409, false},
	{CodeDecisionProviderUnavailable, 404, false},
	{CodeForbidden, 403, false},
	{CodeIdempotencyInFlight, 409, true},
	{CodeIdempotencyKeyReused, 422, false},
	{CodeIdempotencyTargetGone, 410, false},
	{CodeImageTooLarge, 413, false},
	{CodeImportInterrupted, 400, true},
	{CodeImportKeyInUse, 409, true},
	{CodeIndexRebuilding, 503, true},
	{CodeInsufficientStorage, 507, false},
	{CodeInvalidCursor, 400, false},
	{CodeInvalidLimit, 400, false},
	{CodeInvalidSince, 400, false},
	{CodeInvalidTZ, 400, false},
	{CodeInvalidWorkerID, 400, false},
	{CodeLeaseHeld, 409, true}, // once details.expires_at has passed
	{CodeMalformedArtifact, 400, false},
	{CodeMalformedOverride, 400, false},
	{CodeMethodNotAllowed, 405, false},
	{CodeNotFound, 404, false},
	{CodeOpenChildren, 409, false},
	{CodePatchAnchorAmbiguous, 409, false},
	{CodePatchAnchorMissing, 409, false},
	{CodePatchNotFound, 404, false},
	{CodePlaybookNotActive, 409, false},
	{CodePushOutcomeUnknown, 409, false},
	{CodePushUnconfirmed, 502, false},
	{CodeRequestTimeout, 408, true},
	{CodeServerError, 500, true},
	{CodeSSELimitExceeded, 429, true},
	{CodeStateChangeRequiresValue, 400, false},
	{CodeStoredStateUnreadable, 409, false},
	{CodeTooLarge, 413, false},
	{CodeUnauthorized, 401, false},
	{CodeUnavailable, 503, true},
	{CodeUnknownIntent, 400, false},
	{CodeUnknownKind, 400, false},
	{CodeUnknownRole, 400, false},
	{CodeUnsafeYAML, 400, false},
	{CodeUnsupportedCollection, 400, false},
	{CodeUnsupportedFormat, 415, false},
	{CodeUnsupportedVersion, 400, false},
	{CodeUpdateConflict, 409, false},
	{CodeUpgradeRequired, 426, false},
	{CodeValidation, 400, false},
	{CodeVersionUnreconstructable, 409, false},
}

// LookupCode is code's row of the table.
func LookupCode(code string) (CodeInfo, bool) {
	i := sort.Search(len(codeTable), func(i int) bool { return codeTable[i].Code >= code })
	if i < len(codeTable) && codeTable[i].Code == code {
		return codeTable[i], true
	}
	return CodeInfo{}, false
}

// StatusOf is the HTTP status padd answers code with; 400 for a code
// that is not in the table.
func StatusOf(code string) int {
	if c, ok := LookupCode(code); ok {
		return c.Status
	}
	return 400
}
