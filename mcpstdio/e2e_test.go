package mcpstdio_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/mcpstdio"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// An agent's whole session, on both protocol paths: the stateless
// 2026-07-28 (server/discover, the go-sdk default) and the initialize
// handshake (2025-11-25).
func TestAgentSession(t *testing.T) {
	for _, proto := range []string{protoModern, protoLegacy} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			agentSession(t, proto)
		})
	}
}

func agentSession(t *testing.T, proto string) {
	e := newEnv(t)
	alpha, beta := e.workspace("Alpha"), e.workspace("Beta")
	name := "e2e-agent-" + proto
	opts := sessionOpts{name: name, noRoots: true}
	if proto == protoLegacy {
		opts.proto = protoLegacy
	}
	cs := e.session(opts)

	// The handshake carries the contract, on either path.
	ir := cs.InitializeResult()
	if ir.ProtocolVersion != proto {
		t.Errorf("protocol %s, want %s", ir.ProtocolVersion, proto)
	}
	surface, _ := ir.Capabilities.Experimental["padToolSurface"].(map[string]any)
	cmdhelp, _ := ir.Capabilities.Experimental["padCmdhelp"].(map[string]any)
	if surface["version"] != mcpstdio.ToolSurfaceVersion || surface["tool_surface_stable"] != true ||
		cmdhelp["version"] != "0.1" || cmdhelp["tool_surface_stable"] != true {
		t.Errorf("experimental capabilities: %v", ir.Capabilities.Experimental)
	}
	if ir.ServerInfo.Name != "padd" || !strings.Contains(ir.Instructions, "pad_set_workspace") {
		t.Errorf("server info %+v, instructions %q", ir.ServerInfo, ir.Instructions)
	}

	// No workspace chosen and two exist: refused with the choices.
	r := refused(t, cs, "pad_item", map[string]any{"action": "list"}, "no_workspace")
	if got := fmt.Sprint(r.get("details", "available_workspaces")); got != fmt.Sprint([]any{alpha, beta}) {
		t.Errorf("available_workspaces %s", got)
	}

	// pad_set_workspace answers with the bootstrap.
	r = ok(t, cs, "pad_set_workspace", map[string]any{"workspace": alpha})
	if r.str("workspace") != alpha || r.str("bootstrap", "workspace", "slug") != alpha {
		t.Fatalf("set workspace: %s", r.texts[0])
	}
	var tasksSchema any
	for _, c := range r.list("bootstrap", "collections") {
		if m := c.(map[string]any); m["slug"] == "tasks" {
			tasksSchema = m["schema"]
		}
	}
	if fields, _ := tasksSchema.(map[string]any)["fields"].([]any); len(fields) == 0 {
		t.Errorf("bootstrap tasks schema is not an object with fields: %v", tasksSchema)
	}
	if _, ok := r.get("bootstrap", "dashboard").(map[string]any); !ok || r.get("bootstrap", "roles") == nil {
		t.Errorf("bootstrap dashboard/roles: %s", r.texts[0])
	}

	// A plan and its tasks.
	plan := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "plans", "title": "Launch v1",
		"content": "Ship the first version."})
	planRef := plan.str("ref")
	if !strings.HasPrefix(planRef, "PLAN-") || plan.str("created_by") != "agent" || plan.str("created_by_name") != name {
		t.Fatalf("plan: %s", plan.texts[0])
	}
	var tasks []string
	for i, spec := range []map[string]any{
		{"title": "Write the installer", "priority": "high", "fields": map[string]any{"effort": "s"}},
		{"title": "Test the installer", "field": []string{"effort=m"}},
		{"title": "Announce it", "content": "Post about the unicorn release.",
			"fields": map[string]any{"estimate_ms": json.Number("9007199254740993123")}},
	} {
		args := map[string]any{"action": "create", "collection": "tasks", "parent": planRef}
		for k, v := range spec {
			args[k] = v
		}
		tr := ok(t, cs, "pad_item", args)
		tasks = append(tasks, tr.str("ref"))
		if tr.str("parent") != planRef {
			t.Errorf("task %d parent %q", i, tr.str("parent"))
		}
	}
	// A number beyond 2^53 comes back with every digit.
	if r := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": tasks[2]}); !strings.Contains(r.texts[0], `"estimate_ms":9007199254740993123`) {
		t.Errorf("big number lost: %s", r.texts[0])
	}

	// Links and comments.
	ok(t, cs, "pad_item", map[string]any{"action": "link", "ref": tasks[1], "target": tasks[0], "link_type": "blocked-by"})
	deps := ok(t, cs, "pad_item", map[string]any{"action": "deps", "ref": tasks[1]})
	if deps.str("blocked_by", "0", "ref") != tasks[0] {
		t.Errorf("deps: %s", deps.texts[0])
	}
	ok(t, cs, "pad_item", map[string]any{"action": "comment", "ref": tasks[0], "message": "Starting on this."})
	got := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": tasks[0]})
	if len(got.list("comments")) != 1 || len(got.list("links")) != 1 || got.str("comments", "0", "author") != name {
		t.Errorf("get with comments and links: %s", got.texts[0])
	}

	// Lists with filters.
	if r := ok(t, cs, "pad_item", map[string]any{"action": "list", "parent": planRef}); r.str("count") != "3" || r.get("has_more") != false {
		t.Errorf("list parent: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "list", "priority": "high"}); r.str("count") != "1" || r.str("items", "0", "ref") != tasks[0] {
		t.Errorf("list priority: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "list", "collection": "tasks", "field": []string{"effort=m"}}); r.str("count") != "1" || r.str("items", "0", "ref") != tasks[1] {
		t.Errorf("list field filter: %s", r.texts[0])
	}
	trunc := ok(t, cs, "pad_item", map[string]any{"action": "list", "collection": "tasks", "limit": 2})
	if trunc.str("count") != "2" || trunc.get("has_more") != true || len(trunc.texts) != 2 || !strings.Contains(trunc.texts[1], "Truncated") {
		t.Errorf("truncated list: %v", trunc.texts)
	}
	if _, hasContent := trunc.get("items", "0").(map[string]any)["content"]; hasContent || trunc.get("items", "0", "seq") == nil {
		t.Errorf("list rows are not summaries (no content, with seq): %s", trunc.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "list", "parent": planRef, "full": true}); r.str("items", "0", "content") == "<nil>" {
		t.Errorf("full list has no bodies: %s", r.texts[0])
	}

	if r := ok(t, cs, "pad_item", map[string]any{"action": "list", "parent": planRef, "group_by": "effort", "sort": "title"}); fmt.Sprint(r.get("groups")) != "[map[count:1 value:<nil>] map[count:1 value:m] map[count:1 value:s]]" {
		t.Errorf("list group_by: %s", r.texts[0])
	}

	// Search.
	if r := ok(t, cs, "pad_search", map[string]any{"action": "query", "query": "unicorn"}); r.str("total") != "1" || r.str("items", "0", "ref") != tasks[2] {
		t.Errorf("search: %s", r.texts[0])
	}
	// An agent finds what it wrote the moment it searches: its search
	// waits for the index to hold the session's writes.
	fresh := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "ideas", "title": "Zebrafinch migration notes"}).str("ref")
	if r := ok(t, cs, "pad_search", map[string]any{"action": "query", "query": "zebrafinch"}); r.str("total") != "1" || r.str("items", "0", "ref") != fresh {
		t.Errorf("search right after a create: %s", r.texts[0])
	}

	// Update with expected_seq; a stale seq is an update_conflict.
	seq := got.str("item", "seq")
	up := ok(t, cs, "pad_item", map[string]any{"action": "update", "ref": tasks[0], "status": "in-progress",
		"expected_seq": json.Number(seq), "comment": "picked it up"})
	if up.str("fields", "status") != "in-progress" || up.str("seq") == seq {
		t.Errorf("update: %s", up.texts[0])
	}
	conflict := refused(t, cs, "pad_item", map[string]any{"action": "update", "ref": tasks[0], "title": "Renamed",
		"expected_seq": json.Number(seq)}, "update_conflict")
	if !strings.Contains(conflict.str("hint"), "re-read and merge, do not resend") {
		t.Errorf("update_conflict hint: %s", conflict.str("hint"))
	}
	// A bad field value keeps padd's validation_error (a write refusal).
	refused(t, cs, "pad_item", map[string]any{"action": "update", "ref": tasks[0], "status": "bogus"}, "validation_error")

	// Notes, history, stars, roles, delete and restore.
	if r := ok(t, cs, "pad_item", map[string]any{"action": "note", "ref": planRef, "summary": "Installer first"}); len(r.list("appended")) != 1 {
		t.Errorf("note: %s", r.texts[0])
	}
	cur := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": tasks[0]}).str("item", "seq")
	ok(t, cs, "pad_item", map[string]any{"action": "update", "ref": tasks[0], "content": "Use the splice editor.",
		"expected_seq": json.Number(cur)})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "history", "ref": tasks[0]}); len(r.list("versions")) < 2 {
		t.Errorf("history: %s", r.texts[0])
	}
	ok(t, cs, "pad_item", map[string]any{"action": "star", "ref": tasks[0]})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "starred"}); r.str("items", "0", "ref") != tasks[0] {
		t.Errorf("starred: %s", r.texts[0])
	}
	ok(t, cs, "pad_role", map[string]any{"action": "create", "name": "Reviewer"})
	ok(t, cs, "pad_role", map[string]any{"action": "create", "name": "Planner"})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "update", "ref": tasks[1], "role": "reviewer"}); r.str("role") != "reviewer" {
		t.Errorf("role: %s", r.texts[0])
	}
	ok(t, cs, "pad_item", map[string]any{"action": "delete", "ref": tasks[2]})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "restore", "ref": tasks[2]}); r.str("ref") != tasks[2] {
		t.Errorf("restore: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_project", map[string]any{"action": "activity", "limit": 5}); len(r.list("activity")) != 5 || r.get("has_more") != true {
		t.Errorf("activity: %s", r.texts[0])
	}

	// The version contract, three ways.
	v := ok(t, cs, "pad_meta", map[string]any{"action": "version"})
	if v.str("tool_surface_version") != mcpstdio.ToolSurfaceVersion || v.str("mcp_protocol_version") != proto || v.str("padd_version") == "" {
		t.Errorf("pad_meta version: %s", v.texts[0])
	}
	vr := readResource(t, cs, "pad://_meta/version")
	if vr[0].Text != `{"tool_surface_version":"`+mcpstdio.ToolSurfaceVersion+`","cmdhelp_version":"0.1"}` {
		t.Errorf("version resource: %s", vr[0].Text)
	}

	// Resources.
	if c := readResource(t, cs, "pad://workspaces"); !strings.Contains(c[0].Text, `"slug":"`+alpha+`"`) {
		t.Errorf("workspaces resource: %s", c[0].Text)
	}
	md := readResource(t, cs, "pad://workspace/"+alpha+"/items/"+tasks[2])
	if md[0].MIMEType != "text/markdown" || !strings.Contains(md[0].Text, "# "+tasks[2]+": Announce it") ||
		!strings.Contains(md[0].Text, "- **estimate_ms**: 9007199254740993123\n") {
		t.Errorf("item resource:\n%s", md[0].Text)
	}
	for _, uri := range []string{"items", "collections", "dashboard", "bootstrap"} {
		c := readResource(t, cs, "pad://workspace/"+alpha+"/"+uri)
		if c[0].MIMEType != "application/json" || !json.Valid([]byte(c[0].Text)) {
			t.Errorf("%s resource: %s %s", uri, c[0].MIMEType, c[0].Text)
		}
	}
	lrt, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(lrt.ResourceTemplates) != 6 {
		t.Errorf("resource templates: %v %v", lrt, err)
	}

	// Prompts.
	lp, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(lp.Prompts) != 4 {
		t.Fatalf("prompts: %v %v", lp, err)
	}
	// The catalog, prompts and templates cannot change while the server
	// runs: a 2026-07-28 client is told to keep them for an hour.
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) != 11 {
		t.Fatalf("tools: %d, %v", len(lt.Tools), err)
	}
	wantTTL := 0
	if proto == protoModern {
		wantTTL = 3_600_000
	}
	if lt.GetTTLMs() != wantTTL || lp.GetTTLMs() != wantTTL || lrt.GetTTLMs() != wantTTL {
		t.Errorf("ttlMs of tools/list %d, prompts/list %d, resources/templates/list %d; want %d",
			lt.GetTTLMs(), lp.GetTTLMs(), lrt.GetTTLMs(), wantTTL)
	}
	gp, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "pad_plan"})
	if err != nil || len(gp.Messages) == 0 || !strings.Contains(gp.Messages[0].Content.(*sdk.TextContent).Text, "pad_set_workspace") {
		t.Errorf("pad_plan prompt: %v %v", gp, err)
	}

	// padd recorded the agent, by the client's name, everywhere.
	it := e.item(alpha, tasks[0])
	if it.CreatedBy != "agent" || it.CreatedByName != name || it.LastModifiedBy != "agent" {
		t.Errorf("padd's record: created_by %s %q, last_modified_by %s", it.CreatedBy, it.CreatedByName, it.LastModifiedBy)
	}
	var acts []api.Activity
	e.do("GET", "/workspaces/"+alpha+"/activity?limit=20", nil, &acts)
	seen := 0
	for _, a := range acts {
		if a.ItemRef == "" {
			continue // the workspaces this test made through the API
		}
		seen++
		if a.Actor != "agent" || a.ActorName != name || a.Source != "mcp" {
			t.Errorf("activity row by %s %q via %s: %+v", a.Actor, a.ActorName, a.Source, a)
			break
		}
	}
	if seen == 0 {
		t.Error("no item activity recorded")
	}
	// Comment threads, unlinking, bulk updates and backlinks.
	cid := got.str("comments", "0", "id")
	if r := ok(t, cs, "pad_item", map[string]any{"action": "edit-comment", "ref": tasks[0], "comment_id": cid, "message": "Started."}); r.str("body") != "Started." {
		t.Errorf("edit-comment: %s", r.texts[0])
	}
	ok(t, cs, "pad_item", map[string]any{"action": "comment", "ref": tasks[0], "message": "A reply.", "reply_to": cid})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "list-comments", "ref": tasks[0]}); r.str("count") != "3" || r.str("comments", "2", "parent_id") != cid {
		t.Errorf("list-comments (the update's comment, the edited one, the reply): %s", r.texts[0])
	}
	ok(t, cs, "pad_item", map[string]any{"action": "delete-comment", "ref": tasks[0], "comment_id": cid})
	ok(t, cs, "pad_item", map[string]any{"action": "unlink", "ref": tasks[1], "target": tasks[0], "link_type": "blocked-by"})
	refused(t, cs, "pad_item", map[string]any{"action": "unlink", "ref": tasks[1], "target": tasks[0], "link_type": "blocked-by"}, "not_found")
	if r := ok(t, cs, "pad_item", map[string]any{"action": "deps", "ref": tasks[1]}); len(r.list("blocked_by")) != 0 {
		t.Errorf("deps after unlink: %s", r.texts[0])
	}
	bulk := ok(t, cs, "pad_item", map[string]any{"action": "bulk-update", "refs": []string{tasks[1], tasks[2], planRef}, "status": "done"})
	if len(bulk.list("updated")) != 2 || bulk.str("failed", "0", "ref") != planRef {
		t.Errorf("bulk-update (plans have no done status): %s", bulk.texts[0])
	}
	ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "docs", "title": "Notes", "content": "See [[" + tasks[0] + "]]."})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "backlinks", "ref": tasks[0]}); r.str("count") != "1" {
		t.Errorf("backlinks: %s", r.texts[0])
	}

	// The other workspace stayed untouched, and is reachable explicitly.
	if r := ok(t, cs, "pad_item", map[string]any{"action": "list", "workspace": beta, "all": true}); r.str("count") != "0" {
		t.Errorf("beta: %s", r.texts[0])
	}
}

