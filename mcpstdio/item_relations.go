package mcpstdio

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
)

// The pad_item actions around an item: comments, links, the dependency
// graph, backlinks, history and stars. padd's answers are passed through
// as JSON values (numbers stay json.Number), trimmed only where Pad's
// agent caps say so.

func init() {
	register(map[string]handler{
		"pad_item.comment":        itemComment,
		"pad_item.list-comments":  itemListComments,
		"pad_item.edit-comment":   itemEditComment,
		"pad_item.delete-comment": itemDeleteComment,
		"pad_item.link":           itemLink,
		"pad_item.unlink":         itemUnlink,
		"pad_item.deps":           itemDeps,
		"pad_item.backlinks":      itemBacklinks,
		"pad_item.history":        itemHistory,
		"pad_item.star":           itemStar,
		"pad_item.unstar":         itemUnstar,
		"pad_item.starred":        itemStarred,
	})
}

func itemComment(c *call) (*result, error) {
	in := api.CommentCreate{Body: c.a.str("message"), ParentID: c.a.str("reply_to"), OpKey: c.a.str("op_key")}
	return passThrough(c, "POST", c.itemPath()+"/comments", nil, nil, in)
}

func itemListComments(c *call) (*result, error) {
	var rows []any
	if _, err := c.p.do(c.ctx, "GET", c.itemPath()+"/comments", nil, nil, &rows); err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []any{}
	}
	return &result{value: map[string]any{"ref": c.a.str("ref"), "comments": rows, "count": len(rows)}}, nil
}

func (c *call) commentPath() string {
	return c.itemPath() + "/comments/" + api.PathEscape(c.a.str("comment_id"))
}

func itemEditComment(c *call) (*result, error) {
	body := c.a.str("message")
	return passThrough(c, "PATCH", c.commentPath(), nil, nil, api.CommentEdit{Body: &body})
}

func itemDeleteComment(c *call) (*result, error) {
	if _, err := c.p.do(c.ctx, "DELETE", c.commentPath(), nil, nil, nil); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"ref": c.a.str("ref"), "comment_id": c.a.str("comment_id"), "deleted": true}}, nil
}

func itemLink(c *call) (*result, error) {
	in := api.ItemLinkCreate{TargetID: c.a.str("target"), LinkType: c.a.str("link_type")}
	return passThrough(c, "POST", c.itemPath()+"/links", nil, nil, in)
}

// itemUnlink finds the link (ref, link_type, target) among the item's
// links and deletes it. padd stores "A blocked-by B" as "B blocks A", so
// the match is made on the stored direction, by item id, which is the
// one spelling of an item that a ref, slug or id all resolve to.
func itemUnlink(c *call) (*result, error) {
	self, err := getItem(c.ctx, c.p, c.ws, c.a.str("ref"))
	if err != nil {
		return nil, err
	}
	other, err := getItem(c.ctx, c.p, c.ws, c.a.str("target"))
	if err != nil {
		return nil, err
	}
	typ := c.a.str("link_type")
	src, dst := self.ID, other.ID
	if typ == "blocked-by" {
		typ, src, dst = "blocks", other.ID, self.ID
	}
	var links []struct {
		ID       string `json:"id"`
		SourceID string `json:"source_id"`
		TargetID string `json:"target_id"`
		LinkType string `json:"link_type"`
	}
	if _, err := c.p.do(c.ctx, "GET", itemPath(c.ws, self.ID)+"/links", nil, nil, &links); err != nil {
		return nil, err
	}
	for _, l := range links {
		// padd spells stored types as Pad does (split_from).
		if strings.ReplaceAll(l.LinkType, "_", "-") == typ && l.SourceID == src && l.TargetID == dst {
			if _, err := c.p.do(c.ctx, "DELETE", wsPath(c.ws)+"/links/"+api.PathEscape(l.ID), nil, nil, nil); err != nil {
				return nil, err
			}
			return &result{value: map[string]any{"ref": self.Ref, "target": other.Ref, "link_type": c.a.str("link_type"), "removed": true}}, nil
		}
	}
	return nil, refuse(api.CodeNotFound, "pad_item get "+self.Ref+" lists its links with their types and directions",
		"%s has no %s link to %s", self.Ref, c.a.str("link_type"), other.Ref).
		with("ref", self.Ref).with("target", other.Ref)
}

func itemDeps(c *call) (*result, error) {
	return passThrough(c, "GET", c.itemPath()+"/deps", nil, nil, nil)
}

// passList reads a bare-array list from padd, asking for one row past
// the limit, and answers it capped.
func passList(c *call, path string, q url.Values, key, narrow string, limit int, shape func(any) any) (*result, error) {
	q.Set("limit", strconv.Itoa(limit+1))
	var rows []any
	if _, err := c.p.do(c.ctx, "GET", path, q, nil, &rows); err != nil {
		return nil, err
	}
	if shape == nil {
		shape = func(v any) any { return v }
	}
	return listResult(key, capRows(rows, limit, shape), narrow, nil), nil
}

func itemBacklinks(c *call) (*result, error) {
	return passList(c, c.itemPath()+"/backlinks", url.Values{}, "backlinks",
		"Raise limit (at most 300) to see more.", c.limitOf(listDefault, listMax), nil)
}

// itemHistory lists the newest versions; without full, no bodies. There
// is deliberately no offset: versions are reverse patches, so only the
// newest end is cheap.
func itemHistory(c *call) (*result, error) {
	q := url.Values{}
	if !c.a.boolean("full") {
		q.Set("summary", "true")
	}
	return passList(c, c.itemPath()+"/versions", q, "versions",
		"These are the newest; raise limit (at most 300) to reach further back.", c.limitOf(listDefault, listMax),
		func(v any) any {
			if m, ok := v.(map[string]any); ok && !c.a.boolean("full") {
				delete(m, "content")
			}
			return v
		})
}

func itemStar(c *call) (*result, error) {
	return passThrough(c, "POST", c.itemPath()+"/star", nil, nil, nil)
}

func itemUnstar(c *call) (*result, error) {
	return passThrough(c, "DELETE", c.itemPath()+"/star", nil, nil, nil)
}

// itemStarred lists starred items, newest star first, at most 300.
func itemStarred(c *call) (*result, error) {
	limit := c.limitOf(starredMax, starredMax)
	q := url.Values{"summary": {"true"}, "limit": {strconv.Itoa(limit + 1)}}
	if c.a.boolean("all") {
		q.Set("include_terminal", "true")
	}
	var items []api.Item
	if _, err := c.p.do(c.ctx, "GET", wsPath(c.ws)+"/starred", q, nil, &items); err != nil {
		return nil, err
	}
	capd := capRows(items, limit, func(it api.Item) any { return summarize(it) })
	return listResult("items", capd, "Unstar what you no longer need, or use pad_item list with filters.", nil), nil
}
