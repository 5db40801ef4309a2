package mcpstdio

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
)

func init() {
	register(map[string]handler{
		"pad_item.list":        itemList,
		"pad_item.get":         itemGet,
		"pad_item.create":      itemCreate,
		"pad_item.update":      itemUpdate,
		"pad_item.delete":      itemDelete,
		"pad_item.restore":     itemRestore,
		"pad_item.move":        itemMove,
		"pad_item.bulk-update": itemBulkUpdate,
		"pad_item.note":        itemNote,
		"pad_item.decide":      itemDecide,
		"pad_item.export":      itemExport,
		"pad_item.import":      itemImport,
		"pad_item.link-pr":     itemLinkPR,
		"pad_item.unlink-pr":   itemUnlinkPR,
	})
}

// itemExport answers a playbook or convention as portable artifact text
// (ITM-19), which pad_item import takes in another workspace.
func itemExport(c *call) (*result, error) {
	base, err := c.s.baseClient(c.ctx)
	if err != nil {
		return nil, err
	}
	cl := &api.Client{BaseURL: base.BaseURL, Token: base.Token, HTTP: base.HTTP, Agent: c.p.agent, Source: "mcp",
		Worker: c.s.worker, OnVersionMismatch: c.s.versionMismatch}
	text, err := cl.ExportItemArtifact(c.ctx, c.ws, c.a.str("ref"))
	if err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"ref": c.a.str("ref"), "artifact": string(text)},
		notes: []string{"pad_item import with this artifact text makes the item in another workspace (as a draft)."}}, nil
}

// itemImport makes an item from artifact text: {ref, slug, warnings}.
func itemImport(c *call) (*result, error) {
	var out api.ArtifactImport
	if _, err := c.p.do(c.ctx, "POST", wsPath(c.ws)+"/import-artifact", nil, map[string]any{"artifact": c.a.str("artifact")}, &out); err != nil {
		return nil, err
	}
	return &result{value: out}, nil
}

func itemPath(ws, ref string) string { return wsPath(ws) + "/items/" + api.PathEscape(ref) }

func (c *call) itemPath() string { return itemPath(c.ws, c.a.str("ref")) }

// fieldEntries are the call's key=value field entries plus status and
// priority, which are field entries by another name. padd types each
// value by the collection's schema and refuses two different values for
// one key, so the conflict rules live in one place.
func (c *call) fieldEntries() ([]string, error) {
	entries := c.a.strs("field")
	for _, e := range entries {
		k, _, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return nil, invalid(`write each field entry as "key=value"`, "field entry %q has no key=value", e).with("param", "field")
		}
		if strings.TrimSpace(k) != k {
			// Trimming would silently write a different key than typed.
			return nil, invalid("remove the spaces around the key", "field entry %q has a padded key", e).with("param", "field")
		}
	}
	for _, k := range []string{"status", "priority"} {
		if v := c.a.str(k); v != "" {
			entries = append(entries, k+"="+v)
		}
	}
	return entries, nil
}

// fieldsFlex is the fields object as padd takes it (nil when not given);
// its numbers are json.Number and reach padd with every digit.
func (c *call) fieldsFlex() api.Flex {
	if !c.a.has("fields") {
		return nil
	}
	return api.FlexOf(c.a.obj("fields"))
}

func (c *call) tagsFlex() api.Flex {
	if !c.a.has("tags") {
		return nil
	}
	return api.FlexOf(c.a.strs("tags"))
}

// itemList lists items, open ones unless all (or a status) is given, as
// summaries unless full. It asks padd for one row past the limit so a
// truncated answer can say so.
func itemList(c *call) (*result, error) {
	limit := c.limitOf(listDefault, listMax)
	q := url.Values{"limit": {strconv.Itoa(limit + 1)}}
	if off, ok := c.a.int("offset"); ok {
		q.Set("offset", strconv.FormatInt(off, 10))
	}
	if !c.a.boolean("all") && !c.a.has("status") {
		q.Set("non_terminal", "true")
	}
	for param, key := range map[string]string{"status": "status", "priority": "priority", "category": "category",
		"parent": "parent", "role": "role", "assign": "assignee", "sort": "sort"} {
		if v := c.a.str(param); v != "" {
			q.Set(key, v)
		}
	}
	if c.a.boolean("unparented") {
		q.Set("unparented", "true")
	}
	for _, e := range c.a.strs("field") {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" || strings.TrimSpace(k) != k {
			return nil, invalid(`write each filter as "key=value"`, "field filter %q is not key=value", e).with("param", "field")
		}
		q.Add(k, v)
	}
	path := wsPath(c.ws) + "/items"
	if coll := c.a.str("collection"); coll != "" {
		path = wsPath(c.ws) + "/collections/" + api.PathEscape(coll) + "/items"
	}
	var items []api.Item
	resp, err := c.p.do(c.ctx, "GET", path, q, nil, &items)
	if err != nil {
		return nil, err
	}
	extra := map[string]any{}
	if groupBy := c.a.str("group_by"); groupBy != "" {
		n := min(len(items), limit)
		grouped, groups := groupItems(items[:n], groupBy)
		// The probe row past the limit stays last, so the cap still sees it.
		items = append(grouped, items[n:]...)
		extra["group_by"], extra["groups"] = groupBy, groups
	}
	if keys := resp.Header.Get("X-Pad-Undeclared-Filter-Keys"); keys != "" {
		extra["warnings"] = map[string]any{"undeclared_filter_keys": strings.Split(keys, ",")}
	}
	full := c.a.boolean("full")
	capd := capRows(items, limit, func(it api.Item) any {
		if full {
			return fullItem(it)
		}
		return summarize(it)
	})
	return listResult("items", capd, "Narrow the filters (collection, status, parent, field) or raise limit (at most 300).", extra), nil
}