// Refusals are tool errors ({code, message, hint, details}), never
// protocol errors, and say what to do next.
func TestErrorPaths(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Solo")
	cs := e.session(sessionOpts{noRoots: true})
	r := refused(t, cs, "pad_item", map[string]any{"action": "explode"}, "validation_failed")
	if !strings.Contains(r.str("hint"), "list, get, create") && !strings.Contains(r.str("hint"), "ack-reminder") {
		t.Errorf("unknown action hint: %s", r.str("hint"))
	}
	r = refused(t, cs, "pad_item", map[string]any{"action": "list", "colection": "tasks"}, "validation_failed")
	if fmt.Sprint(r.get("details", "unknown_params")) != "[colection]" || !strings.Contains(r.str("message"), "colection") {
		t.Errorf("unknown param: %s", r.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "get", "ref": "TASK-1", "status": "open"}, "validation_failed")
	r = refused(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks"}, "validation_failed")
	if fmt.Sprint(r.get("details", "missing")) != "[title]" {
		t.Errorf("missing param: %s", r.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "list", "limit": "lots"}, "validation_failed")
	refused(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "x",
		"fields": map[string]any{"status": "bogus"}}, "validation_error")
	refused(t, cs, "pad_item", map[string]any{"action": "get", "ref": "TASK-999"}, "not_found")
	refused(t, cs, "pad_item", map[string]any{"action": "list", "workspace": "nope"}, "not_found")
	r = refused(t, cs, "pad_workspace", map[string]any{"action": "invite", "email": "a@b.c"}, "not_implemented")
	if r.str("details", "action") != "invite" {
		t.Errorf("not_implemented details: %s", r.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "update", "ref": "TASK-1"}, "validation_failed")
	// An unknown tool is the protocol's error, not a tool's.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "pad_nothing"}); err == nil {
		t.Error("unknown tool accepted")
	}
	_ = ws
}

