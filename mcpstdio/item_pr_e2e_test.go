package mcpstdio_test

import (
	"strings"
	"testing"
)

// pad_item link-pr and unlink-pr (ITM-17): the link is the metadata the
// agent gives, answered as code_context by get and the write; unlink-pr
// removes it and refuses an item without one; a bad link is refused
// with padd's coded answer before anything is written.
func TestItemPullRequestLink(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("PR Links")
	cs := e.session(sessionOpts{noRoots: true})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})
	ref := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "Fix the parser"}).str("ref")

	l := ok(t, cs, "pad_item", map[string]any{"action": "link-pr", "ref": ref, "pr_number": 7,
		"pr_url": "https://github.com/o/r/pull/7", "pr_title": "Parser fix", "pr_state": "OPEN", "pr_branch": "fix/parser", "pr_repo": "o/r"})
	if l.str("code_context", "pull_request", "number") != "7" || l.str("code_context", "branch") != "fix/parser" ||
		l.str("fields", "github_pr", "url") != "https://github.com/o/r/pull/7" {
		t.Fatalf("link-pr: %s", l.texts[0])
	}
	g := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref})
	if g.str("item", "code_context", "pull_request", "title") != "Parser fix" || g.str("item", "code_context", "repo") != "o/r" {
		t.Errorf("get after link-pr: %s", g.texts[0])
	}
	if a := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref, "agent": true}); a.str("code_context", "pull_request", "state") != "OPEN" {
		t.Errorf("agent projection after link-pr: %s", a.texts[0])
	}
	if it := e.item(ws, ref); it.CodeContext == nil || it.CodeContext.PullRequest.URL != "https://github.com/o/r/pull/7" {
		t.Errorf("REST after link-pr: %+v", it.CodeContext)
	}

	for _, args := range []map[string]any{
		{"pr_number": 0, "pr_url": "https://github.com/o/r/pull/7"},
		{"pr_number": 7},
		{"pr_url": "https://github.com/o/r/pull/7"},
		{"pr_number": 7, "pr_url": "https://github.com/o/r/pull/7", "target": "TASK-9"},
	} {
		args["action"], args["ref"] = "link-pr", ref
		refused(t, cs, "pad_item", args, "validation_failed")
	}
	bad := refused(t, cs, "pad_item", map[string]any{"action": "link-pr", "ref": ref, "pr_number": 7, "pr_url": "github.com/o/r/pull/7"}, "validation_error")
	if !strings.Contains(bad.str("message"), "url") {
		t.Errorf("a relative url: %s", bad.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "update", "ref": ref, "fields": map[string]any{"github_pr": map[string]any{"number": 8}}}, "validation_error")
	if g2 := ok(t, cs, "pad_item", map[string]any{"action": "get", "ref": ref}); g2.str("item", "seq") != g.str("item", "seq") {
		t.Errorf("a refused link wrote: seq %s -> %s", g.str("item", "seq"), g2.str("item", "seq"))
	}

	u := ok(t, cs, "pad_item", map[string]any{"action": "unlink-pr", "ref": ref})
	if u.get("code_context") != nil || u.get("fields", "github_pr") != nil {
		t.Errorf("unlink-pr: %s", u.texts[0])
	}
	none := refused(t, cs, "pad_item", map[string]any{"action": "unlink-pr", "ref": ref}, "not_found")
	if none.str("details", "reason") != "no_pr_link" {
		t.Errorf("unlink-pr without a link: %s", none.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "unlink-pr", "ref": "TASK-999"}, "not_found")
}
