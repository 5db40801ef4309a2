package mcpstdio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/padd/padd/api"
)

// Codes of the MCP door's own (the others are padd's, in api's table).
const (
	codeValidationFailed = "validation_failed" // a param or argument refusal
	codeNoWorkspace      = "no_workspace"
	codeNotImplemented   = "not_implemented"
	codePermissionDenied = "permission_denied" // Pad's MCP name for forbidden
	codeRateLimited      = "rate_limited"      // Pad's MCP name for a 429
)

// toolError is a refusal as the agent sees it: a tool result with isError
// and this object as its text. Every refusal carries a hint that says what
// to do next, because an agent acts on the hint, not on the message.
type toolError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *toolError) Error() string { return e.Message + " (" + e.Code + ")" }

func (e *toolError) with(key string, value any) *toolError {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

func refuse(code, hint, format string, args ...any) *toolError {
	return &toolError{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

func invalid(hint, format string, args ...any) *toolError {
	return refuse(codeValidationFailed, hint, format, args...)
}

// hintFor is the next step for each code padd answers with. A code not
// listed keeps padd's message and gets a generic hint.
var hintFor = map[string]string{
	api.CodeValidation:                  "fix the value the message names and send the call again; pad_collection list shows each field's type and options",
	codeValidationFailed:                "fix the parameters the message names and send the call again",
	api.CodeNotFound:                    "check the ref or slug: pad_item list or pad_search query finds items, pad_collection list and pad_workspace list show the rest",
	api.CodeUpdateConflict:              "re-read and merge, do not resend: pad_item get the ref for its current content and seq, apply your change to that, then update with expected_seq set to the new seq",
	api.CodeConflict:                    "another write holds that value or changed the target first; re-read, then choose a different value or retry",
	api.CodeOpenChildren:                "close or move the open child items first (pad_item list parent=<ref>), or pass force: true if closing the parent anyway is intended",
	api.CodeStateChangeRequiresValue:    "name the destination's done-field value, e.g. field: [\"status=done\"]; details.options lists the choices",
	api.CodeMalformedOverride:           "the destination collection does not declare that field: drop it or use a field it declares (pad_collection list)",
	api.CodeCommentDeleted:              "that comment was deleted; list-comments shows the live ones",
	api.CodeArchived:                    "it is archived; restore it first (pad_item restore, pad_collection restore)",
	api.CodeIdempotencyKeyReused:        "that op_key already named a different request; use a new op_key for this one",
	api.CodeIdempotencyTargetGone:       "what that op_key wrote has since been deleted; do not retry blindly, re-read and decide",
	api.CodeStoredStateUnreadable:       "the stored value cannot be decoded; retrying will fail the same way, so leave that key alone and tell the user",
	api.CodeVersionUnreconstructable:    "that version cannot be rebuilt; pick another from pad_item history",
	api.CodeLeaseHeld:                   "another worker holds the item; pick other work (pad_project next) or wait until details.expires_at",
	api.CodeDecisionProviderUnavailable: "padd has no LLM to match with: read pad_playbook list (each playbook's trigger and invocation slug), choose the one the request calls for, and pad_playbook run it",
	api.CodeTooLarge:                    "send less: split the work or shorten the content",
	codeRateLimited:                     "wait details.retry_after_seconds, then retry",
	api.CodeUnauthorized:                "padd refused the local token, usually because it restarted; the next call reconnects, and `padctl daemon restart` fixes a lasting mismatch",
	codePermissionDenied:                "padd refused this call; the message says why",
	api.CodeIndexRebuilding:             "the search index is rebuilding; retry in a few seconds, or use pad_item list meanwhile",
	api.CodeUnavailable:                 "padd cannot answer this right now; retry in a few seconds",
	api.CodeServerError:                 "padd failed unexpectedly; retry once, and if it fails again tell the user to check `padctl daemon logs`",
	api.CodeBadRequest:                  "fix the parameters the message names and send the call again",
}

// fromAPI turns an error from the padd client into a tool error: padd's
// code and details are kept (renamed where Pad's MCP doors rename them),
// and a hint is added.
func fromAPI(err error) *toolError {
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		if api.IsTransport(err) {
			return refuse(api.CodeServerError, "padd could not be reached or started; `padctl daemon status` says why, and the next call retries",
				"%v", err).with("reason", "padd_unreachable")
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return refuse(api.CodeServerError, "the call was cancelled or timed out; retry it", "%v", err)
		}
		return refuse(api.CodeServerError, hintFor[api.CodeServerError], "%v", err)
	}
	e := &toolError{Code: ae.Code, Message: ae.Message, Details: ae.Details}
	switch {
	case ae.Code == api.CodeNotFound && detail(ae, "scope") == "route", ae.Code == api.CodeMethodNotAllowed:
		// padd is older than this padctl: the route does not exist there.
		e.Code = codeNotImplemented
		e.Hint = "the padd that is running has no route for this; update padd to the version of padctl (`padctl version` shows both) and retry"
		return e
	case ae.Code == api.CodeBadRequest:
		// Pad's MCP doors report argument refusals as validation_failed,
		// keeping the message; validation_error (schema and value
		// refusals of writes) is kept as padd said it.
		e.Code = codeValidationFailed
	case ae.Code == api.CodeForbidden:
		e.Code = codePermissionDenied
	case ae.Status == http.StatusRequestEntityTooLarge:
		e.Code = api.CodeTooLarge
		if e.Details == nil || e.Details["reason"] == nil {
			e = e.with("reason", ae.Code)
		}
	case ae.Status == http.StatusTooManyRequests:
		e.Code = codeRateLimited
		if e.Details == nil || e.Details["retry_after_seconds"] == nil {
			e = e.with("retry_after_seconds", 1)
		}
	case strings.HasPrefix(ae.Code, "http_") && ae.Status >= 500:
		e.Code = api.CodeServerError
	}
	if e.Code == api.CodeNotFound && detail(ae, "scope") == "workspace" {
		e.Hint = "pad_workspace list shows the workspaces; pass one as workspace or choose it with pad_set_workspace"
	}
	if e.Hint == "" {
		e.Hint = hintFor[e.Code]
	}
	if e.Hint == "" {
		e.Hint = "padd refused the call; the message says why. Fix what it names, or tell the user if it is not yours to fix"
	}
	return e
}

func detail(e *api.Error, key string) string {
	if e.Details == nil {
		return ""
	}
	s, _ := e.Details[key].(string)
	return s
}

// isDialError reports a refused connection: padd is not listening (it
// exited or restarted on another port), so the request was never sent
// and is safe to repeat after reconnecting.
func isDialError(err error) bool {
	var op *net.OpError
	return api.IsTransport(err) && errors.As(err, &op) && op.Op == "dial"
}