// The actions that shape a workspace: collections, roles, moves,
// decisions and the workspace's own life cycle.
func TestShapingActions(t *testing.T) {
	e := newEnv(t)
	cs := e.session(sessionOpts{noRoots: true})
	ws := ok(t, cs, "pad_workspace", map[string]any{"action": "create", "name": "Shape It", "template": "startup"}).str("slug")
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})
	coll := ok(t, cs, "pad_collection", map[string]any{"action": "create", "name": "Bugs", "prefix": "BUG",
		"fields": "status:select:new,fixed;severity:number", "default_view": "board"})
	if coll.str("slug") != "bugs" || coll.str("settings", "default_view") != "board" || coll.get("schema", "fields") == nil {
		t.Fatalf("collection create: %s", coll.texts[0])
	}
	up := ok(t, cs, "pad_collection", map[string]any{"action": "update", "slug": "bugs", "layout": "balanced", "description": "Defects"})
	if up.str("settings", "default_view") != "board" || up.str("settings", "layout") != "balanced" {
		t.Errorf("settings update lost a key: %s", up.texts[0])
	}
	bug := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "bugs", "title": "Crash",
		"fields": map[string]any{"severity": json.Number("12345678901234567890")}})
	if !strings.Contains(bug.texts[0], `"severity":12345678901234567890`) {
		t.Errorf("number field: %s", bug.texts[0])
	}
	moved := ok(t, cs, "pad_item", map[string]any{"action": "move", "ref": bug.str("ref"), "target_collection": "tasks"})
	if moved.str("collection") != "tasks" || !strings.HasPrefix(moved.str("ref"), "TASK-") {
		t.Errorf("move: %s", moved.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "decide", "ref": moved.str("ref"), "decision": "Fix in 1.1", "rationale": "low impact"}); len(r.list("appended")) != 1 {
		t.Errorf("decide: %s", r.texts[0])
	}
	ok(t, cs, "pad_collection", map[string]any{"action": "delete", "slug": "bugs"})
	if r := ok(t, cs, "pad_collection", map[string]any{"action": "list-archived"}); r.str("collections", "0", "slug") != "bugs" {
		t.Errorf("list-archived: %s", r.texts[0])
	}
	ok(t, cs, "pad_collection", map[string]any{"action": "restore", "slug": "bugs"})
	ok(t, cs, "pad_role", map[string]any{"action": "create", "name": "Planner", "icon": "P"})
	if r := ok(t, cs, "pad_role", map[string]any{"action": "update", "slug": "planner", "new_slug": "planning", "description": "Thinks ahead"}); r.str("slug") != "planning" {
		t.Errorf("role update: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_role", map[string]any{"action": "list"}); r.str("roles", "0", "slug") != "planning" {
		t.Errorf("role list: %s", r.texts[0])
	}
	ok(t, cs, "pad_role", map[string]any{"action": "delete", "slug": "planning"})
	if r := ok(t, cs, "pad_workspace", map[string]any{"action": "members"}); r.get("members") == nil {
		t.Errorf("members: %s", r.texts[0])
	}
	e.do("DELETE", "/workspaces/"+ws, nil, nil)
	if r := ok(t, cs, "pad_workspace", map[string]any{"action": "deleted"}); r.str("workspaces", "0", "slug") != ws {
		t.Errorf("deleted: %s", r.texts[0])
	}
	ok(t, cs, "pad_workspace", map[string]any{"action": "restore", "slug": ws})
	if r := ok(t, cs, "pad_meta", map[string]any{"action": "tool-surface"}); len(r.list("tools")) != 11 {
		t.Errorf("tool-surface: %s", r.texts[0][:200])
	}
	if r := ok(t, cs, "pad_meta", map[string]any{"action": "server-info"}); r.str("name") != "padd" {
		t.Errorf("server-info: %s", r.texts[0])
	}
}

