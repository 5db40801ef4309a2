//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/internal/testwait"
)

// TestE2EWorkCommands runs every command of search, the index, the
// project views, item work, playbooks, the library, roles and the
// bootstrap as a user would (the real padctl binary against the real
// padd it starts), over a small workspace: a plan with tasks, a
// blocking link, a lease, reminders and a convention from the library.
// It checks the facts each --format json answer must carry, not bytes
// (the golden files pin the layout).
func TestE2EWorkCommands(t *testing.T) {
	home := t.TempDir()
	stopPaddOf(t, home)
	dir := t.TempDir()
	type obj = map[string]any
	run := func(args ...string) result {
		t.Helper()
		return ok(t, home, dir, append(args, "--format", "json")...)
	}
	get := func(args ...string) obj {
		t.Helper()
		return decode[obj](t, run(args...))
	}
	list := func(args ...string) []obj {
		t.Helper()
		return decode[[]obj](t, run(args...))
	}
	refOf := func(v obj) string {
		t.Helper()
		ref, _ := v["ref"].(string)
		if ref == "" {
			t.Fatalf("no ref in %v", v)
		}
		return ref
	}

	// The workspace: a plan with three tasks (one done), a blocking link,
	// a mention, and a convention from the library.
	run("init", "--name", "Work")
	plan := refOf(get("item", "create", "plans", "Q1 hardening"))
	fix := refOf(get("item", "create", "tasks", "Fix the login loop", "--parent", plan, "--priority", "critical",
		"--content", "Steps:\n1. open the app\n2. log in with a stale cookie\n3. see the loop"))
	ship := refOf(get("item", "create", "tasks", "Ship the release", "--parent", plan))
	docs := refOf(get("item", "create", "tasks", "Write the docs", "--parent", plan, "--status", "done"))
	idea := refOf(get("item", "create", "ideas", "Dark mode", "--content", "Like [["+ship+"]] but darker"))
	run("item", "link", fix, "blocks", ship)
	conv := get("library", "activate", "convention/commit-messages-say-why")
	if lib, _ := conv["library"].(obj); lib["key"] != "convention/commit-messages-say-why" || lib["collection"] != "conventions" {
		t.Errorf("library activate: %v", conv)
	}
	convRef := refOf(conv)

	// Search, by both names; hits carry decoded items.
	for _, cmd := range [][]string{{"search"}, {"item", "search"}} {
		res := get(append(cmd, "stale", "cookie")...)
		hits, _ := res["results"].([]any)
		if len(hits) == 0 || res["total"].(float64) < 1 {
			t.Fatalf("%v stale cookie: %v", cmd, res)
		}
		hit := hits[0].(obj)
		item := hit["item"].(obj)
		if item["ref"] != fix || !strings.Contains(hit["snippet"].(string), "<mark>") {
			t.Errorf("%v: first hit %v", cmd, hit)
		}
		if _, isObj := item["fields"].(obj); !isObj {
			t.Errorf("%v: a hit's fields are not decoded: %v", cmd, item["fields"])
		}
	}
	if res := get("search", "loop", "--all-workspaces", "--collection", "tasks"); res["total"].(float64) < 1 {
		t.Errorf("search --all-workspaces: %v", res)
	}
	if r := ok(t, home, dir, "search", "logn", "--format", "json"); !strings.Contains(r.stderr, "note: ") {
		t.Errorf("a fuzzy search says so on stderr: %s", r)
	}

	// The index.
	if st := get("index", "status"); st["state"] != "ready" || st["docs"].(float64) < 5 {
		t.Errorf("index status: %v", st)
	}
	if st := get("index", "rebuild", "--wait"); st["state"] != "ready" {
		t.Errorf("index rebuild --wait: %v", st)
	}

	// Leases: padctl keeps one worker id for the user, so a second run
	// renews its own claim instead of being refused.
	claim := get("item", "claim", fix, "--ttl", "30m")
	b, err := os.ReadFile(filepath.Join(home, WorkerFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(home, WorkerFile)); fi == nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is not 0600: %v", WorkerFile, fi)
	}
	if claim["worker_id"] != strings.TrimSpace(string(b)) || claim["renewed"] != false {
		t.Errorf("claim: %v (worker file %q)", claim, b)
	}
	if again := get("item", "claim", fix); again["renewed"] != true || again["worker_id"] != claim["worker_id"] {
		t.Errorf("second claim is not a renewal by the same worker: %v", again)
	}
	assertFailure(t, padctl(t, home, dir, "", "item", "claim", fix, "--worker-id", "wk_0123456789abcdef0123456789abcdef"),
		ExitError, "lease_held")

	// Reminders: one due at once (padd fires it), one in the future.
	due := get("item", "remind", ship, "2020-01-01T09:00:00Z")
	later := get("item", "remind", fix, "2030-01-01T09:00:00Z")
	if later["state"] != "armed" || later["item_ref"] != fix {
		t.Errorf("remind: %v", later)
	}
	moved := get("item", "remind", fix, "2031-01-01T09:00:00Z", "--rearm", later["id"].(string))
	if moved["remind_at"] != "2031-01-01T09:00:00Z" {
		t.Errorf("remind --rearm: %v", moved)
	}
	testwait.Until(t, "the reminder due in 2020 to fire", func() bool {
		return slices.ContainsFunc(list("item", "reminders", ship), func(r obj) bool { return r["id"] == due["id"] && r["state"] == "fired" })
	})

	// The project views.
	next := get("project", "next")
	if items, _ := next["items"].([]any); len(items) == 0 || items[0].(obj)["item_ref"] != fix {
		t.Errorf("next does not lead with the claimed task: %v", next)
	}
	if rem, _ := next["reminders"].([]any); len(rem) != 1 || rem[0].(obj)["id"] != due["id"] {
		t.Errorf("next lists the fired reminder: %v", next["reminders"])
	}
	if ready := get("project", "ready", "--limit", "5"); len(ready["items"].([]any)) == 0 {
		t.Errorf("ready: %v", ready)
	}
	if ack := get("item", "ack-reminder", due["id"].(string)); ack["state"] != "acknowledged" {
		t.Errorf("ack-reminder: %v", ack)
	}
	dash := get("project", "dashboard")
	if att, _ := dash["attention"].([]any); len(att) == 0 || att[0].(obj)["item_ref"] != ship || att[0].(obj)["type"] != "blocked" {
		t.Errorf("dashboard attention: %v", dash["attention"])
	}
	if recent, _ := dash["recent_activity"].([]any); len(recent) == 0 {
		t.Errorf("dashboard has no recent activity")
	} else if _, isObj := recent[0].(obj)["metadata"].(obj); !isObj {
		t.Errorf("dashboard activity metadata is not decoded: %v", recent[0])
	}
	if stale := get("project", "stale"); stale["totals"].(obj)["blocked"] != float64(1) {
		t.Errorf("stale: %v", stale)
	}
	// Work an agent finishes, for standup, changelog, report and catch-up.
	tidy := refOf(get("item", "create", "tasks", "Tidy the logs"))
	_, bin := binaries(t)
	r := runBin(t, bin, testEnv(home, "PAD_AGENT=claude"), dir, "", "item", "update", tidy, "--status", "done")
	if r.code != 0 {
		t.Fatalf("agent update: %s", r)
	}
	if up := get("project", "standup", "--days", "3"); up["done"].(obj)["total"] != float64(1) || up["blockers"].(obj)["total"] != float64(1) {
		t.Errorf("standup: %v", up)
	}
	if cl := get("project", "changelog", "--days", "7"); cl["total"] != float64(1) || cl["items"].([]any)[0].(obj)["ref"] != tidy {
		t.Errorf("changelog: %v", cl)
	}
	// The report's window ends at the current whole second, exclusive:
	// what happened within this second is counted from the next one on,
	// so this sleep makes time pass to the next whole second (it does not
	// stand for something happening).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	rep := get("project", "report", "--window", "week", "--include-items")
	if rep["totals"].(obj)["completed"] != float64(1) || rep["completed_items"].([]any)[0].(obj)["ref"] != tidy {
		t.Errorf("report: %v", rep)
	}
	act := list("project", "activity", "--limit", "3")
	if len(act) != 3 || act[0]["item_ref"] != tidy || act[0]["actor"] != "agent" {
		t.Errorf("activity: %v", act)
	}
	if _, isObj := act[0]["metadata"].(obj); !isObj {
		t.Errorf("activity metadata is not decoded: %v", act[0])
	}
	if mine := list("project", "activity", ship, "--actor", "user"); len(mine) == 0 || mine[0]["item_ref"] != ship {
		t.Errorf("activity of one item: %v", mine)
	}
	cu := get("project", "catch-up")
	if g, _ := cu["agents"].(obj)["groups"].([]any); len(g) != 1 || g[0].(obj)["agent"] != "claude" {
		t.Errorf("catch-up agents: %v", cu["agents"])
	}
	if seen := get("project", "seen"); seen["seen_at"] == nil {
		t.Errorf("seen: %v", seen)
	}
	if cu := get("project", "catch-up"); cu["window"].(obj)["has_cursor"] != true {
		t.Errorf("catch-up after seen: %v", cu["window"])
	}

	// Notes, decisions, patches and the brief.
	if n := get("item", "note", fix, "reproduced on Safari", "--details", "stale cookie only"); len(n["fields"].(obj)["implementation_notes"].([]any)) != 1 {
		t.Errorf("note: %v", n["fields"])
	}
	if d := get("item", "decide", fix, "refresh server-side", "--rationale", "the client cannot"); len(d["fields"].(obj)["decision_log"].([]any)) != 1 {
		t.Errorf("decide: %v", d["fields"])
	}
	p := get("item", "patch", fix, "--old", "see the loop", "--new", "see the redirect loop")
	if diff, _ := p["diff"].(string); !strings.Contains(diff, "-3. see the loop") || !strings.Contains(diff, "+3. see the redirect loop") {
		t.Errorf("patch diff: %v", p)
	}
	if u := get("item", "patch", fix, "--undo", p["patch_id"].(string)); u["undo_of"] != p["patch_id"] {
		t.Errorf("patch --undo: %v", u)
	}
	assertFailure(t, padctl(t, home, dir, "", "item", "patch", fix, "--old", "a"), ExitUsage, "unpaired_edit")
	brief := get("item", "context", fix, "--intent", "commit")
	if c, _ := brief["conventions"].([]any); len(c) != 1 || c[0].(obj)["ref"] != convRef {
		t.Errorf("context conventions: %v", brief["conventions"])
	}
	if bl := brief["deps"].(obj)["blocks"].([]any); len(bl) != 1 || bl[0].(obj)["ref"] != ship {
		t.Errorf("context deps: %v", brief["deps"])
	}
	if h := list("item", "history", fix); len(h) < 3 {
		t.Errorf("history: %d versions", len(h))
	}

	// The reads around an item.
	if bl := list("item", "backlinks", ship); len(bl) != 1 || bl[0]["source_ref"] != idea {
		t.Errorf("backlinks: %v", bl)
	}
	if d := get("item", "deps", ship); len(d["blocked_by"].([]any)) != 1 || d["blocked_by"].([]any)[0].(obj)["ref"] != fix {
		t.Errorf("deps: %v", d)
	}
	kids := list("item", "children", plan)
	if len(kids) != 3 || kids[0]["parent_ref"] != plan {
		t.Errorf("children: %v", kids)
	}
	if pr := get("item", "progress", plan); pr["total"] != float64(3) || pr["done"] != float64(1) {
		t.Errorf("progress: %v", pr)
	}
	if s := get("item", "star", docs); s["starred"] != true {
		t.Errorf("star: %v", s)
	}
	if st := list("item", "starred"); len(st) != 0 {
		t.Errorf("starred without --all lists a done item: %v", st)
	}
	if st := list("item", "starred", "--all"); len(st) != 1 || st[0]["ref"] != docs {
		t.Errorf("starred --all: %v", st)
	}
	if s := get("item", "unstar", docs); s["starred"] != false {
		t.Errorf("unstar: %v", s)
	}
	assertFailure(t, padctl(t, home, dir, "", "item", "unstar", docs), ExitError, "not_found")
	if w := get("item", "watch", fix); w["item_ref"] != fix || w["predicate"] != nil {
		t.Errorf("watch: %v", w)
	}
	if w := get("item", "watch", ship, "--until", "status=done"); w["predicate"] != "status=done" {
		t.Errorf("watch --until: %v", w)
	}
	assertFailure(t, padctl(t, home, dir, "", "item", "watch", ship, "--until", "done"), ExitUsage, "bad_field")
	if ws := list("watch", "list"); len(ws) != 2 || ws[0]["item_ref"] != ship || ws[1]["item_ref"] != fix {
		t.Errorf("watch list: %v", ws)
	}
	if u := get("item", "unwatch", ship); u["ref"] != ship || u["watched"] != false {
		t.Errorf("unwatch: %v", u)
	}
	assertFailure(t, padctl(t, home, dir, "", "item", "unwatch", ship), ExitError, "not_found")
	if ws := list("watch", "list"); len(ws) != 1 {
		t.Errorf("watch list after the unwatch: %v", ws)
	}
	if rel := get("item", "release", fix); rel["released"] != true {
		t.Errorf("release: %v", rel)
	}
	if gone := get("item", "unremind", later["id"].(string)); gone["removed"] != true || len(list("item", "reminders", fix)) != 0 {
		t.Errorf("unremind: %v", gone)
	}

	// Playbooks, the library, roles, the bootstrap.
	lib := get("library", "list", "--type", "conventions", "--category", "git")
	if _, has := lib["playbooks"]; has || len(lib["conventions"].([]any)) != 1 {
		t.Errorf("library list --type conventions --category git: %v", lib)
	}
	if e := get("library", "show", "Commit messages say what and why"); e["type"] != "convention" {
		t.Errorf("library show by title: %v", e)
	}
	if e := get("library", "show", "playbook/plan"); e["type"] != "playbook" {
		t.Errorf("library show by key: %v", e)
	}
	pb := refOf(get("library", "activate", "Plan an initiative"))
	if pbs := list("playbook", "list"); len(pbs) != 1 || pbs[0]["ref"] != pb || pbs[0]["invocation_slug"] != "plan" {
		t.Errorf("playbook list: %v", pbs)
	}
	if show := get("playbook", "show", "plan"); show["status"] != "active" || show["ref"] != pb {
		t.Errorf("playbook show: %v", show)
	}
	ran := get("playbook", "run", "plan", "dark mode", "--arg", "horizon=week")
	if ba := ran["bound_args"].(obj); ba["topic"] != "dark mode" || ba["horizon"] != "week" {
		t.Errorf("playbook run: %v", ran)
	}
	if r := ok(t, home, dir, "playbook", "run", "plan", "--format", "json"); !strings.Contains(r.stderr, "warning: required argument topic") {
		t.Errorf("an unbound argument is warned about: %s", r)
	}
	role := get("role", "create", "Implementer", "--icon", "🔨")
	if role["slug"] != "implementer" || len(list("role", "list")) != 1 {
		t.Errorf("role create: %v", role)
	}
	if up := get("role", "update", "implementer", "--description", "Writes the code"); up["description"] != "Writes the code" {
		t.Errorf("role update: %v", up)
	}
	boot := get("bootstrap")
	if boot["workspace"].(obj)["slug"] != "work" || len(boot["playbooks"].([]any)) != 1 || len(boot["roles"].([]any)) != 1 || boot["dashboard"] == nil {
		t.Errorf("bootstrap: %v", boot)
	}
	if idx := boot["convention_index"].([]any); len(idx) != 1 || idx[0].(obj)["ref"] != convRef {
		t.Errorf("bootstrap convention index: %v", idx)
	}
	if del := get("role", "delete", "implementer"); del["deleted"] != true || len(list("role", "list")) != 0 {
		t.Errorf("role delete: %v", del)
	}
}
