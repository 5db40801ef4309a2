package mcpstdio

// The catalog is data: Pad's tool names, action names, parameter names and
// JSON types, with what each action requires and accepts. Schemas
// (schema.go), call-time validation (validate.go), the tool-surface dump
// and the golden tools/list bytes are all generated from it, so a name
// lives in exactly one place.
//
// The base is the catalog a real Pad serves at ToolSurfaceVersion 0.25
// (testdata/pad-mcp-catalog-v0.25.txt, checked by TestCatalogCoversPad025),
// plus the later Pad additions an agent on padd needs, each marked with
// the Pad version that introduced it.

import (
	"fmt"

	"github.com/padd/padd/api"
)

// Param types, as Pad's schemas spell them.
const (
	tString  = "string"
	tBoolean = "boolean"
	tNumber  = "number"
	tObject  = "object"
	tArray   = "array"
)

// paramDef is one input parameter of a tool.
type paramDef struct {
	Name string
	Type string
	// Items is the element type of an array param.
	Items string
	Enum  []string
	// Integer marks a number param that must be a whole number (limits,
	// seqs); Pad's schemas still say "number".
	Integer bool
	Desc    string
}

// actionDef is one value of a tool's action enum.
type actionDef struct {
	Name     string
	ReadOnly bool
	// Required params must be present (and, for strings, not empty).
	Required []string
	// Optional params are the others this action reads. A declared param
	// that the action does not read is refused rather than ignored: an
	// agent that sends `status` to `get` believes it filtered something.
	Optional []string
	// OneOf lists groups of which exactly one must be given.
	OneOf [][]string
	// Exclusive lists pairs that cannot be given together.
	Exclusive [][2]string
	// NoWorkspace marks actions that do not work inside a workspace.
	NoWorkspace bool
	Desc        string
}

// hints are the MCP tool annotations, all stated explicitly: an absent
// openWorldHint reads as true, which no padd tool is.
type hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// toolDef is one tool of the catalog.
type toolDef struct {
	Name    string
	Title   string
	Desc    string
	Params  []paramDef
	Actions []actionDef // empty for pad_set_workspace, which has no action
	Hints   hints
}

// param finds a declared param.
func (t *toolDef) param(name string) (*paramDef, bool) {
	for i := range t.Params {
		if t.Params[i].Name == name {
			return &t.Params[i], true
		}
	}
	return nil, false
}

// action finds an action.
func (t *toolDef) action(name string) (*actionDef, bool) {
	for i := range t.Actions {
		if t.Actions[i].Name == name {
			return &t.Actions[i], true
		}
	}
	return nil, false
}

func (t *toolDef) actionNames() []string {
	out := make([]string, 0, len(t.Actions))
	for _, a := range t.Actions {
		out = append(out, a.Name)
	}
	return out
}

// accepts reports whether the action reads the param. workspace (and
// action itself) are accepted by every action.
func (a *actionDef) accepts(name string) bool {
	if name == "action" || name == "workspace" {
		return true
	}
	for _, n := range a.Required {
		if n == name {
			return true
		}
	}
	for _, n := range a.Optional {
		if n == name {
			return true
		}
	}
	for _, g := range a.OneOf {
		for _, n := range g {
			if n == name {
				return true
			}
		}
	}
	return false
}

// params lists what the action reads, for refusals that say what to send.
func (a *actionDef) params() []string {
	out := append([]string(nil), a.Required...)
	for _, g := range a.OneOf {
		out = append(out, g...)
	}
	out = append(out, a.Optional...)
	if !a.NoWorkspace {
		out = append(out, "workspace")
	}
	return out
}