// Two agents, two `padctl mcp serve` processes, writing at once: every
// create lands, refs are distinct, and each item names its agent.
func TestConcurrentServers(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Shared")
	const perAgent = 15
	agents := []string{"agent-a", "agent-b"}
	var mu sync.Mutex
	byRef := map[string]string{}
	var wg sync.WaitGroup
	for _, name := range agents {
		cs := e.session(sessionOpts{name: name, noRoots: true})
		for i := 0; i < perAgent; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "pad_item", Arguments: map[string]any{
					"action": "create", "workspace": ws, "collection": "tasks", "title": fmt.Sprintf("%s task %d", name, i)}})
				if err != nil || res.IsError {
					t.Errorf("%s create %d: %v %v", name, i, err, res)
					return
				}
				m, _ := decodeJSON(res.Content[0].(*sdk.TextContent).Text)
				mu.Lock()
				defer mu.Unlock()
				ref := m["ref"].(string)
				if prev, dup := byRef[ref]; dup {
					t.Errorf("ref %s given to %s and %s", ref, prev, name)
				}
				byRef[ref] = name
			}()
		}
	}
	wg.Wait()
	if len(byRef) != perAgent*len(agents) {
		t.Fatalf("%d creates landed, want %d", len(byRef), perAgent*len(agents))
	}
	var items []api.Item
	e.do("GET", "/workspaces/"+ws+"/items?limit=1000", nil, &items)
	if len(items) != len(byRef) {
		t.Errorf("padd holds %d items, want %d", len(items), len(byRef))
	}
	for _, it := range items {
		if it.CreatedBy != "agent" || it.CreatedByName != byRef[it.Ref] {
			t.Errorf("%s created by %s %q, want agent %q", it.Ref, it.CreatedBy, it.CreatedByName, byRef[it.Ref])
		}
	}
}

