package daemon

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// The library, playbooks, bootstrap, context and patch routes over
// HTTP, against a real store.

func TestLibraryRoutes(t *testing.T) {
	h := newHarness(t)
	var convs struct {
		Categories []api.ConventionCategory `json:"categories"`
	}
	h.mustJSON("GET", "/api/v1/convention-library", nil, 200, &convs)
	n := 0
	for _, c := range convs.Categories {
		n += len(c.Conventions)
	}
	if n < 8 {
		t.Fatalf("%d conventions", n)
	}
	h.mustJSON("GET", "/api/v1/convention-library?category=git", nil, 200, &convs)
	if len(convs.Categories) != 1 || convs.Categories[0].Name != "git" {
		t.Fatalf("category filter: %+v", convs.Categories)
	}
	h.mustJSON("GET", "/api/v1/convention-library?category=nope", nil, 200, &convs)
	if len(convs.Categories) != 0 {
		t.Fatal("an unknown category is an empty list")
	}
	var pbs struct {
		Categories []api.PlaybookCategory `json:"categories"`
	}
	h.mustJSON("GET", "/api/v1/playbook-library?summary=true", nil, 200, &pbs)
	for _, c := range pbs.Categories {
		for _, p := range c.Playbooks {
			if p.Content != "" || p.Summary == "" || p.Key == "" {
				t.Fatalf("summary mode entry %+v", p)
			}
		}
	}
	var entry struct {
		Type       string                 `json:"type"`
		Convention *api.LibraryConvention `json:"convention"`
		Playbook   *api.LibraryPlaybook   `json:"playbook"`
	}
	h.mustJSON("GET", "/api/v1/library/entry?title=Ask+before+destructive+operations", nil, 200, &entry)
	if entry.Type != "convention" || entry.Convention == nil || entry.Convention.Enforcement != "must" {
		t.Fatalf("entry %+v", entry)
	}
	h.mustJSON("GET", "/api/v1/library/entry?key=playbook/ship", nil, 200, &entry)
	if entry.Type != "playbook" || entry.Playbook.InvocationSlug != "ship" || entry.Playbook.Content == "" {
		t.Fatalf("entry %+v", entry)
	}
	h.wantError("GET", "/api/v1/library/entry", nil, 400, model.CodeBadRequest)
	e := h.wantError("GET", "/api/v1/library/entry?title=Haiku", nil, 404, model.CodeNotFound)
	if e.Message != "not found in convention or playbook library: Haiku" {
		t.Fatalf("message %q", e.Message)
	}
}

type activated struct {
	api.Item
	Warnings *struct {
		OptionsAdded map[string][]string `json:"options_added"`
	} `json:"warnings"`
	Library struct {
		Key        string `json:"key"`
		Kind       string `json:"kind"`
		SeedHash   string `json:"seed_hash"`
		Collection string `json:"collection"`
	} `json:"library"`
}

func TestLibraryActivateRoute(t *testing.T) {
	h := newHarness(t)
	var a activated
	r := h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"title": "Commit messages say what and why"}, 201, &a,
		"Idempotency-Key", "act-1")
	if a.Ref != "CONVE-1" || a.CollectionSlug != "conventions" || a.Library.Key != "convention/commit-messages-say-why" ||
		a.Library.Kind != "convention" || len(a.Library.SeedHash) != 64 || a.Warnings != nil || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("activated %+v", a)
	}
	fields, _ := a.FieldMap()
	if conv, ok := fields[model.FieldConvention].(map[string]any); !ok || conv["category"] != "git" {
		t.Fatalf("no convention copy: %v", fields)
	}
	var again activated
	r = h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"title": "Commit messages say what and why"}, 201, &again,
		"Idempotency-Key", "act-1")
	if again.ID != a.ID || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay gave %s (header %q)", again.Ref, r.header.Get("Idempotent-Replayed"))
	}
	h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"key": "playbook/triage"}, 201, &a)
	if a.CollectionSlug != "playbooks" || a.Library.Kind != "playbook" {
		t.Fatalf("playbook activated %+v", a)
	}
	h.wantError("POST", wsPath("/library/activate"), map[string]any{"key": "playbook/triage"}, 409, model.CodeConflict)
	e := h.wantError("POST", wsPath("/library/activate"), map[string]any{"title": "Haiku"}, 404, model.CodeNotFound)
	if e.Message != "not found in convention or playbook library: Haiku" {
		t.Fatalf("message %q", e.Message)
	}
	h.wantError("POST", wsPath("/library/activate"), map[string]any{}, 400, model.CodeBadRequest)

	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Empty", "slug": "empty", "template": "blank"}, 201, nil)
	h.mustJSON("POST", "/api/v1/workspaces/empty/library/activate", map[string]any{"key": "convention/commit-messages-say-why"}, 201, &a)
	if a.Warnings == nil || !slices.Equal(a.Warnings.OptionsAdded["trigger"], []string{"on-commit"}) {
		t.Fatalf("options_added %+v", a.Warnings)
	}
}

