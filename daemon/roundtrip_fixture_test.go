package daemon

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/url"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bundle/bundletest"
	"github.com/padd/padd/model"
)

// The round trip's fixture: one workspace holding every kind of thing a
// workspace can hold, and the lists that keep it so (roundtrip_kinds_test.go).

// fillEverything gives workspace w one of every kind of thing a
// workspace holds, through padd's own doors: a described workspace made
// from a template; agent roles; a collection whose schema declares every
// field type with every member a field can have (options, terminal
// options, a default, required, computed, a suffix, a pattern, a unique
// scope, a relation default naming an item) and settings with every
// member, whose prefix was changed; items with a value of every type,
// relations naming items before and after them, a cleared field that
// has a default, parents and children, pinned, sorted, tagged,
// assigned, with a role, made by an agent; an edited body (versions);
// comments, a reply, an edited comment, an agent's comment, a reply
// whose comment was deleted; a link of every type; an implementation
// note and a decision; a convention and a playbook activated from the
// library; a pull request link; an attachment on an item and named in its body, and one not
// attached; an archived item and an archived collection.
//
// What no door of padd writes yet comes in through an import of w's own
// bundle with it added (injectNoDoorYet), as it would from Pad or a
// newer padd: that workspace, "all", is the fixture. Its slug is the
// answer.
func fillEverything(h *harness) string {
	h.t.Helper()
	h.mustJSON("PATCH", wsPath(""), map[string]any{"description": "everything a workspace holds"}, 200, nil)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Planner", "description": "plans", "icon": "🧭", "tools": "search, plan"}, 201, nil)
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Builder", "sort_order": 2}, 201, nil)
	h.mustJSON("PUT", wsPath("/report/layout"), map[string]any{"hidden_cards": []string{"wip"}, "default_window": "month",
		"default_collections": []string{"tasks", "ideas"}}, 200, nil)

	a := h.task("Alpha <&>", "content", "first body\nline two", "tags", []string{"x", "y"},
		"fields", map[string]any{"priority": "high", "status": "in-progress"}, "role", "planner",
		"assigned_user_id", "00000000-0000-4000-8000-0000000000aa")
	h.clock.advance(1e9)
	b := h.task("Beta", "parent", a.Ref, "pinned", true)
	g := h.task("Gamma", "content", "gamma", "sort_order", 5, "parent", b.Ref)
	var byAgent api.Item
	h.mustJSON("POST", wsPath("/collections/tasks/items"), map[string]any{"title": "By an agent", "source": "mcp"}, 201, &byAgent, "X-Pad-Agent", "robot")
	gone := h.task("Gone")
	h.mustJSON("DELETE", wsPath("/items/"+gone.Ref), nil, 204, nil)
	h.clock.advance(1e9)
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{"content": "second body", "comment": "why"}, 200, nil)

	// A collection of every field type.
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Specs", "prefix": "SPEC", "icon": "📐", "description": "specs",
		"schema": map[string]any{"fields": []any{
			map[string]any{"key": "status", "label": "Status", "type": "select", "options": []string{"draft", "open", "done"},
				"terminal_options": []string{"done"}, "default": "draft", "required": true},
			map[string]any{"key": "points", "label": "Points", "type": "number", "suffix": "pts"},
			map[string]any{"key": "due", "label": "Due", "type": "date"},
			map[string]any{"key": "labels", "label": "Labels", "type": "multi_select", "options": []string{"a", "b", "c"}},
			map[string]any{"key": "see", "label": "See", "type": "relation", "collection": "specs"},
			map[string]any{"key": "also", "label": "Also", "type": "multi_relation", "collection": "specs"},
			map[string]any{"key": "ok", "label": "OK", "type": "checkbox"},
			map[string]any{"key": "home", "label": "Home", "type": "url"},
			map[string]any{"key": "data", "label": "Data", "type": "json"},
			map[string]any{"key": "code", "label": "Code", "type": "text", "pattern": "^[A-Z]+$", "unique_scope": "workspace_collection"},
			map[string]any{"key": "score", "label": "Score", "type": "number", "computed": true},
			map[string]any{"key": "size", "label": "Size", "type": "select", "options": []string{"s", "m", "l"}, "default": "m"},
			map[string]any{"key": "owner", "label": "Owner", "type": "relation", "collection": "tasks"},
		}},
		"settings": map[string]any{"layout": "board", "default_view": "board", "board_group_by": "status", "list_sort_by": "due",
			"list_group_by": "labels", "content_template": "## Why\n", "tracks_work": true,
			"quick_actions": []any{map[string]any{"label": "Review", "prompt": "review it", "scope": "item", "icon": "🔍"}}},
	}, 201, nil)
	s1 := h.create("specs", map[string]any{"title": "Spec one", "fields": map[string]any{"status": "open", "points": 3.5,
		"due": "2026-12-24", "labels": []string{"a", "b"}, "ok": true, "home": "https://example.com/x",
		"data": map[string]any{"k": []any{1, "two"}}, "code": "ABC", "owner": a.ID}})
	s2 := h.create("specs", map[string]any{"title": "Spec two", "fields": map[string]any{"status": "done", "see": s1.ID, "also": []string{s1.ID}}})
	// Spec one names Spec two, which the export holds after it.
	h.mustJSON("PATCH", wsPath("/items/"+s1.Ref), map[string]any{"fields_patch": map[string]any{"see": s2.ID}}, 200, nil)
	// A relation default naming an item; Spec three lacks the fields
	// their defaults would fill.
	var specs api.Collection
	h.mustJSON("GET", wsPath("/collections/specs"), nil, 200, &specs)
	var schema map[string]any
	if err := json.Unmarshal([]byte(specs.Schema), &schema); err != nil {
		h.t.Fatal(err)
	}
	fields := schema["fields"].([]any)
	fields[len(fields)-1].(map[string]any)["default"] = b.ID
	h.mustJSON("PATCH", wsPath("/collections/specs"), map[string]any{"schema": schema}, 200, nil)
	s3 := h.create("specs", map[string]any{"title": "Spec three"})
	h.mustJSON("PATCH", wsPath("/items/"+s3.Ref), map[string]any{"fields_patch": map[string]any{"owner": nil, "size": nil}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/collections/specs"), map[string]any{"prefix": "SP"}, 200, nil)

	// Comments.
	var c, d, r api.Comment
	h.mustJSON("POST", wsPath("/items/"+a.Ref+"/comments"), map[string]any{"body": "a comment"}, 201, &c)
	h.mustJSON("POST", wsPath("/comments/"+c.ID+"/replies"), map[string]any{"body": "a reply"}, 201, nil)
	h.mustJSON("POST", wsPath("/comments/"+c.ID+"/reactions"), map[string]any{"emoji": "👍"}, 201, nil)
	h.mustJSON("POST", wsPath("/comments/"+c.ID+"/reactions"), map[string]any{"emoji": "🎉"}, 201, nil, "X-Pad-Agent", "robot")
	h.mustJSON("POST", wsPath("/items/"+b.Ref+"/comments"), map[string]any{"body": "on beta"}, 201, nil, "X-Pad-Agent", "robot")
	h.mustJSON("POST", wsPath("/items/"+g.Ref+"/comments"), map[string]any{"body": "said first"}, 201, &d)
	h.clock.advance(1e9)
	h.mustJSON("PATCH", wsPath("/comments/"+d.ID), map[string]any{"body": "said again"}, 200, nil)
	h.mustJSON("POST", wsPath("/items/"+g.Ref+"/comments"), map[string]any{"body": "soon gone"}, 201, &d)
	h.mustJSON("POST", wsPath("/comments/"+d.ID+"/replies"), map[string]any{"body": "outlives it"}, 201, &r)
	h.mustJSON("DELETE", wsPath("/comments/"+d.ID), nil, 204, nil)

	// A link of every type padd's API takes.
	for _, l := range []struct{ from, typ, to string }{
		{a.Ref, "blocks", b.Ref}, {g.Ref, "blocked-by", a.Ref}, {s2.Ref, "supersedes", s1.Ref},
		{s1.Ref, "implements", a.Ref}, {b.Ref, "split-from", a.Ref}, {g.Ref, "related", s1.Ref}, {s1.Ref, "wiki-link", s2.Ref},
	} {
		h.mustJSON("POST", wsPath("/items/"+l.from+"/links"), map[string]any{"target_id": l.to, "link_type": l.typ}, 201, nil)
	}

	// Reserved metadata: a note, a decision, a convention's copy.
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{
		"append_implementation_note": map[string]any{"summary": "did it", "details": "this way"}}, 200, nil, "X-Pad-Agent", "robot")
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{
		"append_decision": map[string]any{"decision": "keep it", "rationale": "it works"}}, 200, nil)
	h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"title": "Commit messages say what and why"}, 201, nil)
	h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"key": "playbook/triage"}, 201, nil)
	// A pull request link (ITM-17).
	h.mustJSON("PATCH", wsPath("/items/"+a.Ref), map[string]any{"github_pr": map[string]any{"number": 12,
		"url": "https://example.com/o/r/pull/12", "title": "Fix it", "state": "open", "branch": "fix", "repo": "o/r",
		"updated_at": "2026-12-01T10:00:00Z"}}, 200, nil)

	// Attachments: one on Spec one and named in its body, one loose.
	shot := h.upload(pngBytes(h.t, 3, 2), "shot.png", s1.Ref, 201)
	h.mustJSON("PATCH", wsPath("/items/"+s1.Ref), map[string]any{"content": "see ![shot](pad-attachment:" + shot.ID + ")"}, 200, nil)
	h.upload([]byte("a log line\n"), "run.log", "", 201)

	// An archived collection of its own.
	h.mustJSON("POST", wsPath("/collections"), map[string]any{"name": "Notes", "prefix": "NOTE",
		"schema": map[string]any{"fields": []any{map[string]any{"key": "kind", "label": "Kind", "type": "select", "options": []string{"a", "b"}}}}}, 201, nil)
	h.create("notes", map[string]any{"title": "A note", "fields": map[string]any{"kind": "b"}})
	h.mustJSON("DELETE", wsPath("/collections/notes"), nil, 204, nil)

	// Saved views (one reordered, one of the archived collection) and
	// the workspace's context.
	var view api.SavedView
	h.mustJSON("POST", wsPath("/collections/tasks/views"), map[string]any{"name": "Open work", "view_type": "board",
		"config": map[string]any{"filters": []any{map[string]any{"field": "status", "op": "eq", "value": "open"}}, "sort": "priority:desc"}}, 201, &view)
	h.mustJSON("PATCH", wsPath("/collections/tasks/views/"+view.ID), map[string]any{"sort_order": 2}, 200, nil)
	h.mustJSON("POST", wsPath("/collections/specs/views"), map[string]any{"name": "Table", "slug": "spec-table", "view_type": "table",
		"config": `{"columns":["title","points"]}`}, 201, nil)
	h.mustJSON("PATCH", wsPath(""), map[string]any{"context": map[string]any{
		"repositories": []any{map[string]any{"name": "app", "role": "primary", "path": ".", "repo": "o/app"}},
		"paths":        map[string]any{"root": ".", "docs_repo": "../docs", "web": "web", "server": "srv", "skills": "skills", "config": "cfg", "install_root": "/opt"},
		"commands":     map[string]any{"setup": "make setup", "build": "make", "test": "make test", "lint": "vet", "format": "fmt", "dev": "dev", "start": "run", "web": "npm run dev"},
		"stack":        map[string]any{"languages": []string{"go"}, "frameworks": []string{"none"}, "package_managers": []string{"go"}},
		"deployment":   map[string]any{"mode": "local", "base_url": "http://127.0.0.1:7777", "host": "laptop"},
		"assumptions":  []string{"one user"},
	}}, 200, nil)

	bundle := h.mustJSON("GET", wsPath("/export?format=tar"), nil, 200, nil)
	injected := injectNoDoorYet(h.t, bundle.body, a.ID, b.ID, g.ID)
	var res api.ImportResult
	h.mustJSON("POST", "/api/v1/workspaces/import?name="+url.QueryEscape("All"), string(injected),
		201, &res, "Content-Type", api.BundleContentType)
	if len(res.ImportSummary.NotModelled) != 0 || res.ImportSummary.Imported != res.ImportSummary.InBundle {
		h.t.Fatalf("the fixture's import left something out: %+v", res.ImportSummary)
	}
	// That import is a round trip too: what went in is what comes out.
	all := h.mustJSON("GET", "/api/v1/workspaces/"+res.Slug+"/export?format=tar", nil, 200, nil)
	if in, out := normalizeBundle(h.t, injected), normalizeBundle(h.t, all.body); in != out {
		h.t.Fatalf("the fixture's import differs from its bundle:\n%s", lineDiff(in, out))
	}
	return res.Slug
}