// Where the workspace comes from when the call does not say.
func TestWorkspaceSources(t *testing.T) {
	e := newEnv(t)
	alpha, beta := e.workspace("Alpha"), e.workspace("Beta")
	linked := func(ws string) string {
		dir := t.TempDir()
		sub := filepath.Join(dir, "src", "deep")
		_ = os.MkdirAll(sub, 0o755)
		_ = os.WriteFile(filepath.Join(dir, ".pad.toml"), []byte(`workspace = "`+ws+`"`+"\n"), 0o644)
		return sub
	}
	which := func(cs *sdk.ClientSession) string {
		return ok(t, cs, "pad_collection", map[string]any{"action": "list"}).str("workspace")
	}
	// A .pad.toml written while the agent runs counts from its next call
	// or so (padd learns of it from a watch).
	eventually := func(t *testing.T, cs *sdk.ClientSession, want, what string) {
		t.Helper()
		testwait.UntilOK(t, func() error {
			if got := which(cs); got != want {
				return fmt.Errorf("%s: %s, want %s", what, got, want)
			}
			return nil
		})
	}
	for _, proto := range []string{"", protoLegacy} {
		t.Run("roots"+proto, func(t *testing.T) {
			root := linked(beta)
			cs := e.session(sessionOpts{proto: proto, roots: []string{t.TempDir(), root}, dir: linked(alpha)})
			if got := which(cs); got != beta {
				t.Errorf("roots: %s, want %s", got, beta)
			}
			// `padctl init` in the root while the agent runs, then undone.
			nearer := filepath.Join(root, ".pad.toml")
			_ = os.WriteFile(nearer, []byte(`workspace = "`+alpha+`"`+"\n"), 0o644)
			eventually(t, cs, alpha, "the root linked elsewhere while the session runs")
			_ = os.Remove(nearer)
			eventually(t, cs, beta, "the root's own .pad.toml removed")
			// pad_set_workspace beats the roots, the call's param beats both.
			ok(t, cs, "pad_set_workspace", map[string]any{"workspace": alpha})
			if got := which(cs); got != alpha {
				t.Errorf("after set: %s", got)
			}
			if got := ok(t, cs, "pad_collection", map[string]any{"action": "list", "workspace": beta}).str("workspace"); got != beta {
				t.Errorf("explicit: %s", got)
			}
		})
	}
	t.Run("cwd", func(t *testing.T) {
		dir := linked(alpha)
		cs := e.session(sessionOpts{noRoots: true, dir: dir})
		if got := which(cs); got != alpha {
			t.Errorf("cwd .pad.toml: %s, want %s", got, alpha)
		}
		// `padctl init` nearer the agent while it runs, then undone.
		nearer := filepath.Join(filepath.Dir(dir), ".pad.toml")
		_ = os.WriteFile(nearer, []byte(`workspace = "`+beta+`"`+"\n"), 0o644)
		eventually(t, cs, beta, "a nearer .pad.toml written while the session runs")
		_ = os.Remove(nearer)
		eventually(t, cs, alpha, "the nearer .pad.toml removed")
	})
	t.Run("PAD_WORKSPACE", func(t *testing.T) {
		cs := e.session(sessionOpts{noRoots: true, env: []string{"PAD_WORKSPACE=" + beta}})
		if got := which(cs); got != beta {
			t.Errorf("PAD_WORKSPACE: %s, want %s", got, beta)
		}
		// The environment beats a .pad.toml, the roots' and the working
		// directory's, as it does for padctl (issue 41).
		cs = e.session(sessionOpts{roots: []string{linked(alpha)}, dir: linked(alpha), env: []string{"PAD_WORKSPACE=" + beta}})
		if got := which(cs); got != beta {
			t.Errorf("PAD_WORKSPACE beside .pad.toml: %s, want %s", got, beta)
		}
	})
	t.Run("only", func(t *testing.T) {
		e1 := newEnv(t)
		only := e1.workspace("Only")
		if got := which(e1.session(sessionOpts{noRoots: true})); got != only {
			t.Errorf("only workspace: %s", got)
		}
	})
	t.Run("none", func(t *testing.T) {
		e0 := newEnv(t)
		r := refused(t, e0.session(sessionOpts{noRoots: true}), "pad_item", map[string]any{"action": "list"}, "no_workspace")
		if !strings.Contains(r.str("hint"), "pad_workspace create") {
			t.Errorf("no workspace at all: %s", r.texts[0])
		}
	})
}

