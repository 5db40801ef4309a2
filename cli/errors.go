package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/padd/padd/api"
)

// Exit codes. Scripts can rely on them.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed (padd refused it, or padd is unreachable)
	ExitUsage = 2 // the command line is wrong
	// ExitNotRunning is `daemon status` saying padd is not running
	// (the LSB/systemctl convention).
	ExitNotRunning = 3
	// ExitInterrupted follows the shell's 128+SIGINT.
	ExitInterrupted = 130
)

// Error is a padctl refusal: what went wrong (Message and a stable Code)
// and what to do about it (Hint).
type Error struct {
	Code    string
	Message string
	Hint    string
	// Detail lines printed between the error and the hint (the open
	// children that block a close, for instance).
	Detail []string
	Exit   int
	Err    error
}

func (e *Error) Error() string { return e.Message + " (" + e.Code + ")" }
func (e *Error) Unwrap() error { return e.Err }

// failf is a failed command (exit 1).
func failf(code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Hint: hint, Message: fmt.Sprintf(format, args...), Exit: ExitError}
}

// usagef is a wrong command line (exit 2).
func usagef(code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Hint: hint, Message: fmt.Sprintf(format, args...), Exit: ExitUsage}
}

// report prints err on w as `error: <message> (<code>)`, any detail lines
// and a `hint:` line, and returns the exit code.
func report(w io.Writer, err error, st Style) int {
	e := explain(err)
	fmt.Fprintf(w, "%s %s (%s)\n", st.paint(ansiRed+ansiBold, "error:"), clean(e.Message), clean(e.Code))
	for _, d := range e.Detail {
		fmt.Fprintf(w, "  %s\n", clean(d))
	}
	if e.Hint != "" {
		fmt.Fprintf(w, "%s %s\n", st.paint(ansiBold, "hint:"), clean(e.Hint))
	}
	return e.Exit
}

// explain turns any error into a coded Error with a hint.
func explain(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return &Error{Code: ae.Code, Message: ae.Message, Hint: apiHint(ae), Detail: apiDetail(ae), Exit: ExitError, Err: err}
	}
	// Ctrl-C and timeouts first: they also arrive wrapped as transport
	// errors, but padd is not to blame.
	if errors.Is(err, context.Canceled) {
		return &Error{Code: codeInterrupted, Message: "interrupted", Exit: ExitInterrupted, Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: codeTimeout, Message: err.Error(), Exit: ExitError, Err: err,
			Hint: "padd took too long to answer; retry, and see `padctl daemon logs` if it keeps happening"}
	}
	var te *api.TransportError
	if errors.As(err, &te) && te.Slow() {
		return &Error{Code: codePaddSlow, Message: err.Error(), Exit: ExitError, Err: err,
			Hint: "padd is running but busy or stuck; retry, and `padctl daemon status` and `padctl daemon logs` show what it is doing"}
	}
	if api.IsTransport(err) {
		return &Error{Code: codePaddUnreachable, Message: err.Error(), Exit: ExitError, Err: err,
			Hint: "padd stopped answering: `padctl daemon status` shows its state, `padctl daemon logs` why, `padctl daemon start` starts it"}
	}
	return &Error{Code: codeError, Message: err.Error(), Exit: ExitError, Err: err}
}

