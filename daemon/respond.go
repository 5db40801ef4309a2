package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// MaxBody bounds a request body (Pad's downstream cap).
const MaxBody = 2 << 20

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if rec := recorderOf(w); rec != nil && status < 400 {
		rec.value = v // an in-process caller takes the value itself
		w.WriteHeader(status)
		return
	}
	b, err := api.EncodeJSON(v)
	if err != nil {
		slog.Error("encode response", "err", err)
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"server_error","message":"padd could not encode its answer; this is a bug, please report it"}}` + "\n")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers with Pad's envelope. Coded errors (the domain's
// *model.Error, the HTTP layer's *api.Error) keep their code and are
// answered with its status from api's table, or the status an *api.Error
// names; anything else is a server_error, logged with what happened.
// A read stopped by its context (readStopped) is no server error.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if _, coded := model.AsError(err); !coded && isContextEnd(err) {
		if errors.Is(r.Context().Err(), context.Canceled) && recorderOf(w) == nil {
			// The client went away: nobody reads an answer.
			slog.Debug("request stopped: its client left", "method", r.Method, "path", r.URL.Path)
			return
		}
		err = readStopped(err)
	}
	ae := wireError(r, err)
	status := ae.Status
	if status == 0 {
		status = api.StatusOf(ae.Code)
	}
	if n, ok := ae.Details[api.RetryAfterDetail].(int); ok {
		w.Header().Set("Retry-After", strconv.Itoa(n))
	} else if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, api.ErrorEnvelope{Error: ae})
}

// wireError is err as Pad's envelope carries it: a coded error keeps
// its code; anything else is a server_error, logged with what happened.
func wireError(r *http.Request, err error) *api.Error {
	var ae *api.Error
	e, ok := model.AsError(err)
	if !ok && storage.IsNoSpace(err) {
		// A full disk met outside the store's own commit (which codes it
		// itself): still Pad's 507, never a bare 500.
		e, ok = storage.NoSpace(err), true
	}
	switch {
	case ok:
		ae = &api.Error{Code: e.Code, Message: e.Message, Details: wireDetails(e.Details)}
	case errors.As(err, &ae):
	default:
		slog.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		ae = api.Errorf(api.CodeServerError,
			"padd failed to answer: %v; retry, and if it persists check `padctl daemon logs`", err)
	}
	return ae
}

// isContextEnd says err is a context's end: a read or a search that
// stopped because the request's context was canceled or passed its
// deadline.
func isContextEnd(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// readStopped answers a request whose work stopped at a context's end
// while its client still waits (a deadline passed, or padd cancelled
// its own work): unavailable, to be retried, as a search that did not
// catch up in time is answered.
func readStopped(err error) *api.Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return api.Errorf(api.CodeUnavailable,
			"padd stopped answering when a deadline passed (%v); retry, asking for less (a smaller page or window) if it persists", err).
			With("reason", "deadline")
	}
	return api.Errorf(api.CodeUnavailable, "padd stopped answering: %v; retry", err).With("reason", "canceled")
}

// wireDetails is a domain refusal's details as sent: the field issues a
// validation_error lists in details.issues go out as api.FieldIssue.
// The error's own map is left as it is.
func wireDetails(d map[string]any) map[string]any {
	issues, ok := d["issues"].([]*model.FieldIssue)
	if !ok {
		return d
	}
	out := maps.Clone(d)
	out["issues"] = wireList(issues, func(is *model.FieldIssue) api.FieldIssue { return api.FieldIssue(*is) })
	return out
}

// readBody reads a bounded body, refusing oversize (413 too_large) and
// invalid UTF-8. An empty body reads as nil.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	if r.ContentLength > MaxBody { // refused before a byte is read
		return nil, tooLarge()
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
	var mbe *http.MaxBytesError
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, api.Errorf(api.CodeRequestTimeout,
			"the request body did not arrive within %s; send it in one go", bodyTimeout(r)).With("reason", "body")
	}
	if errors.As(err, &mbe) {
		return nil, tooLarge()
	}
	if err != nil {
		return nil, model.BadRequest("could not read the request body: %v", err)
	}
	if !utf8.Valid(b) {
		return nil, model.BadRequest("request body is not valid UTF-8")
	}
	return b, nil
}

func tooLarge() error {
	return api.Errorf(api.CodeTooLarge,
		"request body is larger than %d bytes; send less (split bulk work, or move long content to an attachment)", MaxBody).
		With("reason", "body").With("limit_bytes", MaxBody)
}

// decodeBody reads a JSON body into v. An empty body leaves v alone.
// Unknown members are ignored, as Pad does.
func decodeBody(r *http.Request, v any) error {
	b, err := readBody(r)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return model.BadRequest("request body is not the JSON this route takes: %v", err)
	}
	if dec.More() {
		return model.BadRequest("request body has data after the JSON value")
	}
	return nil
}

// queryInt parses an integer query parameter; absent gives def.
func queryInt(r *http.Request, name string, def int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, model.BadRequest("query parameter %s must be an integer, got %q", name, model.Excerpt(s)).With("param", name)
	}
	return n, nil
}

// Paging params follow one rule on every route: absent means the
// route's default; a value that is not a whole number, or is below its
// least (1 for limit, 0 for offset), is refused with a 400
// (invalid_limit, or bad_request for offset) naming the param; a limit
// above the route's ceiling, however large, is the ceiling.

// limitParam reads ?limit= by that rule.
func limitParam(r *http.Request, def, ceiling int) (int, error) {
	s := r.URL.Query().Get("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-") {
		return ceiling, nil
	}
	if err != nil || n < 1 {
		return 0, api.Errorf(api.CodeInvalidLimit, "limit must be a whole number from 1 (larger than %d reads as %d), got %q",
			ceiling, ceiling, model.Excerpt(s)).With("param", "limit")
	}
	return min(n, ceiling), nil
}

// pageParams reads ?limit= and ?offset= by that rule.
func pageParams(r *http.Request, def, ceiling int) (limit, offset int, err error) {
	if limit, err = limitParam(r, def, ceiling); err != nil {
		return 0, 0, err
	}
	offset, err = queryInt(r, "offset", 0)
	if err == nil && offset < 0 {
		err = model.BadRequest("offset must be 0 or more, got %d", offset).With("param", "offset")
	}
	return limit, offset, err
}

// setPaging writes Pad's paging headers for a bare-array list.
func setPaging(w http.ResponseWriter, hasMore bool, next int) {
	w.Header().Set("X-Pad-Has-More", strconv.FormatBool(hasMore))
	if hasMore {
		w.Header().Set("X-Pad-Next-Offset", strconv.Itoa(next))
	}
}