// padctl mcp serve starts padd when none runs, and holds no lock: a
// second server works beside it.
func TestStartsPadd(t *testing.T) {
	e := &env{t: t, home: t.TempDir()}
	t.Cleanup(func() { stopPaddOf(t, e.home) })
	cs := e.session(sessionOpts{noRoots: true})
	ok(t, cs, "pad_workspace", map[string]any{"action": "create", "name": "Fresh"})
	cs2 := e.session(sessionOpts{noRoots: true, name: "second"})
	if r := ok(t, cs2, "pad_workspace", map[string]any{"action": "list"}); len(r.list("workspaces")) != 1 {
		t.Errorf("second server: %s", r.texts[0])
	}
}

// The items resource stops at 200 and says so; a list stops at its limit
// (default 50, at most 300) and says so.
func TestCaps(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Big")
	for i := 0; i < 201; i++ {
		e.do("POST", "/workspaces/"+ws+"/collections/ideas/items", api.ItemCreate{Title: fmt.Sprintf("idea %d", i)}, nil)
	}
	cs := e.session(sessionOpts{noRoots: true})
	c := readResource(t, cs, "pad://workspace/"+ws+"/items")
	if len(c) != 2 || c[1].MIMEType != "text/plain" || !strings.Contains(c[1].Text, "Truncated") {
		t.Fatalf("items resource: %d contents", len(c))
	}
	m, _ := decodeJSON(c[0].Text)
	if len(m["items"].([]any)) != 200 || m["has_more"] != true {
		t.Errorf("items resource holds %d, has_more %v", len(m["items"].([]any)), m["has_more"])
	}
	r := ok(t, cs, "pad_item", map[string]any{"action": "list"})
	if r.str("count") != "50" || r.get("has_more") != true || len(r.texts) != 2 {
		t.Errorf("default list: count %s has_more %v", r.str("count"), r.get("has_more"))
	}
	r = ok(t, cs, "pad_item", map[string]any{"action": "list", "limit": 1000})
	if r.str("limit") != "300" || r.str("count") != "201" || r.get("has_more") != false || len(r.texts) != 1 {
		t.Errorf("clamped list: limit %s count %s has_more %v", r.str("limit"), r.str("count"), r.get("has_more"))
	}
	// The bootstrap's dashboard arrays stop at five and count the rest.
	r = ok(t, cs, "pad_meta", map[string]any{"action": "bootstrap"})
	overflow := 0
	for _, k := range []string{"attention", "recent_activity", "active_items", "active_plans", "by_role"} {
		n := len(r.list("dashboard", k))
		var more int
		fmt.Sscan(r.str("dashboard", k+"_overflow_count"), &more)
		if n > 5 || (more > 0 && n != 5) {
			t.Errorf("bootstrap dashboard %s: %d rows, %d more", k, n, more)
		}
		overflow += more
	}
	if overflow == 0 {
		t.Errorf("201 items and no dashboard array overflowed: %s", r.texts[0])
	}
}