// groupItems orders items by a field's value, groups in order of first
// appearance (so the list's sort decides their order), and counts them.
func groupItems(items []api.Item, key string) ([]api.Item, []map[string]any) {
	type group struct {
		value any
		items []api.Item
	}
	var order []*group
	byKey := map[string]*group{}
	for _, it := range items {
		fields, _ := it.FieldMap()
		v, ok := fields[key]
		if !ok {
			v = nil
		}
		k := jsonText(v)
		g := byKey[k]
		if g == nil {
			g = &group{value: v}
			byKey[k] = g
			order = append(order, g)
		}
		g.items = append(g.items, it)
	}
	out := make([]api.Item, 0, len(items))
	groups := make([]map[string]any, 0, len(order))
	for _, g := range order {
		out = append(out, g.items...)
		groups = append(groups, map[string]any{"value": g.value, "count": len(g.items)})
	}
	return out, groups
}

// noRoute reports padd answering that it has no such route.
func noRoute(err error) bool {
	return api.IsNotFound(err) && fromAPI(err).Code == codeNotImplemented
}

func itemCreate(c *call) (*result, error) {
	entries, err := c.fieldEntries()
	if err != nil {
		return nil, err
	}
	in := api.ItemCreate{Title: c.a.str("title"), Content: c.a.str("content"), Fields: c.fieldsFlex(), Field: entries,
		Tags: c.tagsFlex(), Parent: c.a.strp("parent"), Role: c.a.strp("role"), AssignedUserID: c.a.strp("assign"),
		OpKey: c.a.str("op_key")}
	var it api.Item
	path := wsPath(c.ws) + "/collections/" + api.PathEscape(c.a.str("collection")) + "/items"
	if _, err := c.p.do(c.ctx, "POST", path, nil, in, &it); err != nil {
		return nil, err
	}
	return &result{value: written(it)}, nil
}

// updateParams are the params that change something; an update with none
// of them would be a silent no-op.
var updateParams = []string{"title", "content", "fields", "field", "status", "priority", "parent", "clear_parent",
	"assign", "clear_assigned_user", "role", "clear_agent_role", "tags"}

func itemUpdate(c *call) (*result, error) {
	changes := false
	for _, k := range updateParams {
		if c.a.has(k) && c.a[k] != false {
			changes = true
		}
	}
	if !changes {
		return nil, invalid("send what to change: "+strings.Join(updateParams, ", "), "pad_item update of %s changes nothing", c.a.str("ref")).
			with("accepts", updateParams)
	}
	entries, err := c.fieldEntries()
	if err != nil {
		return nil, err
	}
	in := api.ItemUpdate{Title: c.a.strp("title"), Content: c.a.strp("content"), FieldsPatch: c.fieldsFlex(), Field: entries,
		Tags: c.tagsFlex(), Parent: c.a.strp("parent"), ClearParent: c.a.boolean("clear_parent"),
		AssignedUserID: c.a.strp("assign"), ClearAssignedUser: c.a.boolean("clear_assigned_user"),
		Role: c.a.strp("role"), ClearAgentRole: c.a.boolean("clear_agent_role"),
		ExpectedUpdatedAt: c.a.str("expected_updated_at"), Replace: c.a.boolean("replace"),
		OverwritePendingEdits: c.a.boolean("overwrite_pending_edits"), Comment: c.a.strp("comment"), Force: c.a.boolean("force")}
	if seq, ok := c.a.int("expected_seq"); ok {
		in.ExpectedSeq = &seq
	}
	var it api.Item
	if _, err := c.p.do(c.ctx, "PATCH", c.itemPath(), nil, in, &it); err != nil {
		return nil, err
	}
	return &result{value: written(it)}, nil
}

