package mcpstdio

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The pad_project actions: the dashboard, the views that rank and
// summarise work (next, ready, stale, standup, changelog, report) and the
// activity feed. padd's answers pass through as JSON values.

func init() {
	register(map[string]handler{
		"pad_project.dashboard": projectDashboard,
		"pad_project.next":      projectView("next", "worker_id", "role"),
		"pad_project.ready":     projectView("ready", "worker_id", "limit"),
		"pad_project.stale":     projectView("stale", "days", "limit"),
		"pad_project.standup":   projectView("standup", "days"),
		"pad_project.changelog": projectView("changelog", "since", "days", "parent", "limit"),
		"pad_project.report":    projectReport,
		"pad_project.activity":  projectActivity,
	})
}

func projectDashboard(c *call) (*result, error) {
	d, err := dashboardOf(c.ctx, c.p, c.ws)
	if err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"workspace": c.ws, "dashboard": d}}, nil
}

// projectView is a pad_project view: GET /workspaces/{ws}/<route> with
// the named params as query parameters. A worker_id goes as X-Pad-Worker,
// replacing this session's, so a lease held elsewhere counts as ours.
func projectView(route string, params ...string) handler {
	return func(c *call) (*result, error) {
		q := url.Values{}
		var hdr http.Header
		for _, k := range params {
			v, given := c.a[k]
			switch {
			case !given:
			case k == "worker_id":
				hdr = http.Header{"X-Pad-Worker": {c.a.str(k)}}
			default:
				q.Set(k, queryValue(v))
			}
		}
		return passThrough(c, "GET", wsPath(c.ws)+"/"+route, q, hdr, nil)
	}
}

// reportWindows are the windows a report takes, and the spellings agents
// reach for that mean one of them.
var reportWindows = map[string]string{"day": "day", "week": "week", "2wk": "2wk", "month": "month",
	"1d": "day", "24h": "day", "7d": "week", "1w": "week", "14d": "2wk", "2w": "2wk", "30d": "month", "1m": "month"}

// projectReport is the report view. REST reads an unknown window as a
// week, as Pad's does; an agent's is refused instead, so that the
// answer is never of another window than the one asked for.
func projectReport(c *call) (*result, error) {
	if w, given := c.a["window"]; given {
		name, ok := reportWindows[strings.ToLower(strings.TrimSpace(c.a.str("window")))]
		if !ok {
			return nil, invalid("pass window day, week, 2wk or month (or 1d, 7d, 14d, 30d)",
				"window %q is not a report window", queryValue(w)).with("field", "window").with("valid", []string{"day", "week", "2wk", "month"})
		}
		c.a["window"] = name
	}
	return projectView("report", "collections", "window")(c)
}

// queryValue writes a validated param value as query text.
func queryValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return jsonText(v) // json.Number as written
}

// projectActivity is the bounded activity feed: what others changed, newest
// first. Each row's metadata (JSON text on the wire) becomes an object.
func projectActivity(c *call) (*result, error) {
	q := url.Values{}
	for _, k := range []string{"actor", "since"} {
		if v := c.a.str(k); v != "" {
			q.Set(k, v)
		}
	}
	return passList(c, wsPath(c.ws)+"/activity", q, "activity",
		"Pass since (a date or time) to see less, or raise limit (at most 300).", c.limitOf(listDefault, listMax),
		func(v any) any {
			if m, ok := v.(map[string]any); ok {
				if s, ok := m["metadata"].(string); ok && s != "" {
					dec := json.NewDecoder(bytes.NewReader([]byte(s)))
					dec.UseNumber()
					var meta any
					if dec.Decode(&meta) == nil {
						m["metadata"] = meta
					}
				}
			}
			return v
		})
}