// Working an item and the project views, on the backends padd serves for
// them: leases, reminders, patches, the work brief, the ranked views,
// playbooks and the library.
func TestWorkingAnItem(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Work")
	cs := e.session(sessionOpts{name: "worker-one", noRoots: true})
	other := e.session(sessionOpts{name: "worker-two", noRoots: true})
	for _, s := range []*sdk.ClientSession{cs, other} {
		ok(t, s, "pad_set_workspace", map[string]any{"workspace": ws})
	}
	ref := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "Fix the parser",
		"content": "Step one.\nStep two.\n", "priority": "high"}).str("ref")

	// Leases: this session's claim is held under its own worker id, so a
	// second agent is refused lease_held; releasing frees it.
	claim := ok(t, cs, "pad_item", map[string]any{"action": "claim", "ref": ref})
	if claim.str("holder") != "worker-one" || !strings.HasPrefix(claim.str("worker_id"), "wk_") {
		t.Errorf("claim: %s", claim.texts[0])
	}
	held := refused(t, other, "pad_item", map[string]any{"action": "claim", "ref": ref}, "lease_held")
	if held.str("details", "holder") != "worker-one" {
		t.Errorf("lease_held details: %s", held.texts[0])
	}
	if r := ok(t, other, "pad_project", map[string]any{"action": "next"}); strings.Contains(r.texts[0], ref) {
		t.Errorf("next offers work another session holds: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "release", "ref": ref}); r.get("released") != true {
		t.Errorf("release: %s", r.texts[0])
	}
	if r := ok(t, other, "pad_project", map[string]any{"action": "next"}); r.str("items", "0", "item_ref") != ref {
		t.Errorf("next after release: %s", r.texts[0])
	}

	// Reminders.
	rem := ok(t, cs, "pad_item", map[string]any{"action": "remind", "ref": ref, "remind_at": "2030-01-02T09:00:00Z"})
	if r := ok(t, cs, "pad_item", map[string]any{"action": "reminders", "ref": ref}); r.str("reminders", "0", "id") != rem.str("id") {
		t.Errorf("reminders: %s", r.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "remind", "ref": ref, "remind_at": "2030-01-02"}, "validation_error")
	if r := ok(t, cs, "pad_item", map[string]any{"action": "unremind", "reminder_id": rem.str("id")}); r.get("removed") != true {
		t.Errorf("unremind: %s", r.texts[0])
	}

	// A patch edits the body in place; the brief carries the result.
	seq := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref}).str("item", "seq")
	p := ok(t, cs, "pad_item", map[string]any{"action": "patch", "ref": ref, "expected_seq": json.Number(seq),
		"edits": []any{map[string]any{"old": "Step two.", "new": "Step 2."}}})
	if !strings.Contains(p.str("diff"), "+Step 2.") || p.str("patch_id") == "" {
		t.Errorf("patch: %s", p.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "patch", "ref": ref, "edits": []any{map[string]any{"old": "nowhere", "new": "x"}}}, "patch_anchor_missing")
	if r := ok(t, cs, "pad_item", map[string]any{"action": "context", "ref": ref, "budget": 5000}); !strings.Contains(r.str("item", "body"), "Step 2.") {
		t.Errorf("context: %s", r.texts[0])
	}

	// Every project view answers.
	for _, view := range []string{"ready", "stale", "standup", "changelog", "report", "dashboard"} {
		ok(t, cs, "pad_project", map[string]any{"action": view})
	}
	// A report's window is the one asked for, or refused; never a week
	// in its place.
	if r := ok(t, cs, "pad_project", map[string]any{"action": "report", "window": "30d"}); r.str("window") != "month" {
		t.Errorf("report window 30d: %s", r.texts[0])
	}
	refused(t, cs, "pad_project", map[string]any{"action": "report", "window": "fortnight"}, "validation_failed")
	// next for a role: only the work of that role.
	ok(t, cs, "pad_role", map[string]any{"action": "create", "name": "Reviewer"})
	ok(t, cs, "pad_role", map[string]any{"action": "create", "name": "Planner"})
	ok(t, cs, "pad_item", map[string]any{"action": "update", "ref": ref, "role": "reviewer"})
	if r := ok(t, cs, "pad_project", map[string]any{"action": "next", "role": "reviewer"}); r.str("items", "0", "item_ref") != ref {
		t.Errorf("next for the reviewer: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_project", map[string]any{"action": "next", "role": "planner"}); strings.Contains(r.texts[0], ref) {
		t.Errorf("next for another role offers the reviewer's item: %s", r.texts[0])
	}

	// The library, and a playbook activated from it and run.
	lib := ok(t, cs, "pad_library", map[string]any{"action": "list", "type": "playbooks"})
	title := lib.str("playbooks", "0", "playbooks", "0", "title")
	if title == "" || lib.get("conventions") != nil {
		t.Fatalf("library list: %s", lib.texts[0])
	}
	if r := ok(t, cs, "pad_library", map[string]any{"action": "get", "title": title, "full": true}); r.str("type") != "playbook" || r.str("entry", "content") == "" {
		t.Errorf("library get: %s", r.texts[0])
	}
	refused(t, cs, "pad_library", map[string]any{"action": "get", "title": title, "type": "conventions"}, "not_found")
	act := ok(t, cs, "pad_library", map[string]any{"action": "activate", "title": title})
	pbRef := act.str("item", "ref")
	if pbRef == "" || act.str("library", "kind") != "playbook" {
		t.Fatalf("activate: %s", act.texts[0])
	}
	if r := ok(t, cs, "pad_playbook", map[string]any{"action": "list"}); len(r.list("playbooks")) != 1 {
		t.Errorf("playbook list: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_playbook", map[string]any{"action": "get", "ref": pbRef}); r.str("playbook", "ref") != pbRef || r.str("status") == "" {
		t.Errorf("playbook get: %s", r.texts[0])
	}
	run := callTool(t, cs, "pad_playbook", map[string]any{"action": "run", "ref": pbRef, "allow_draft": "true"})
	if run.isError || run.str("body") == "" {
		t.Errorf("playbook run: %s", run.texts[0])
	}
	refused(t, cs, "pad_playbook", map[string]any{"action": "run", "ref": pbRef, "allow_draft": "maybe"}, "validation_failed")
}

// rpc is a raw JSON-RPC line client over a server's real stdio, for the
// golden bytes (the go-sdk client decodes them into structs).
type rpc struct {
	t      testing.TB
	stdin  io.WriteCloser
	stdout *bufio.Reader
	cmd    *exec.Cmd
}

func startRaw(t *testing.T, home string) *rpc { return startRawB(t, home) }

func startRawB(t testing.TB, home string) *rpc {
	cmd := exec.Command(padctlBin, "mcp", "serve")
	cmd.Env = childEnv(home)
	cmd.Dir = t.TempDir()
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
		checkChild(t, "padctl mcp serve", stderr)
		// The server started padd to relay the session to, when none ran.
		stopPaddOf(t, home)
	})
	return &rpc{t: t, stdin: in, stdout: bufio.NewReaderSize(out, 1<<20), cmd: cmd}
}