// apiHint says what to do about a refusal from padd, by Pad's code and
// the details padd attaches.
func apiHint(e *api.Error) string {
	d := e.Details
	str := func(k string) string { s, _ := d[k].(string); return s }
	switch e.Code {
	case api.CodeNotFound:
		switch {
		case str("scope") == "workspace":
			return "`padctl workspace list` shows the workspaces; `padctl init` creates one for this directory"
		case str("scope") == "route":
			return "this padd does not serve that route; padd and padctl may be different versions: `padctl daemon restart`"
		case str("collection") != "":
			return "`padctl collection list` shows this workspace's collections"
		case d["archived"] == true:
			return fmt.Sprintf("restore it with `padctl item restore %s`", str("ref"))
		case str("ref") != "":
			return "`padctl item list --all` shows the items; a ref looks like TASK-5 (slugs and ids work too)"
		}
		return "check the name you gave"
	case api.CodeValidation, api.CodeBadRequest, api.CodeMalformedOverride, api.CodeStateChangeRequiresValue:
		if valid, ok := d["valid"].([]any); ok && len(valid) > 0 {
			names := make([]string, 0, len(valid))
			for _, v := range valid {
				names = append(names, fmt.Sprint(v))
			}
			return "use one of: " + strings.Join(names, ", ")
		}
		if e.Code == api.CodeBadRequest && str("field") == "" {
			return "check the arguments and flags you gave"
		}
		switch {
		case str("reason") == "local_token" || str("reason") == "token_refused":
			return "give the token the Pad server issued you, from a file (--token-file FILE) or a variable of your own (--token-env TEAM_PAD_TOKEN); " +
				"PAD_TOKEN, after `eval \"$(padctl env)\"`, holds this padd's own token"
		case str("reason") == "cycle" && str("field") == "parent":
			return "an item cannot sit under itself or under one of its own children: pick a parent outside its subtree (`padctl item children <ref>` lists them)"
		case str("reason") == "cycle":
			return "the items named would block each other in a ring: remove one of those blocks links first (`padctl item links <ref>`)"
		case str("field") == "q" && (str("reason") == "no_words" || str("reason") == "unknown_filter" || str("reason") == "unsupported_operator"):
			return "`padctl search --help` shows the query syntax"
		case str("field") == "q":
			return "search for fewer and shorter words: the few that set what you look for apart"
		}
		if d["limit"] != nil {
			return "shorten it to the limit the message names (long text belongs in the item's content)"
		}
		return "fix the value and retry; `padctl collection show <collection>` lists each field's type and options"
	case api.CodeUpdateConflict:
		return "the item changed since you read it: `padctl item show <ref>` shows its current seq; retry with that --expected-seq (or without it)"
	case api.CodeOpenChildren:
		return "close or move the open children first, or pass --force to close it anyway"
	case api.CodeConflict:
		if str("reason") == "name_taken" && str("workspace") != "" {
			return fmt.Sprintf("give --name a name of its own (`padctl workspace list` shows the names taken), or leave it out to keep the bundle's; %s is the workspace that has it", str("workspace"))
		}
		if str("field") == "name" && str("collection") != "" {
			return "name it differently, or give --slug and --prefix of its own; `padctl collection list` shows the collections"
		}
		return "it clashes with what is already there; pick another name or target"
	case api.CodeArchived:
		return "restore it first with `padctl item restore <ref>`"
	case api.CodeUnauthorized:
		return "padd refused padctl's token; `padctl daemon restart` makes them agree again"
	case api.CodeTooLarge:
		return "send less: split the content across items"
	case api.CodeLeaseHeld:
		return fmt.Sprintf("another worker holds %s until %s: `padctl project next` suggests other work; to act as a worker you were before, pass its --worker-id",
			firstNonEmpty(str("ref"), "it"), firstNonEmpty(str("expires_at"), "its claim expires"))
	case api.CodeInvalidWorkerID:
		return "a worker id is wk_ followed by 32 lowercase hex digits; leave --worker-id out to use padctl's own"
	case api.CodePlaybookNotActive:
		return "pass --allow-draft to run it anyway, or make it active: `padctl item update <ref> --status active`"
	case api.CodePatchAnchorMissing:
		return "`padctl item show <ref>` shows the body as it is now; give --old exactly as it appears there"
	case api.CodePatchAnchorAmbiguous:
		return "the --old text occurs more than once: give more of the text around it, or --line-hint with one of the lines named"
	case api.CodePatchNotFound:
		return "give the patch_id that `padctl item patch` printed for this item"
	case api.CodeIndexRebuilding:
		return "search works again when the rebuild is done; `padctl index status` shows its progress"
	case api.CodeUnknownIntent:
		return "use one of the intents named, or leave --intent out"
	case api.CodeUnknownRole:
		return "`padctl role list` shows the role slugs"
	}
	if e.Status >= 500 {
		return "padd failed inside; retry, and if it persists see `padctl daemon logs`"
	}
	return ""
}

// apiDetail lists what blocks an open_children refusal.
func apiDetail(e *api.Error) []string {
	kids, _ := e.Details["open_children"].([]any)
	var out []string
	for _, k := range kids {
		m, _ := k.(map[string]any)
		ref, _ := m["ref"].(string)
		title, _ := m["title"].(string)
		status, _ := m["status"].(string)
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s  %s  (%s)", ref, title, status)))
	}
	return out
}