func itemDelete(c *call) (*result, error) {
	if _, err := c.p.do(c.ctx, "DELETE", c.itemPath(), nil, nil, nil); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"ref": c.a.str("ref"), "archived": true},
		notes: []string{"Archived (a soft delete): pad_item restore brings it back."}}, nil
}

func itemRestore(c *call) (*result, error) {
	var it api.Item
	if _, err := c.p.do(c.ctx, "POST", c.itemPath()+"/restore", nil, nil, &it); err != nil {
		return nil, err
	}
	return &result{value: written(it)}, nil
}

func itemMove(c *call) (*result, error) {
	in := api.ItemMove{TargetCollection: c.a.str("target_collection"), Fields: c.a.obj("fields"),
		Field: c.a.strs("field"), Force: c.a.boolean("force")}
	var it api.Item
	if _, err := c.p.do(c.ctx, "POST", c.itemPath()+"/move", nil, in, &it); err != nil {
		return nil, err
	}
	return &result{value: written(it)}, nil
}

// itemBulkUpdate applies one field patch to many items; padd refuses, per
// item, a field the item's collection does not declare, and the answer
// lists each item as updated or failed.
func itemBulkUpdate(c *call) (*result, error) {
	patch := map[string]any{}
	for k, v := range c.a.obj("fields") {
		patch[k] = v
	}
	for _, k := range []string{"status", "priority"} {
		v := c.a.str(k)
		if v == "" {
			continue
		}
		if old, ok := patch[k]; ok && old != v {
			return nil, invalid(fmt.Sprintf("send %s once", k), "%s is given as a param and in fields with different values", k).
				with("param", k)
		}
		patch[k] = v
	}
	if len(patch) == 0 {
		return nil, invalid("send status, priority or fields", "pad_item bulk-update changes nothing").with("accepts", []string{"status", "priority", "fields"})
	}
	in := api.BulkRequest{IDs: c.a.strs("refs"), Op: "update", Fields: patch}
	return passThrough(c, "POST", wsPath(c.ws)+"/items/bulk", nil, nil, in)
}

// appendEntry appends an implementation note or a decision through the
// item update route, which re-reads the item under its write lock so a
// concurrent write to another key is never reverted.
func appendEntry(c *call, in api.ItemUpdate) (*result, error) {
	in.OpKey = c.a.str("op_key")
	var it api.Item
	if _, err := c.p.do(c.ctx, "PATCH", c.itemPath(), nil, in, &it); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"ref": it.Ref, "seq": it.Seq, "appended": it.Appended}}, nil
}

func itemNote(c *call) (*result, error) {
	return appendEntry(c, api.ItemUpdate{AppendImplementationNote: &api.NoteEntry{Summary: c.a.str("summary"), Details: c.a.str("details")}})
}

func itemDecide(c *call) (*result, error) {
	return appendEntry(c, api.ItemUpdate{AppendDecision: &api.DecisionEntry{Decision: c.a.str("decision"), Rationale: c.a.str("rationale")}})
}

// itemLinkPR links the item to a pull request from the metadata the
// agent gives (ITM-17); padd fetches nothing from GitHub.
func itemLinkPR(c *call) (*result, error) {
	n, _ := c.a.int("pr_number")
	in := api.ItemUpdate{GitHubPR: &api.GitHubPR{Number: n, URL: c.a.str("pr_url"), Title: c.a.str("pr_title"),
		State: c.a.str("pr_state"), Branch: c.a.str("pr_branch"), Repo: c.a.str("pr_repo")}}
	var it api.Item
	if _, err := c.p.do(c.ctx, "PATCH", c.itemPath(), nil, in, &it); err != nil {
		return nil, err
	}
	return &result{value: written(it)}, nil
}

// itemUnlinkPR removes the item's pull request link, refusing an item
// that has none, as Pad's unlink does.
func itemUnlinkPR(c *call) (*result, error) {
	it, err := getItem(c.ctx, c.p, c.ws, c.a.str("ref"))
	if err != nil {
		return nil, err
	}
	if fields, _ := it.FieldMap(); fields["github_pr"] == nil {
		return nil, refuse(api.CodeNotFound, "pad_item get shows an item's link as code_context; link one with link-pr",
			"%s has no linked pull request", it.Ref).with("ref", it.Ref).with("reason", "no_pr_link")
	}
	var out api.Item
	if _, err := c.p.do(c.ctx, "PATCH", c.itemPath(), nil, api.ItemUpdate{ClearGitHubPR: true}, &out); err != nil {
		return nil, err
	}
	return &result{value: written(out)}, nil
}

// getItem reads one item (used by resources and the bootstrap).
func getItem(ctx context.Context, p *paddConn, ws, ref string) (api.Item, error) {
	var it api.Item
	_, err := p.do(ctx, "GET", itemPath(ws, ref), nil, nil, &it)
	return it, err
}