func (r *rpc) call(id int, method string, params string) json.RawMessage {
	r.t.Helper()
	fmt.Fprintf(r.stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
	line, err := r.stdout.ReadBytes('\n')
	if err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	var env struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &env); err != nil || env.ID != id || env.Result == nil {
		r.t.Fatalf("%s: not a JSON-RPC result for id %d: %s", method, id, line)
	}
	return env.Result
}

// The initialize and tools/list bytes are the wire contract: pinned as
// golden files (regenerate with -update and review the diff as a
// contract change: does it owe a ToolSurfaceVersion bump?). Only the
// build's version string is normalised.
func TestGoldenWire(t *testing.T) {
	raw := startRaw(t, t.TempDir())
	init := raw.call(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}`)
	fmt.Fprintln(raw.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	tools := raw.call(2, "tools/list", `{}`)
	_ = raw.stdin.Close()
	// Nothing but protocol on stdout: nothing more after the answers.
	if rest, _ := io.ReadAll(raw.stdout); len(bytes.TrimSpace(rest)) != 0 {
		t.Errorf("stdout carried more than the protocol: %q", rest)
	}
	version := regexp.MustCompile(`("serverInfo":\{"name":"padd","version":)"[^"]*"`)
	init = version.ReplaceAll(init, []byte(`$1"<version>"`))
	for name, got := range map[string]json.RawMessage{"initialize.json": init, "tools_list.json": tools} {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, got, "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteByte('\n')
		path := filepath.Join("testdata", "golden", name)
		if *update {
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(pretty.Bytes(), want) {
			t.Errorf("%s differs from the golden file (run `go test ./mcpstdio -run TestGoldenWire -update` and review the diff as a contract change):\n%s",
				name, firstDiff(string(want), pretty.String()))
		}
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, wl, gl)
		}
	}
	return ""
}