// playbookRun is the run answer as a client reads it.
type playbookRun struct {
	Ref       string           `json:"ref"`
	Status    string           `json:"status"`
	Body      string           `json:"body"`
	Arguments []api.ArgSpec    `json:"arguments"`
	BoundArgs map[string]any   `json:"bound_args"`
	Unbound   []api.UnboundArg `json:"unbound"`
}

func TestPlaybookRoutes(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"key": "playbook/decompose"}, 201, nil)
	draft := h.create("playbooks", map[string]any{"title": "Half written"})

	var list []model.PlaybookMeta
	h.mustJSON("GET", wsPath("/playbooks"), nil, 200, &list)
	if len(list) != 2 || list[0].InvocationSlug != "decompose" || !list[0].HasArguments || list[1].Status != "draft" {
		t.Fatalf("list %+v", list)
	}
	var pb struct {
		api.Item
		Status string `json:"status"`
	}
	for _, ref := range []string{"decompose", list[0].Ref, list[0].Slug} {
		h.mustJSON("GET", wsPath("/playbooks/"+ref), nil, 200, &pb)
		if pb.Ref != list[0].Ref || pb.Status != "active" || pb.Content == "" {
			t.Fatalf("get %s: %+v", ref, pb)
		}
	}
	task := h.task("Not a playbook")
	h.wantError("GET", wsPath("/playbooks/"+task.Ref), nil, 404, model.CodeNotFound)

	var run playbookRun
	h.mustJSON("POST", wsPath("/playbooks/decompose/run"), map[string]any{"raw_args": []string{"PLAN-4", "dry-run"}}, 200, &run)
	if run.BoundArgs["plan"] != "PLAN-4" || run.BoundArgs["dry-run"] != true || len(run.Unbound) != 0 || run.Body == "" || len(run.Arguments) != 2 {
		t.Fatalf("run %+v", run)
	}
	h.mustJSON("POST", wsPath("/playbooks/decompose/run"), nil, 200, &run)
	if len(run.Unbound) != 1 || run.Unbound[0].Name != "plan" || !run.Unbound[0].Spec.Required {
		t.Fatalf("unbound %+v", run.Unbound)
	}
	h.mustJSON("POST", wsPath("/playbooks/decompose/run"), map[string]any{"args": map[string]any{"plan": "PLAN-9"}, "raw_args": []string{"PLAN-4"}}, 200, &run)
	if run.BoundArgs["plan"] != "PLAN-9" {
		t.Fatalf("args must win: %v", run.BoundArgs)
	}
	h.wantError("POST", wsPath("/playbooks/decompose/run"), map[string]any{"raw_args": []string{"colour=red"}}, 400, model.CodeBadRequest)
	e := h.wantError("POST", wsPath("/playbooks/"+draft.Ref+"/run"), nil, 409, model.CodePlaybookNotActive)
	if e.Details["status"] != "draft" {
		t.Fatalf("details %v", e.Details)
	}
	h.mustJSON("POST", wsPath("/playbooks/"+draft.Ref+"/run"), map[string]any{"allow_draft": true}, 200, &run)
	if run.Status != "draft" || run.Arguments == nil {
		t.Fatalf("draft run %+v", run)
	}
	h.wantError("POST", wsPath("/playbooks/match"), map[string]any{"text": "ship it"}, 404, model.CodeDecisionProviderUnavailable)
	h.wantError("POST", "/api/v1/workspaces/nope/playbooks/match", map[string]any{"text": "x"}, 404, model.CodeNotFound)
	// Bad text is refused before the missing provider is named (PB-03).
	for _, body := range []any{nil, map[string]any{}, map[string]any{"text": "  "}, `{"text": 5}`, `{"text": `} {
		h.wantError("POST", wsPath("/playbooks/match"), body, 400, model.CodeBadRequest)
	}
	long := h.wantError("POST", wsPath("/playbooks/match"), map[string]any{"text": strings.Repeat("x", model.LimitMatchText.Max+1)}, 400, model.CodeValidation)
	if long.Details["field"] != "text" || long.Details["limit"] != float64(model.LimitMatchText.Max) {
		t.Errorf("an over-long match text: %v", long.Details)
	}
}