// Shared param definitions, so one meaning has one wording.
var (
	pWorkspace = paramDef{Name: "workspace", Type: tString, Desc: "Workspace slug. Default: the one pad_set_workspace chose, else PAD_WORKSPACE, the nearest .pad.toml, or the only workspace."}
	pLimit     = paramDef{Name: "limit", Type: tNumber, Integer: true, Desc: "Most rows to return (lists: default 50, max 300)."}
	pOffset    = paramDef{Name: "offset", Type: tNumber, Integer: true, Desc: "Rows to skip."}
	pSort      = paramDef{Name: "sort", Type: tString, Desc: "Sort spec, e.g. updated_at:desc or priority,title."}
	pSlug      = paramDef{Name: "slug", Type: tString, Desc: "Slug of the workspace, collection or role the action names."}
	pName      = paramDef{Name: "name", Type: tString, Desc: "Display name."}
	pDesc      = paramDef{Name: "description", Type: tString, Desc: "Description."}
	pIcon      = paramDef{Name: "icon", Type: tString, Desc: "Icon (an emoji)."}
	pSortOrder = paramDef{Name: "sort_order", Type: tNumber, Integer: true, Desc: "Position among its siblings."}
	pCategory  = paramDef{Name: "category", Type: tString, Desc: "Category filter."}
	pFull      = paramDef{Name: "full", Type: tBoolean, Desc: "Return whole bodies instead of summaries."}
	pActor     = paramDef{Name: "actor", Type: tString, Desc: "Only entries by this kind of actor: user or agent."}
	pDays      = paramDef{Name: "days", Type: tNumber, Integer: true, Desc: "Look-back window in days."}
	pWorkerID  = paramDef{Name: "worker_id", Type: tString, Desc: "Worker id a claim answered with; pass it back to resume that lease."}
	pRole      = paramDef{Name: "role", Type: tString, Desc: "Agent role slug."}
	pQuery     = paramDef{Name: "query", Type: tString, Desc: fmt.Sprintf("Words (all must match; a typo is retried when nothing matches), \"phrase\", prefix*, -word or NOT word, and filters status:, priority:, tag:, in:<collection>, is:<state>, ref:, title: (a plain word already searches the content). At most %d characters and %d terms; at most %d hits a call.", api.SearchMaxQueryChars, api.SearchMaxQueryTerms, searchMax)}
)

func actionParam(desc string) paramDef {
	return paramDef{Name: "action", Type: tString, Desc: desc}
}

