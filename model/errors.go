// Package model is the Pad domain with no I/O: workspaces, collections,
// schemas and field values, items and their states, refs, templates.
// Every refusal it produces is an *Error carrying Pad's code, so each
// door (REST, MCP, CLI) can answer with the same envelope; api's table
// of codes says which HTTP status each code is answered with.
package model

import (
	"errors"
	"fmt"
)

// Pad's error codes (pad-inventory.md §3.2) for the domain's refusals.
// The HTTP layer's own codes (unauthorized, too_large, ...) are api's.
const (
	CodeNotFound                 = "not_found"
	CodeValidation               = "validation_error"
	CodeBadRequest               = "bad_request"
	CodeMalformedOverride        = "malformed_override"
	CodeStateChangeRequiresValue = "state_change_requires_value"
	CodeUpdateConflict           = "update_conflict"
	CodeConflict                 = "conflict"
	CodeOpenChildren             = "open_children"
	CodeArchived                 = "archived"
	CodeCommentDeleted           = "comment_deleted"
	CodeStoredStateUnreadable    = "stored_state_unreadable"
	CodeIdempotencyKeyReused     = "idempotency_key_reused"
	CodeIdempotencyTargetGone    = "idempotency_target_gone"
	CodeVersionUnreconstructable = "version_unreconstructable"
	CodeInvalidSince             = "invalid_since"
	CodeServerError              = "server_error"
	CodeInsufficientStorage      = "insufficient_storage"
	CodeTooLarge                 = "too_large"
	// CodeUnavailable: padd cannot answer the request now (a disk that
	// failed to store a write, a search that could not run); the same
	// request may succeed later.
	CodeUnavailable = "unavailable"
)

// Error is a coded refusal. Message says what happened; Details carries
// machine-readable facts (additive keys only, never renamed).
type Error struct {
	Code    string
	Message string
	Details map[string]any
}

func (e *Error) Error() string { return e.Message }

// With returns e with one more details key. It mutates e: call it only on
// an error you just made.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// Errorf makes a coded error.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is Pad's 404 for a thing inside a readable workspace.
func NotFound(format string, args ...any) *Error {
	return Errorf(CodeNotFound, format, args...)
}

// WorkspaceNotFound is the 404 for a workspace that does not resolve;
// details.scope tells it apart from a miss inside a workspace.
func WorkspaceNotFound(slug string) *Error {
	return NotFound("Workspace not found: %s", slug).With("scope", "workspace")
}

// CollectionNotFound is the 404 for a collection that does not resolve,
// naming it (details.collection carries it whole).
func CollectionNotFound(ref string) *Error {
	return NotFound("Collection not found: %s", Excerpt(ref)).With("collection", ref)
}

// Invalid is Pad's 400 validation_error.
func Invalid(format string, args ...any) *Error {
	return Errorf(CodeValidation, format, args...)
}

// BadRequest is Pad's 400 bad_request.
func BadRequest(format string, args ...any) *Error {
	return Errorf(CodeBadRequest, format, args...)
}

// Conflict is Pad's 409 conflict.
func Conflict(format string, args ...any) *Error {
	return Errorf(CodeConflict, format, args...)
}

// AsError returns the *Error inside err, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsCode reports whether err is a coded error with the given code.
func IsCode(err error, code string) bool {
	e, ok := AsError(err)
	return ok && e.Code == code
}

// ErrorCodeOf is err's Pad code, "" when err is not coded.
func ErrorCodeOf(err error) string {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	return ""
}

// IsNotFound reports whether err is a not_found refusal.
func IsNotFound(err error) bool { return IsCode(err, CodeNotFound) }

// IsUpdateConflict reports whether err is an update_conflict refusal.
func IsUpdateConflict(err error) bool { return IsCode(err, CodeUpdateConflict) }