func TestPatchRoute(t *testing.T) {
	h := newHarness(t)
	doc := h.create("docs", map[string]any{"title": "Spec", "content": "# Spec\n\nTODO: intro\nTODO: body\n"})
	var p model.PatchReply
	h.mustJSON("POST", wsPath("/items/"+doc.Ref+"/patch"), map[string]any{
		"edits": []map[string]any{{"old": "TODO: intro", "new": "Intro."}}, "expected_seq": doc.Seq}, 200, &p)
	if p.Ref != doc.Ref || p.Rebased || p.PatchID == "" || p.VersionID == "" || !strings.Contains(p.Diff, "+Intro.") {
		t.Fatalf("patch %+v", p)
	}
	// The same expected_seq again: applies, rebased over the first patch.
	var q model.PatchReply
	h.mustJSON("POST", wsPath("/items/"+doc.Ref+"/patch"), map[string]any{
		"edits": []map[string]any{{"old": "TODO: body", "new": "Body."}}, "expected_seq": doc.Seq}, 200, &q)
	if !q.Rebased || q.Intervening == nil || !q.Intervening.Complete || len(q.Intervening.Changes) != 1 || q.Intervening.Changes[0].VersionID != p.VersionID {
		t.Fatalf("rebased %+v", q.Intervening)
	}
	path := wsPath("/items/" + doc.Ref + "/patch")
	h.wantError("POST", path, map[string]any{}, 400, model.CodeBadRequest)
	e := h.wantError("POST", path, map[string]any{"edits": []map[string]any{{"old": "", "new": "x"}}}, 400, model.CodeBadRequest)
	if e.Details["edit"] != float64(0) {
		t.Fatalf("details %v", e.Details)
	}
	h.wantError("POST", path, map[string]any{"edits": []map[string]any{{"old": "nowhere", "new": "x"}}}, 409, model.CodePatchAnchorMissing)
	e = h.wantError("POST", path, map[string]any{"edits": []map[string]any{{"old": ".", "new": "!"}}}, 409, model.CodePatchAnchorAmbiguous)
	if lines, _ := e.Details["lines"].([]any); len(lines) != 2 {
		t.Fatalf("lines %v", e.Details)
	}
	h.wantError("POST", path, map[string]any{"undo": p.PatchID, "edits": []map[string]any{{"old": "a", "new": "b"}}}, 400, model.CodeBadRequest)
	h.wantError("POST", path, map[string]any{"undo": "01234567-89ab-7def-8123-456789abcdef"}, 404, model.CodePatchNotFound)

	var u model.PatchReply
	h.mustJSON("POST", path, map[string]any{"undo": p.PatchID}, 200, &u)
	if u.UndoOf != p.PatchID {
		t.Fatalf("undo %+v", u)
	}
	var it api.Item
	h.mustJSON("GET", wsPath("/items/"+doc.Ref), nil, 200, &it)
	if it.Content != "# Spec\n\nTODO: intro\nBody.\n" {
		t.Fatalf("after undo %q", it.Content)
	}

	// Idempotency: op_key and the header name the same key; a retry
	// replays the first answer.
	body := map[string]any{"edits": []map[string]any{{"old": "Body.", "new": "The body."}}, "op_key": "patch-1"}
	var first, second model.PatchReply
	h.mustJSON("POST", path, body, 200, &first)
	r := h.mustJSON("POST", path, map[string]any{"edits": body["edits"]}, 200, &second, "Idempotency-Key", "patch-1")
	if second.PatchID != first.PatchID || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %+v vs %+v", second, first)
	}
	h.wantError("POST", path, map[string]any{"edits": []map[string]any{{"old": "The", "new": "A"}}, "op_key": "patch-1"}, 422, model.CodeIdempotencyKeyReused)

	var caps api.Capabilities
	h.mustJSON("GET", "/api/v1/server/capabilities", nil, 200, &caps)
	for _, c := range []string{"item_patch", "library_activate"} {
		if !slices.Contains(caps.Capabilities, c) {
			t.Errorf("capability %s not advertised", c)
		}
	}
}