// injectNoDoorYet is bundle with what no door of padd's API writes yet
// added to its pad-export.json, as Pad or a newer padd would export it:
// a place on the roles board (its PUTs are not built) for a, and a link of a type
// padd does not know (a newer Pad's) from g to b. When a door comes,
// the fixture makes it through the door instead.
func injectNoDoorYet(t *testing.T, bundle []byte, a, b, g string) []byte {
	t.Helper()
	entries := bundleEntries(t, bundle)
	var e api.WorkspaceExport
	if err := json.Unmarshal([]byte(entries[0].Body), &e); err != nil {
		t.Fatal(err)
	}
	for i := range e.Items {
		it := &e.Items[i]
		if it.ID == a {
			it.RoleSortOrder = 3
		}
	}
	e.ItemLinks = append(e.ItemLinks, api.ItemLinkExport{ID: "00000000-0000-4000-8000-0000000000f1", SourceID: g, TargetID: b,
		LinkType: "duplicates", CreatedBy: "user", CreatedByName: model.LocalUserName, CreatedAt: "2026-12-01T10:00:00Z"})
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	entries[0].Body = string(raw)
	return bundletest.Make(t, entries...)
}

// bundleEntries reads a bundle's regular entries in order.
func bundleEntries(t *testing.T, bundle []byte) []bundletest.Entry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(bundle))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []bundletest.Entry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bundletest.Entry{Name: hdr.Name, Body: string(body)})
	}
}
