package mcpstdio

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/padd/padd/api"
)

// Playbooks (the workspace's written procedures) and the library of
// conventions and playbooks padd ships.

func init() {
	register(map[string]handler{
		"pad_playbook.list":    playbookList,
		"pad_playbook.get":     playbookGet,
		"pad_playbook.run":     playbookRun,
		"pad_playbook.match":   playbookMatch,
		"pad_library.list":     libraryList,
		"pad_library.get":      libraryGet,
		"pad_library.activate": libraryActivate,
	})
}

func playbookPath(c *call) string {
	return wsPath(c.ws) + "/playbooks/" + api.PathEscape(c.a.str("ref"))
}

func playbookList(c *call) (*result, error) {
	var rows []any
	if _, err := c.p.do(c.ctx, "GET", wsPath(c.ws)+"/playbooks", nil, nil, &rows); err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []any{}
	}
	return &result{value: map[string]any{"playbooks": rows}}, nil
}

// playbookGet answers the playbook item with its status beside it, so
// the draft gate is readable without parsing fields.
func playbookGet(c *call) (*result, error) {
	var raw json.RawMessage
	if _, err := c.p.do(c.ctx, "GET", playbookPath(c), nil, nil, &raw); err != nil {
		return nil, err
	}
	var it api.Item
	var st struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(raw, &st)
	return &result{value: map[string]any{"playbook": fullItem(it), "status": st.Status}}, nil
}

// playbookRun binds arguments and returns the steps; padd stores nothing.
// allow_draft is a string on Pad's wire ("true").
func playbookRun(c *call) (*result, error) {
	draft := false
	switch v := strings.ToLower(c.a.str("allow_draft")); v {
	case "", "false", "0", "no":
	case "true", "1", "yes":
		draft = true
	default:
		return nil, invalid(`send allow_draft as "true" or "false"`, "allow_draft %q is not true or false", v).with("param", "allow_draft")
	}
	body := map[string]any{"allow_draft": draft}
	if args := c.a.obj("args"); args != nil {
		body["args"] = args
	}
	if raw := c.a.strs("raw_args"); len(raw) > 0 {
		body["raw_args"] = raw
	}
	return passThrough(c, "POST", playbookPath(c)+"/run", nil, nil, body)
}

// playbookMatch asks padd which active playbook the text calls for;
// without an LLM decision provider padd answers
// decision_provider_unavailable, whose hint says how to choose instead.
func playbookMatch(c *call) (*result, error) {
	return passThrough(c, "POST", wsPath(c.ws)+"/playbooks/match", nil, nil, api.PlaybookMatchRequest{Text: c.a.str("text")})
}

// libraryRoutes are the two halves of the library.
var libraryRoutes = map[string]string{"conventions": "/convention-library", "playbooks": "/playbook-library"}

// libraryList lists the entries (titles, categories, triggers), not their
// bodies: pad_library get reads one.
func libraryList(c *call) (*result, error) {
	out := map[string]any{}
	for typ, route := range libraryRoutes {
		if want := c.a.str("type"); want != "" && want != typ {
			continue
		}
		q := url.Values{"summary": {"true"}}
		if cat := c.a.str("category"); cat != "" {
			q.Set("category", cat)
		}
		var lib struct {
			Categories []map[string]any `json:"categories"`
		}
		if _, err := c.p.do(c.ctx, "GET", route, q, nil, &lib); err != nil {
			return nil, err
		}
		for _, cat := range lib.Categories {
			entries, _ := cat[typ].([]any)
			for _, e := range entries {
				if m, ok := e.(map[string]any); ok {
					delete(m, "content")
				}
			}
		}
		if lib.Categories == nil {
			lib.Categories = []map[string]any{}
		}
		out[typ] = lib.Categories
	}
	return &result{value: out}, nil
}

// libraryEntry reads one entry by title, refusing one of the other type
// when type is given.
func libraryEntry(c *call) (kind string, entry map[string]any, err error) {
	var e map[string]any
	if _, err := c.p.do(c.ctx, "GET", "/library/entry", url.Values{"title": {c.a.str("title")}}, nil, &e); err != nil {
		if api.IsNotFound(err) && !noRoute(err) {
			return "", nil, refuse(api.CodeNotFound, "titles must match exactly: pad_library list shows them", "%s", fromAPI(err).Message).
				with("title", c.a.str("title"))
		}
		return "", nil, err
	}
	kind, _ = e["type"].(string)
	if want := c.a.str("type"); want != "" && strings.TrimSuffix(want, "s") != strings.TrimSuffix(kind, "s") {
		return "", nil, refuse(api.CodeNotFound, "pad_library list type="+want+" shows its titles",
			"the library entry %q is a %s, not one of the %s", c.a.str("title"), kind, want)
	}
	for _, k := range []string{"convention", "playbook"} {
		if m, ok := e[k].(map[string]any); ok {
			return kind, m, nil
		}
	}
	return kind, e, nil
}

// summaryChars bounds a library body shown without full.
const summaryChars = 400

func libraryGet(c *call) (*result, error) {
	kind, entry, err := libraryEntry(c)
	if err != nil {
		return nil, err
	}
	r := &result{value: map[string]any{"type": kind, "entry": entry}}
	if body, _ := entry["content"].(string); !c.a.boolean("full") && len(body) > summaryChars {
		cut := strings.LastIndexAny(body[:summaryChars], " \n")
		if cut <= 0 {
			cut = summaryChars
		}
		entry["content"] = body[:cut] + " …"
		entry["content_truncated"] = true
		r.notes = append(r.notes, "The body is cut short: pass full: true for all of it.")
	}
	return r, nil
}

// libraryActivate creates the entry as an item of the collection that
// holds its kind.
func libraryActivate(c *call) (*result, error) {
	if c.a.has("type") {
		if _, _, err := libraryEntry(c); err != nil {
			return nil, err
		}
	}
	var raw json.RawMessage
	if _, err := c.p.do(c.ctx, "POST", wsPath(c.ws)+"/library/activate", nil, map[string]string{"title": c.a.str("title")}, &raw); err != nil {
		return nil, err
	}
	var it api.Item
	var extra struct {
		Library  any `json:"library"`
		Warnings any `json:"warnings"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(raw, &extra)
	w := written(it)
	w.Warnings = nil // the full warnings (with options_added) are beside the item
	out := map[string]any{"item": w, "library": extra.Library}
	if extra.Warnings != nil {
		out["warnings"] = extra.Warnings
	}
	return &result{value: out}, nil
}