func TestContextRouteRefusals(t *testing.T) {
	h := newHarness(t)
	task := h.task("T")
	base := wsPath("/items/" + task.Ref + "/context")
	for _, q := range []string{"?budget=abc", "?budget=0", "?budget=-5"} {
		h.wantError("GET", base+q, nil, 400, model.CodeBadRequest)
	}
	e := h.wantError("GET", base+"?intent=dance", nil, 400, model.CodeUnknownIntent)
	if v, _ := e.Details["valid_intents"].([]any); len(v) == 0 {
		t.Fatalf("details %v", e.Details)
	}
	h.wantError("GET", base+"?role=ghost", nil, 400, model.CodeUnknownRole)
	h.wantError("GET", wsPath("/items/TASK-99/context"), nil, 404, model.CodeNotFound)
	var b model.ContextBrief
	h.mustJSON("GET", base+"?budget=999999999", nil, 200, &b)
	if b.Budget != model.MaxContextBudget || b.Item.Ref != task.Ref || b.Omitted == nil {
		t.Fatalf("brief %+v", b)
	}
}

// knowledgeFixture seeds workspace w through the API: library entries,
// roles, a plan with acceptance criteria, a task under it with a
// blocker, a link and a decision.
func knowledgeFixture(t *testing.T, h *harness, clk *fixedClock) map[string]string {
	t.Helper()
	refs := map[string]string{}
	step := func() { clk.advance(time.Minute) }
	for _, title := range []string{"Never put secrets in code or items", "Ask before destructive operations",
		"Record decisions on the item they shape", "Tests pass before work is marked done", "Implement and ship a task", "Plan an initiative"} {
		var a activated
		h.mustJSON("POST", wsPath("/library/activate"), map[string]any{"title": title}, 201, &a)
		refs[title] = a.Ref
		step()
	}
	h.mustJSON("POST", wsPath("/agent-roles"), map[string]any{"name": "Implementer", "icon": "🔨"}, 201, nil)
	step()
	create := func(coll, title string, body map[string]any) {
		t.Helper()
		body["title"] = title
		var it api.Item
		h.mustJSON("POST", wsPath("/collections/"+coll+"/items"), body, 201, &it)
		refs[title] = it.Ref
		step()
	}
	create("conventions", "Implementers pair on migrations", map[string]any{"content": "Pair with someone on every schema migration.",
		"fields": map[string]any{"status": "active", "trigger": "on-implement", "priority": "should"}, "role": "implementer"})
	create("plans", "Offline mode", map[string]any{"fields": map[string]any{"status": "active"},
		"content": "## Goal\nWork without a network.\n\n## Acceptance criteria\n- [x] reads need no network\n- [ ] edits survive a restart\n"})
	create("tasks", "Queue writes locally", map[string]any{"parent": refs["Offline mode"], "content": "Write to a local queue first.",
		"fields": map[string]any{"status": "in-progress", "priority": "high"}, "role": "implementer"})
	create("tasks", "Choose the storage engine", map[string]any{"fields": map[string]any{"status": "open"}})
	create("docs", "Storage notes", map[string]any{"content": "Notes."})
	h.mustJSON("POST", wsPath("/items/"+refs["Queue writes locally"]+"/links"), map[string]any{"target_id": refs["Choose the storage engine"], "link_type": "blocked-by"}, 201, nil)
	step()
	h.mustJSON("POST", wsPath("/items/"+refs["Queue writes locally"]+"/links"), map[string]any{"target_id": refs["Storage notes"], "link_type": "implements"}, 201, nil)
	step()
	h.mustJSON("PATCH", wsPath("/items/"+refs["Queue writes locally"]), map[string]any{
		"append_decision": map[string]any{"decision": "Use an append-only file", "rationale": "crash safe and simple"}}, 200, nil)
	step()
	return refs
}

