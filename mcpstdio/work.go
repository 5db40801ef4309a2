package mcpstdio

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/padd/padd/api"
)

// Working an item: leases (claim, release), reminders, exact-text
// patches and the work brief (context). padd's answers pass through as
// JSON values.

func init() {
	register(map[string]handler{
		"pad_item.claim":        itemClaim,
		"pad_item.release":      itemRelease,
		"pad_item.remind":       itemRemind,
		"pad_item.reminders":    itemReminders,
		"pad_item.ack-reminder": itemAckReminder,
		"pad_item.unremind":     itemUnremind,
		"pad_item.patch":        itemPatch,
		"pad_item.context":      itemContext,
	})
}

// passThrough sends one request and answers padd's answer as it came.
func passThrough(c *call, method, path string, q url.Values, hdr http.Header, body any) (*result, error) {
	var out api.Verbatim
	if _, err := c.p.doHeaders(c.ctx, method, path, q, hdr, body, &out); err != nil {
		return nil, err
	}
	return &result{value: out.V}, nil
}

// leaseBody is a claim's or release's body. Without worker_id, padd
// takes this session's worker id from X-Pad-Worker.
type leaseBody struct {
	Holder   string `json:"holder,omitempty"`
	WorkerID string `json:"worker_id,omitempty"`
}

func itemClaim(c *call) (*result, error) {
	return passThrough(c, "POST", c.itemPath()+"/claim", nil, nil, leaseBody{Holder: c.a.str("holder"), WorkerID: c.a.str("worker_id")})
}

func itemRelease(c *call) (*result, error) {
	return passThrough(c, "POST", c.itemPath()+"/release", nil, nil, leaseBody{Holder: c.a.str("holder"), WorkerID: c.a.str("worker_id")})
}

func itemRemind(c *call) (*result, error) {
	return passThrough(c, "POST", c.itemPath()+"/reminders", nil, nil, map[string]string{"remind_at": c.a.str("remind_at")})
}

func itemReminders(c *call) (*result, error) {
	var rows []any
	if _, err := c.p.do(c.ctx, "GET", c.itemPath()+"/reminders", nil, nil, &rows); err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []any{}
	}
	return &result{value: map[string]any{"ref": c.a.str("ref"), "reminders": rows}}, nil
}

func reminderPath(c *call) string {
	return wsPath(c.ws) + "/reminders/" + api.PathEscape(c.a.str("reminder_id"))
}

func itemAckReminder(c *call) (*result, error) {
	return passThrough(c, "POST", reminderPath(c)+"/ack", nil, nil, nil)
}

func itemUnremind(c *call) (*result, error) {
	if _, err := c.p.do(c.ctx, "DELETE", reminderPath(c), nil, nil, nil); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"reminder_id": c.a.str("reminder_id"), "removed": true}}, nil
}

// patchBody carries the edits as the agent sent them: their numbers
// (line_hint) are json.Number and reach padd as written.
type patchBody struct {
	Edits       []any  `json:"edits,omitempty"`
	Undo        string `json:"undo,omitempty"`
	ExpectedSeq *int64 `json:"expected_seq,omitempty"`
	OpKey       string `json:"op_key,omitempty"`
}

func itemPatch(c *call) (*result, error) {
	body := patchBody{Undo: c.a.str("undo"), OpKey: c.a.str("op_key")}
	if edits, ok := c.a["edits"].([]any); ok {
		body.Edits = edits
	}
	if seq, ok := c.a.int("expected_seq"); ok {
		body.ExpectedSeq = &seq
	}
	return passThrough(c, "POST", c.itemPath()+"/patch", nil, nil, body)
}

func itemContext(c *call) (*result, error) {
	q := url.Values{}
	for _, k := range []string{"intent", "role"} {
		if v := c.a.str(k); v != "" {
			q.Set(k, v)
		}
	}
	if n, ok := c.a.int("budget"); ok {
		q.Set("budget", strconv.FormatInt(n, 10))
	}
	return passThrough(c, "GET", c.itemPath()+"/context", q, nil, nil)
}
