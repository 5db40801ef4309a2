package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// padd's sync routes (/padd/sync, docs/SYNC.md). A workspace that is not
// linked answers not_found (details.scope "sync_link"); a padd without
// its sync engine answers unavailable (details.reason "sync_unavailable").

// syncPath is a route under /padd/sync for workspace ws ("" for the root).
func syncPath(ws string, rest ...string) string {
	p := "/padd/sync"
	if ws != "" {
		p += "/" + PathEscape(ws)
	}
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// SyncStatuses is every linked workspace's sync status.
func (c *Client) SyncStatuses(ctx context.Context) ([]SyncStatus, error) {
	var out SyncStatuses
	if _, err := c.Do(ctx, "GET", syncPath(""), nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Workspaces, nil
}

// SyncStatus is one workspace's sync status. A workspace that is not
// linked is not_found (IsNotLinked).
func (c *Client) SyncStatus(ctx context.Context, ws string) (*SyncStatus, error) {
	if ws == "" {
		return nil, errors.New("SyncStatus needs a workspace; SyncStatuses lists them all")
	}
	if ws == "events" {
		// GET /padd/sync/events is the stream, so a workspace of that
		// name is read from the list.
		all, err := c.SyncStatuses(ctx)
		if err != nil {
			return nil, err
		}
		for i := range all {
			if all[i].Workspace == ws {
				return &all[i], nil
			}
		}
		return nil, &Error{Code: CodeNotFound, Message: "workspace " + ws + " is not linked to a Pad server",
			Details: map[string]any{"scope": "sync_link"}, Status: http.StatusNotFound}
	}
	var st SyncStatus
	if _, err := c.Do(ctx, "GET", syncPath(ws), nil, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// IsNotLinked reports the not_found of a workspace with no sync link.
func IsNotLinked(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeNotFound && e.Details["scope"] == "sync_link"
}

// SyncClone makes a local workspace from a remote one and links it; the
// answer comes at once (Cloning set) and SyncEvents follows the clone.
func (c *Client) SyncClone(ctx context.Context, in SyncClone) (*SyncStatus, error) {
	var st SyncStatus
	if _, err := c.Do(ctx, "POST", syncPath("", "clone"), nil, in, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// SyncLink links a local workspace to an empty remote one.
func (c *Client) SyncLink(ctx context.Context, in SyncLink) (*SyncStatus, error) {
	var st SyncStatus
	if _, err := c.Do(ctx, "POST", syncPath("", "link"), nil, in, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// SyncUnlink ends a workspace's link; its local data stays.
func (c *Client) SyncUnlink(ctx context.Context, ws string) error {
	_, err := c.Do(ctx, "DELETE", syncPath(ws), nil, nil, nil)
	return err
}

func (c *Client) syncAction(ctx context.Context, ws, action string) (*SyncStatus, error) {
	var st SyncStatus
	if _, err := c.Do(ctx, "POST", syncPath(ws, action), nil, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// SyncNow exchanges with the remote at once (and resets its backoff).
func (c *Client) SyncNow(ctx context.Context, ws string) (*SyncStatus, error) {
	return c.syncAction(ctx, ws, "now")
}

// SyncPause stops a workspace's sync until SyncResume.
func (c *Client) SyncPause(ctx context.Context, ws string) (*SyncStatus, error) {
	return c.syncAction(ctx, ws, "pause")
}

// SyncResume restarts a paused workspace's sync.
func (c *Client) SyncResume(ctx context.Context, ws string) (*SyncStatus, error) {
	return c.syncAction(ctx, ws, "resume")
}

// SyncConflicts lists a workspace's open conflicts and set-aside changes
// (all: the settled ones too).
func (c *Client) SyncConflicts(ctx context.Context, ws string, all bool) ([]SyncConflict, error) {
	var q url.Values
	if all {
		q = url.Values{"all": {"true"}}
	}
	var out SyncConflicts
	if _, err := c.Do(ctx, "GET", syncPath(ws, "conflicts"), q, nil, &out); err != nil {
		return nil, err
	}
	return out.Conflicts, nil
}

// SyncResolve settles an item's conflicts and answers the settled ones.
func (c *Client) SyncResolve(ctx context.Context, ws string, in SyncResolve) ([]SyncConflict, error) {
	var out SyncConflicts
	if _, err := c.Do(ctx, "POST", syncPath(ws, "resolve"), nil, in, &out); err != nil {
		return nil, err
	}
	return out.Conflicts, nil
}

// SyncEvents follows padd's sync stream until ctx ends, the stream ends
// (io.ErrUnexpectedEOF, padd's shutdown included) or fn returns an error
// (which is returned). fn gets each status (one per linked workspace
// first, then each change) and each new conflict; other events are
// skipped. The stream is not bound by the client's request timeout.
func (c *Client) SyncEvents(ctx context.Context, fn func(SyncEvent) error) error {
	return c.followSSE(ctx, c.BaseURL+"/api/v1"+syncPath("", "events"), "", func(f SSEFrame) error {
		ev := SyncEvent{Name: f.Event}
		var into any
		switch f.Event {
		case EventSyncStatus:
			ev.Status = new(SyncStatus)
			into = ev.Status
		case EventSyncConflict:
			ev.Conflict = new(SyncConflict)
			into = ev.Conflict
		case "shutdown":
			return io.ErrUnexpectedEOF
		default:
			return nil // connected, and names this client does not know
		}
		if err := json.Unmarshal(f.Data, into); err != nil {
			return fmt.Errorf("padd sent a %s event that does not decode (%v)", f.Event, err)
		}
		return fn(ev)
	})
}

// SyncVerify compares a linked workspace with its remote one (it may
// read for minutes on a large workspace). It follows the verify as a
// stream, so only ctx bounds it, not the client's timeout; progress (nil:
// none) hears how far it has come.
func (c *Client) SyncVerify(ctx context.Context, ws string, progress func(done, total int)) (*SyncVerify, error) {
	if ws == "" {
		return nil, errors.New("SyncVerify needs a workspace")
	}
	var out *SyncVerify
	errDone := errors.New("done")
	err := c.followSSE(ctx, c.BaseURL+"/api/v1"+syncPath(ws, "verify"), "", func(f SSEFrame) error {
		switch f.Event {
		case EventVerifyProgress:
			var p SyncVerifyProgress
			if json.Unmarshal(f.Data, &p) == nil && progress != nil {
				progress(p.Done, p.Total)
			}
			return nil
		case EventVerify:
			out = new(SyncVerify)
			if err := json.Unmarshal(f.Data, out); err != nil {
				return fmt.Errorf("padd sent a verify that does not decode (%v)", err)
			}
			return errDone
		case "error":
			var env ErrorEnvelope
			if err := json.Unmarshal(f.Data, &env); err != nil || env.Error == nil {
				return fmt.Errorf("padd sent an error that does not decode (%v)", err)
			}
			env.Error.Status = StatusOf(env.Error.Code)
			return env.Error
		case "shutdown":
			return io.ErrUnexpectedEOF
		}
		return nil
	})
	switch {
	case out != nil:
		return out, nil
	case err == nil:
		return nil, io.ErrUnexpectedEOF // the stream ended without an answer
	}
	return nil, err
}