func TestKnowledgeGolden(t *testing.T) {
	h, clk := newProjectHarness(t)
	refs := knowledgeFixture(t, h, clk)
	task := refs["Queue writes locally"]
	for _, c := range []struct{ name, path string }{
		{"knowledge-bootstrap", "/agent/bootstrap"},
		{"knowledge-context", "/items/" + task + "/context?intent=implement&role=implementer"},
		{"knowledge-context-budget", "/items/" + task + "/context?budget=1200"},
		{"knowledge-playbooks", "/playbooks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, h.call("GET", wsPath(c.path), nil))
		})
	}
	// The budgeted brief omits from the first part that did not fit on.
	var b model.ContextBrief
	if err := json.Unmarshal(h.call("GET", wsPath("/items/"+task+"/context?budget=1200"), nil).body, &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Omitted) == 0 || b.Used > 1200 && len(b.Parents) > 0 {
		t.Fatalf("budget not applied: used %d, omitted %d", b.Used, len(b.Omitted))
	}
}

// A create names a convention's metadata as Pad's typed member, or as the
// reserved field Pad's CLI sends when it activates a library convention
// (ITM-02): both are stored as the reserved copy; anything else under that
// name is refused, and nothing is created.
func TestCreateTakesAConventionsMetadata(t *testing.T) {
	h := newHarness(t)
	var typed api.Item
	h.mustJSON("POST", wsPath("/collections/conventions/items"), map[string]any{"title": "Commits say why",
		"fields":     map[string]any{"status": "active"},
		"convention": map[string]any{"category": "git", "trigger": "on-commit", "surfaces": []string{"all", "all"}, "enforcement": "should"}}, 201, &typed)
	tf, _ := typed.FieldMap()
	want := map[string]any{"category": "git", "trigger": "on-commit", "surfaces": []any{"all"}, "enforcement": "should"}
	if !reflect.DeepEqual(tf["convention"], want) || tf["trigger"] != "on-commit" || tf["priority"] != "should" || tf["scope"] != "all" {
		t.Fatalf("typed member: fields = %v", tf)
	}
	// Pad's CLI: the reserved field in a full fields object, with status.
	var cli api.Item
	h.mustJSON("POST", wsPath("/collections/conventions/items"), map[string]any{"title": "Tests before merge",
		"fields": `{"status":"active","trigger":"on-commit","priority":"must","convention":{"category":"quality","trigger":"on-commit","enforcement":"must","commands":["make test"]}}`}, 201, &cli)
	cf, _ := cli.FieldMap()
	if c, _ := cf["convention"].(map[string]any); c["category"] != "quality" || !reflect.DeepEqual(c["commands"], []any{"make test"}) {
		t.Fatalf("reserved field on create: fields = %v", cli.Fields)
	}
	var before []api.Item
	h.mustJSON("GET", wsPath("/collections/conventions/items"), nil, 200, &before)
	for _, body := range []map[string]any{
		{"title": "x", "convention": map[string]any{}},
		{"title": "x", "fields": map[string]any{"convention": map[string]any{}}},
		{"title": "x", "fields": map[string]any{"convention": "on-commit"}},
		{"title": "x", "fields": map[string]any{"convention": map[string]any{"trigger": "on-commit", "owner": "me"}}},
		{"title": "x", "fields": map[string]any{"convention": map[string]any{"commands": "make"}}},
		{"title": "x", "fields": map[string]any{"convention": map[string]any{"trigger": "on-commit"}}, "convention": map[string]any{"trigger": "on-commit"}},
		{"title": "x", "convention": map[string]any{"trigger": "no-such-trigger"}},
	} {
		h.wantError("POST", wsPath("/collections/conventions/items"), body, 400, "validation_error")
	}
	var after []api.Item
	h.mustJSON("GET", wsPath("/collections/conventions/items"), nil, 200, &after)
	if len(after) != len(before) {
		t.Fatalf("a refused create left an item: %d → %d", len(before), len(after))
	}
	// An update still may not write it.
	h.wantError("PATCH", wsPath("/items/"+typed.Ref), map[string]any{"fields_patch": map[string]any{"convention": want}}, 400, "validation_error")
}