// catalog is the whole tool surface, in tools/list order (by name, as
// mcp-go sorts it).
var catalog = []*toolDef{
	{
		Name:  "pad_attachment",
		Title: "Pad attachments",
		Desc:  "Read attachment metadata of a workspace: list uploads (filter by item, category, collection) or show one. Uploading and downloading stay in the CLI.",
		Hints: hints{ReadOnly: true, Idempotent: true},
		Params: []paramDef{
			actionParam("list or show."),
			{Name: "attached", Type: tBoolean, Desc: "Only attachments linked to an item."},
			{Name: "attachment_id", Type: tString, Desc: "Attachment id (show)."},
			pCategory,
			{Name: "collection", Type: tString, Desc: "Only attachments of items in this collection."},
			{Name: "item", Type: tString, Desc: "Only attachments of this item (ref)."},
			pLimit, pOffset, pSort,
			{Name: "unattached", Type: tBoolean, Desc: "Only uploads not linked to any item."},
			{Name: "variant", Type: tString, Desc: "Image variant to describe, e.g. thumb-md."},
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "list", ReadOnly: true, Optional: []string{"item", "category", "collection", "attached", "unattached", "sort", "limit", "offset"},
				Exclusive: [][2]string{{"attached", "unattached"}}},
			{Name: "show", ReadOnly: true, Required: []string{"attachment_id"}, Optional: []string{"variant"}},
		},
	},
	{
		Name:  "pad_collection",
		Title: "Pad collections",
		Desc:  "Collections are typed containers of items (Tasks, Ideas, Plans, Docs, custom). list shows each collection's schema and counts; create and update take a field DSL (fields: \"status:select:open,done;due:date\") or a schema object.",
		// Destructive: delete archives a collection and a schema update can
		// orphan values items hold.
		Hints: hints{Destructive: true},
		Params: []paramDef{
			actionParam("What to do with collections."),
			{Name: "board_group_by", Type: tString, Desc: "Select field the board groups by (its options decide done)."},
			{Name: "default_view", Type: tString, Enum: []string{"list", "board", "table"}, Desc: "View the collection opens in."},
			pDesc,
			{Name: "fields", Type: tString, Desc: "Field DSL: key:type[:options], separated by ';'. Types: text, number, select, multi_select, date, checkbox, url, relation:<collection>, multi_relation:<collection>, ..."},
			pIcon,
			{Name: "layout", Type: tString, Enum: []string{"fields-primary", "content-primary", "balanced"}, Desc: "Item page layout."},
			pName,
			{Name: "prefix", Type: tString, Desc: "Ref prefix (TASK in TASK-5)."},
			{Name: "schema", Type: tObject, Desc: "Schema object {fields:[{key,type,options,...}]}, instead of the DSL."},
			pSlug,
			pSortOrder,
			// v0.81
			{Name: "tracks_work", Type: tBoolean, Desc: "false makes the collection reference material: its items never count as open work."},
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "create", Required: []string{"name"}, Optional: []string{"slug", "prefix", "icon", "description", "fields", "schema", "default_view", "layout", "board_group_by", "sort_order", "tracks_work"},
				Exclusive: [][2]string{{"fields", "schema"}}},
			{Name: "delete", Required: []string{"slug"}, Desc: "archive; restore brings it back"},
			{Name: "list", ReadOnly: true},
			// v0.72
			{Name: "list-archived", ReadOnly: true},
			{Name: "restore", Required: []string{"slug"}},
			{Name: "update", Required: []string{"slug"}, Optional: []string{"name", "prefix", "icon", "description", "fields", "schema", "default_view", "layout", "board_group_by", "sort_order", "tracks_work"},
				Exclusive: [][2]string{{"fields", "schema"}}},
		},
	},
	{
		Name:  "pad_item",
		Title: "Pad items",
		Desc:  "Items are the unit of work: tasks, ideas, plans, docs and custom collections. Address one by ref (TASK-5), slug or id. Lists return summaries (with seq, without content); pass full for bodies. To change an item safely, read its seq and send it back as expected_seq.",
		// Destructive: delete, unlink, delete-comment and full-content
		// updates remove what was there.
		Hints: hints{Destructive: true},
		Params: []paramDef{
			actionParam("What to do."),
			// v0.37
			{Name: "agent", Type: tBoolean, Desc: "Answer the compact agent projection (get): what working the item needs, without ids and bookkeeping; the newest comments only."},
			{Name: "all", Type: tBoolean, Desc: "Include finished items (list shows open ones by default)."},
			{Name: "artifact", Type: tString, Desc: "Portable item artifact text (import)."},
			{Name: "assign", Type: tString, Desc: "User to assign."},
			// v0.96
			{Name: "budget", Type: tNumber, Integer: true, Desc: "Size budget of a context brief, in characters."},
			pCategory,
			{Name: "clear_agent_role", Type: tBoolean, Desc: "Remove the agent role (update)."},
			{Name: "clear_assigned_user", Type: tBoolean, Desc: "Remove the assignee (update)."},
			{Name: "clear_parent", Type: tBoolean, Desc: "Detach from the parent (update)."},
			{Name: "collection", Type: tString, Desc: "Collection slug (create; list filter)."},
			{Name: "comment", Type: tString, Desc: "Why this change was made (update; kept in history)."},
			// v0.57
			{Name: "comment_id", Type: tString, Desc: "Comment id (edit-comment, delete-comment)."},
			{Name: "content", Type: tString, Desc: "Markdown body. On update it replaces the body: send expected_seq with it."},
			{Name: "decision", Type: tString, Desc: "The decision (decide)."},
			{Name: "details", Type: tString, Desc: "Longer text of an implementation note (note)."},
			// v0.87
			{Name: "edits", Type: tArray, Items: tObject, Desc: "Exact-text body edits [{old, new, line_hint?}] (patch)."},
			// v0.34
			{Name: "expected_seq", Type: tNumber, Integer: true, Desc: "The seq you last read; the write is refused with update_conflict if the item changed since."},
			{Name: "expected_updated_at", Type: tString, Desc: "The updated_at you last read (weaker than expected_seq)."},
			{Name: "field", Type: tArray, Items: tString, Desc: "Field entries as \"key=value\", typed by the collection's schema."},
			{Name: "fields", Type: tObject, Desc: "Field values as a JSON object; values keep their JSON types. On update only the keys given change."},
			{Name: "force", Type: tBoolean, Desc: "Close an item although it has open children (update); move although values are lost (move)."},
			pFull,
			{Name: "group_by", Type: tString, Desc: "Group a list by this field."},
			// v0.38
			{Name: "holder", Type: tString, Desc: "Lease holder label (claim, release)."},
			// v0.96
			{Name: "intent", Type: tString, Desc: "What you are about to do with the item (context)."},
			pLimit,
			// v0.87
			{Name: "lines", Type: tBoolean, Desc: "Answer the body as numbered lines [{n, text}] instead of content (get), with the item's seq: the line numbers a patch's line_hint and patch_anchor_ambiguous use."},
			{Name: "link_type", Type: tString, Enum: []string{"blocks", "blocked-by", "supersedes", "implements", "split-from"}, Desc: "Relationship type (link, unlink)."},
			{Name: "message", Type: tString, Desc: "Comment text (comment, edit-comment)."},
			pOffset,
			// v0.91
			{Name: "op_key", Type: tString, Desc: "Idempotency key: a retry with the same key answers the first attempt's result instead of writing again."},
			// v0.39
			{Name: "overwrite_pending_edits", Type: tBoolean, Desc: "Replace content although unsaved edits are pending (update)."},
			{Name: "parent", Type: tString, Desc: "Parent item ref (create, update; list filter)."},
			// v0.95
			{Name: "pr_branch", Type: tString, Desc: "Branch of the pull request (link-pr)."},
			{Name: "pr_number", Type: tNumber, Integer: true, Desc: "Pull request number, 1 or more (link-pr)."},
			{Name: "pr_repo", Type: tString, Desc: "Repository of the pull request, owner/name (link-pr)."},
			{Name: "pr_state", Type: tString, Desc: "State of the pull request, e.g. OPEN, MERGED, CLOSED (link-pr)."},
			{Name: "pr_title", Type: tString, Desc: "Title of the pull request (link-pr)."},
			{Name: "pr_url", Type: tString, Desc: "Absolute http(s) URL of the pull request (link-pr). padd fetches nothing from it."},
			{Name: "priority", Type: tString, Desc: "Priority value (create, update, bulk-update; list filter)."},
			// C2 of the inventory: Pad's search as an action of pad_item too
			pQuery,
			{Name: "rationale", Type: tString, Desc: "Why (decide)."},
			{Name: "ref", Type: tString, Desc: "Item ref (TASK-5), slug or id."},
			{Name: "refs", Type: tArray, Items: tString, Desc: "Item refs (bulk-update)."},
			// v0.28
			{Name: "remind_at", Type: tString, Desc: "RFC 3339 instant to be reminded at (remind)."},
			{Name: "reminder_id", Type: tString, Desc: "Reminder id (ack-reminder, unremind)."},
			// v0.86
			{Name: "replace", Type: tBoolean, Desc: "Overwrite content deliberately without a version token (update)."},
			{Name: "reply_to", Type: tString, Desc: "Comment id to reply to (comment)."},
			pRole,
			pSort,
			{Name: "status", Type: tString, Desc: "Status value (create, update, bulk-update; list filter)."},
			{Name: "summary", Type: tString, Desc: "One-line implementation note (note)."},
			{Name: "tags", Type: tArray, Items: tString, Desc: "Tags (create, update)."},
			{Name: "target", Type: tString, Desc: "The other item's ref (link, unlink)."},
			{Name: "target_collection", Type: tString, Desc: "Destination collection slug (move)."},
			{Name: "title", Type: tString, Desc: "Title (create, update)."},
			// v0.89
			{Name: "undo", Type: tString, Desc: "patch_id of a patch to invert (patch)."},
			// v0.15
			{Name: "unparented", Type: tBoolean, Desc: "Only items without a parent (list)."},
			// v0.97
			pWorkerID,
			pWorkspace,
		},
		Actions: []actionDef{
			// v0.28
			{Name: "ack-reminder", Required: []string{"reminder_id"}},
			{Name: "backlinks", ReadOnly: true, Required: []string{"ref"}, Optional: []string{"limit"}},
			{Name: "bulk-update", Required: []string{"refs"}, Optional: []string{"status", "priority", "fields"}},
			// v0.38
			{Name: "claim", Required: []string{"ref"}, Optional: []string{"holder", "worker_id"}},
			{Name: "comment", Required: []string{"ref", "message"}, Optional: []string{"reply_to", "op_key"}},
			// v0.96
			{Name: "context", ReadOnly: true, Required: []string{"ref"}, Optional: []string{"intent", "role", "budget"}},
			{Name: "create", Required: []string{"collection", "title"}, Optional: []string{"content", "fields", "field", "status", "priority", "parent", "assign", "role", "tags", "op_key"}},
			{Name: "decide", Required: []string{"ref", "decision"}, Optional: []string{"rationale", "op_key"}},
			{Name: "delete", Required: []string{"ref"}},
			// v0.57
			{Name: "delete-comment", Required: []string{"ref", "comment_id"}},
			{Name: "deps", ReadOnly: true, Required: []string{"ref"}},
			{Name: "edit-comment", Required: []string{"ref", "comment_id", "message"}},
			{Name: "export", ReadOnly: true, Required: []string{"ref"}},
			{Name: "get", ReadOnly: true, Required: []string{"ref"}, Optional: []string{"lines", "agent"}},
			{Name: "history", ReadOnly: true, Required: []string{"ref"}, Optional: []string{"limit", "full"}},
			{Name: "import", Required: []string{"artifact"}},
			{Name: "link", Required: []string{"ref", "target", "link_type"}},
			// v0.95
			{Name: "link-pr", Required: []string{"ref", "pr_number", "pr_url"}, Optional: []string{"pr_title", "pr_state", "pr_branch", "pr_repo"}},
			{Name: "list", ReadOnly: true, Optional: []string{"collection", "status", "priority", "parent", "unparented", "role", "assign", "category", "field", "all", "full", "limit", "offset", "sort", "group_by"},
				Exclusive: [][2]string{{"parent", "unparented"}}},
			{Name: "list-comments", ReadOnly: true, Required: []string{"ref"}},
			{Name: "move", Required: []string{"ref", "target_collection"}, Optional: []string{"fields", "field", "force"}},
			{Name: "note", Required: []string{"ref", "summary"}, Optional: []string{"details", "op_key"}},
			// v0.87, v0.89, v0.90
			{Name: "patch", Required: []string{"ref"}, OneOf: [][]string{{"edits", "undo"}}, Optional: []string{"expected_seq", "op_key"}},
			{Name: "release", Required: []string{"ref"}, Optional: []string{"holder", "worker_id"}},
			// v0.28, v0.94
			{Name: "remind", Required: []string{"ref", "remind_at"}},
			{Name: "reminders", ReadOnly: true, Required: []string{"ref"}},
			{Name: "restore", Required: []string{"ref"}},
			// ≤v0.55: pad_search query as an action of pad_item
			{Name: "search", ReadOnly: true, Required: []string{"query"}, Optional: []string{"collection", "status", "priority", "sort", "limit", "offset"}},
			{Name: "star", Required: []string{"ref"}},
			{Name: "starred", ReadOnly: true, Optional: []string{"all", "limit"}},
			{Name: "unlink", Required: []string{"ref", "target", "link_type"}},
			{Name: "unlink-pr", Required: []string{"ref"}},
			{Name: "unremind", Required: []string{"reminder_id"}},
			{Name: "unstar", Required: []string{"ref"}},
			{Name: "update", Required: []string{"ref"}, Optional: []string{"title", "content", "fields", "field", "status", "priority", "parent", "clear_parent", "assign", "clear_assigned_user", "role", "clear_agent_role", "tags", "comment", "expected_seq", "expected_updated_at", "replace", "overwrite_pending_edits", "force"},
				Exclusive: [][2]string{{"parent", "clear_parent"}, {"assign", "clear_assigned_user"}, {"role", "clear_agent_role"}, {"replace", "expected_seq"}, {"replace", "expected_updated_at"}}},
		},
	},
	{
		Name:  "pad_library",
		Title: "Pad library",
		Desc:  "Browse the library of conventions and playbooks Pad ships, and activate one into the workspace.",
		// activate creates an item; nothing is removed, and nothing leaves
		// the machine.
		Hints: hints{},
		Params: []paramDef{
			actionParam("list, get or activate."),
			pCategory,
			pFull,
			{Name: "title", Type: tString, Desc: "Library entry title."},
			{Name: "type", Type: tString, Enum: []string{"conventions", "playbooks"}, Desc: "Which half of the library."},
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "activate", Required: []string{"title"}, Optional: []string{"type"}},
			{Name: "get", ReadOnly: true, Required: []string{"title"}, Optional: []string{"type", "full"}, NoWorkspace: true},
			{Name: "list", ReadOnly: true, Optional: []string{"type", "category"}, NoWorkspace: true},
		},
	},
	{
		Name:  "pad_meta",
		Title: "Pad meta",
		Desc:  "About this server: version (the tool-surface contract), server-info, tool-surface (every tool, action and schema), and bootstrap (one-shot overview of a workspace).",
		Hints: hints{ReadOnly: true, Idempotent: true},
		Params: []paramDef{
			actionParam("Which document."),
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "bootstrap", ReadOnly: true},
			{Name: "server-info", ReadOnly: true, NoWorkspace: true},
			{Name: "tool-surface", ReadOnly: true, NoWorkspace: true},
			{Name: "version", ReadOnly: true, NoWorkspace: true},
		},
	},
	{
		Name:  "pad_playbook",
		Title: "Pad playbooks",
		Desc:  "Playbooks are the workspace's written procedures. list and get read them; run binds arguments and returns the steps for you to carry out (it executes nothing); match would ask an LLM which playbook a request calls for, and padd has none to ask.",
		// Pad marks this tool openWorld because of match, which asks an LLM
		// provider; padd has no provider, its match answers
		// decision_provider_unavailable, and nothing leaves the machine.
		Hints: hints{ReadOnly: true, Idempotent: true},
		Params: []paramDef{
			actionParam("list, get, run or match."),
			// Pad's v0.25 wire types allow_draft as a string ("true").
			{Name: "allow_draft", Type: tString, Desc: "\"true\" runs a playbook that is not active yet."},
			{Name: "args", Type: tObject, Desc: "Arguments by name (run)."},
			{Name: "raw_args", Type: tArray, Items: tString, Desc: "CLI-style argument tokens (run)."},
			{Name: "ref", Type: tString, Desc: "Playbook invocation slug, slug or ref."},
			// v0.41
			{Name: "text", Type: tString, Desc: "What the user asked for, to find the playbook it calls for (match)."},
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "get", ReadOnly: true, Required: []string{"ref"}},
			{Name: "list", ReadOnly: true},
			// v0.41: padd has no LLM decision provider, so it answers
			// decision_provider_unavailable, as Pad does without one.
			{Name: "match", ReadOnly: true, Required: []string{"text"}},
			{Name: "run", ReadOnly: true, Required: []string{"ref"}, Optional: []string{"args", "raw_args", "allow_draft"}},
		},
	},
	{
		Name:  "pad_project",
		Title: "Pad project views",
		Desc:  "Views across the workspace: dashboard, next (what to work on), ready, stale, standup, changelog, report, and activity (what others changed recently).",
		Hints: hints{ReadOnly: true, Idempotent: true},
		Params: []paramDef{
			actionParam("Which view."),
			pActor,
			{Name: "collections", Type: tString, Desc: "Comma-separated collection slugs (report)."},
			pDays,
			pLimit,
			{Name: "parent", Type: tString, Desc: "Only work under this plan (changelog)."},
			{Name: "since", Type: tString, Desc: "Start date or RFC 3339 time (activity, changelog)."},
			{Name: "window", Type: tString, Desc: "Report window: day, week (the default), 2wk or month; 1d, 7d, 14d and 30d read as those."},
			// v0.97
			pWorkerID,
			{Name: "role", Type: tString, Desc: "Only work for this agent role, by slug (next)."},
			pWorkspace,
		},
		Actions: []actionDef{
			// v0.12
			{Name: "activity", ReadOnly: true, Optional: []string{"limit", "actor", "since"}},
			{Name: "changelog", ReadOnly: true, Optional: []string{"since", "days", "parent", "limit"}},
			{Name: "dashboard", ReadOnly: true},
			{Name: "next", ReadOnly: true, Optional: []string{"worker_id", "role"}},
			// v0.13
			{Name: "ready", ReadOnly: true, Optional: []string{"worker_id", "limit"}},
			{Name: "report", ReadOnly: true, Optional: []string{"collections", "window"}},
			{Name: "stale", ReadOnly: true, Optional: []string{"days", "limit"}},
			{Name: "standup", ReadOnly: true, Optional: []string{"days"}},
		},
	},
	{
		Name:  "pad_role",
		Title: "Pad agent roles",
		Desc:  "Agent roles (Planner, Implementer, Reviewer, ...) sort work by the kind of thinking it needs. Assign one to an item with pad_item update role.",
		// Destructive: delete removes a role from every item holding it.
		Hints: hints{Destructive: true},
		Params: []paramDef{
			actionParam("What to do with roles."),
			pDesc,
			pIcon,
			pName,
			{Name: "new_slug", Type: tString, Desc: "New slug (update)."},
			pSlug,
			pSortOrder,
			{Name: "tools", Type: tString, Desc: "Tools the role is expected to use (free text)."},
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "create", Required: []string{"name"}, Optional: []string{"slug", "icon", "description", "tools", "sort_order"}},
			{Name: "delete", Required: []string{"slug"}},
			{Name: "list", ReadOnly: true},
			{Name: "update", Required: []string{"slug"}, Optional: []string{"name", "new_slug", "icon", "description", "tools", "sort_order"}},
		},
	},
	{
		Name:  "pad_search",
		Title: "Pad search",
		Desc:  "Full-text search over the items of a workspace, across collections. Returns summaries with a snippet and the total.",
		Hints: hints{ReadOnly: true, Idempotent: true},
		Params: []paramDef{
			actionParam("query."),
			{Name: "collection", Type: tString, Desc: "Only this collection."},
			{Name: "limit", Type: tNumber, Integer: true, Desc: fmt.Sprintf("Most hits to return (default %d, max %d).", listDefault, searchMax)}, pOffset,
			{Name: "priority", Type: tString, Desc: "Only this priority (comma-separate several)."},
			pQuery,
			{Name: "sort", Type: tString, Desc: "relevance (default), created_at, updated_at or title."},
			{Name: "status", Type: tString, Desc: "Only this status (comma-separate several)."},
			pWorkspace,
		},
		Actions: []actionDef{
			{Name: "query", ReadOnly: true, Required: []string{"query"}, Optional: []string{"collection", "status", "priority", "sort", "limit", "offset"}},
		},
	},
	{
		Name:  "pad_set_workspace",
		Title: "Choose the workspace",
		Desc:  "Make a workspace the default for the rest of this session. The answer carries the workspace's bootstrap (collections and schemas, roles, a dashboard), so call it first.",
		// It changes this session's default only, never data.
		Hints: hints{Idempotent: true},
		Params: []paramDef{
			{Name: "workspace", Type: tString, Desc: "Workspace slug."},
		},
	},
	{
		Name:  "pad_workspace",
		Title: "Pad workspaces",
		Desc:  "Workspaces hold collections and items. list, create (from a template), members, storage (what its attachments take), audit-log (every workspace's activity, newest first; workspace narrows it), and deleted/restore for soft-deleted ones.",
		// Pad marks this tool destructive and openWorld because invite sends
		// email. padd is single-user and local: invite and claim answer
		// not_implemented, nothing here deletes, and nothing leaves the
		// machine, so the hints are relaxed to what is true here.
		Hints: hints{},
		Params: []paramDef{
			actionParam("What to do with workspaces."),
			{Name: "action_filter", Type: tString, Desc: "Only audit entries of this action (audit-log)."},
			pActor,
			{Name: "code", Type: tString, Desc: "Claim code (claim)."},
			pDays,
			{Name: "email", Type: tString, Desc: "Who to invite (invite)."},
			pLimit,
			pName,
			{Name: "role", Type: tString, Enum: []string{"owner", "editor", "viewer"}, Desc: "Member role (invite)."},
			pSlug,
			{Name: "template", Type: tString, Desc: "Template of a new workspace (startup, scrum, product, ...)."},
			pWorkspace,
		},
		Actions: []actionDef{
			// Pad's audit log reads every workspace; workspace narrows it.
			{Name: "audit-log", ReadOnly: true, Optional: []string{"action_filter", "actor", "days", "limit"}, NoWorkspace: true},
			{Name: "claim", Required: []string{"code"}, NoWorkspace: true},
			{Name: "create", Required: []string{"name"}, Optional: []string{"slug", "template"}, NoWorkspace: true},
			// v0.8
			{Name: "deleted", ReadOnly: true, NoWorkspace: true},
			{Name: "invite", Required: []string{"email"}, Optional: []string{"role"}},
			{Name: "list", ReadOnly: true, NoWorkspace: true},
			{Name: "members", ReadOnly: true},
			{Name: "restore", Required: []string{"slug"}, NoWorkspace: true},
			{Name: "storage", ReadOnly: true},
		},
	},
}

// toolByName finds a tool of the catalog.
func toolByName(name string) (*toolDef, bool) {
	for _, t := range catalog {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}
