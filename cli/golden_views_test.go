package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// The views of search, the index, the project views, item work,
// playbooks, the library, roles and the bootstrap, rendered from padd's
// answers kept in testdata/wire (captured from a real padd, then given
// fixed ids and times around goldenNow, plus a few hostile values by
// hand: escape codes and Markdown marks in titles and snippets).

// wire decodes testdata/wire/<name>.json as api.Client decodes answers.
func wire[T any](t *testing.T, name string) *T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "wire", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v T
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("testdata/wire/%s.json: %v", name, err)
	}
	return &v
}

// docCases renders a doc view as a table, as Markdown and as JSON, the
// three --format outputs.
func docCases(name string, v docView) []renderCase {
	return []renderCase{
		{name + ".table", func(w io.Writer) error { return v.doc(false).write(w, piped) }},
		{name + ".markdown", func(w io.Writer) error { return v.doc(true).writeMarkdown(w) }},
		{name + ".json", func(w io.Writer) error { return writeJSON(w, v.jsonValue()) }},
	}
}

// tableCase renders one doc view for a terminal of another style.
func tableCase(name string, v docView, st Style) renderCase {
	return renderCase{name, func(w io.Writer) error { return v.doc(false).write(w, st) }}
}

func viewGoldenCases(t *testing.T) []renderCase {
	var cases []renderCase
	add := func(cs ...renderCase) { cases = append(cases, cs...) }

	// Tags, the most used first; an escape code in one is shown, not run.
	add(docCases("tags", tagsView{list: []api.TagCount{{Tag: "api", Count: 12}, {Tag: "ux", Count: 3}, {Tag: "bad\x1b[2Jtag", Count: 1}}})...)
	add(tableCase("tags-empty.table", tagsView{}, piped))

	// Search: snippets with marks, an escape code and Markdown marks in
	// stored text, a second page (1–2 of 7).
	res := wire[api.SearchResponse](t, "search")
	search := searchView{res: res}
	add(docCases("search", search)...)
	add(tableCase("search.color", search, colour), tableCase("search.narrow", search, narrow))
	wsID := res.Results[0].Item.WorkspaceID
	add(tableCase("search-all.table", searchView{res: res, wsNames: map[string]string{wsID: "padd"}}, piped))
	add(tableCase("search-fuzzy.table", searchView{res: wire[api.SearchResponse](t, "search-fuzzy")}, piped))
	add(tableCase("search-empty.table", searchView{res: &api.SearchResponse{Results: []api.SearchResult{}}}, piped))

	idx := wire[api.IndexStatus](t, "index")
	names := map[string]string{}
	for id := range idx.Watermarks {
		names[id] = "padd"
	}
	add(docCases("index", indexView{st: idx, names: names})...)
	add(tableCase("index-rebuilding.table", indexView{st: &api.IndexStatus{State: api.IndexRebuilding, Reason: "rebuild requested",
		Done: 120, Total: 500}, headline: "Rebuild requested; `padctl index status` follows it"}, piped))
	add(tableCase("index-failed.color", indexView{st: &api.IndexStatus{State: api.IndexFailed, Error: "disk full"}}, colour))

	dash := dashboardView{d: wire[api.Dashboard](t, "dashboard"), now: goldenNow}
	add(docCases("dashboard", dash)...)
	add(tableCase("dashboard.narrow", dash, narrow), tableCase("dashboard.color", dash, colour))
	add(docCases("next", workView{w: wire[api.NextWork](t, "next")})...)
	add(docCases("ready", workView{w: wire[api.NextWork](t, "ready")})...)
	add(tableCase("next-empty.table", workView{w: &api.NextWork{}}, piped))
	add(docCases("stale", staleView{r: wire[api.StaleReport](t, "stale")})...)
	add(docCases("standup", standupView{s: wire[api.Standup](t, "standup")})...)
	add(docCases("changelog", changelogView{l: wire[api.Changelog](t, "changelog")})...)
	add(docCases("report", reportView{r: wire[api.Report](t, "report")})...)
	add(docCases("activity", activityView{list: *wire[[]api.Activity](t, "activity"), now: goldenNow})...)
	add(docCases("catch-up", catchUpView{c: wire[api.CatchUp](t, "catch-up"), now: goldenNow})...)
	add(tableCase("catch-up-empty.table", catchUpView{c: &api.CatchUp{Window: api.CatchUpWindow{
		Since: "2026-03-09T12:00:00Z", Until: "2026-03-10T12:00:00Z", HasCursor: true}}, now: goldenNow}, piped))

	add(docCases("reminders", remindersView{list: *wire[[]api.ReminderView](t, "reminders")})...)
	patch := patchView{r: wire[model.PatchReply](t, "patch")}
	add(docCases("patch", patch)...)
	add(tableCase("patch.color", patch, colour))
	add(tableCase("patch-rebased.table", patchView{r: &model.PatchReply{Ref: "TASK-2", Seq: 44, PatchID: "01a2-0099", Rebased: true,
		UndoOf: "01a2-0098", Intervening: &model.Intervening{FromSeq: 40, ToSeq: 43, Changes: make([]model.InterveningChange, 2)},
		Diff: "--- a/TASK-2\n+++ b/TASK-2\n@@ -1 +1 @@\n-old \x1b[31mred\n+new\n"}}, piped))
	add(docCases("context", contextView{b: wire[model.ContextBrief](t, "context")})...)
	add(docCases("history", historyView{list: *wire[[]api.ItemVersion](t, "history"), now: goldenNow})...)
	add(docCases("backlinks", backlinksView{list: *wire[[]api.Backlink](t, "backlinks"), now: goldenNow})...)
	add(docCases("deps", depsView{d: wire[api.Deps](t, "deps")})...)
	add(docCases("progress", progressView{ref: "PLAN-1", p: wire[api.Progress](t, "progress")})...)
	add(tableCase("progress-none.table", progressView{ref: "TASK-9", p: &api.Progress{}}, piped))

	kids := *wire[[]api.Item](t, "children")
	kv := itemsView{items: kids, now: goldenNow}
	add(renderCase{"children.table", func(w io.Writer) error { return kv.writeTable(w, piped) }},
		renderCase{"children.markdown", kv.writeMarkdown},
		renderCase{"children.json", func(w io.Writer) error { return writeJSON(w, outItems(kids)) }})

	add(docCases("playbooks", playbooksView{list: *wire[[]model.PlaybookMeta](t, "playbooks")})...)
	pb := wire[api.Playbook](t, "playbook")
	pbd := itemDetail{it: &pb.Item, now: goldenNow}
	add(renderCase{"playbook.table", func(w io.Writer) error { return pbd.writeTable(w, piped) }},
		renderCase{"playbook.markdown", pbd.writeMarkdown},
		renderCase{"playbook.json", func(w io.Writer) error {
			return writeJSON(w, playbookOut{itemOut: outItem(&pb.Item), Status: pb.Status})
		}})
	add(docCases("playbook-run", playbookRunView{r: wire[api.PlaybookRun](t, "playbook-run")})...)
	add(docCases("playbook-run-unbound", playbookRunView{r: wire[api.PlaybookRun](t, "playbook-run-unbound")})...)
	convs := wire[struct {
		Categories []api.ConventionCategory `json:"categories"`
	}](t, "convention-library").Categories
	pbs := wire[struct {
		Categories []api.PlaybookCategory `json:"categories"`
	}](t, "playbook-library").Categories
	add(docCases("library", libraryView{l: libraryList{Conventions: &convs, Playbooks: &pbs}})...)
	add(tableCase("library-empty.table", libraryView{l: libraryList{Conventions: &[]api.ConventionCategory{}}}, piped))
	add(docCases("library-convention", libraryEntryView{e: wire[api.LibraryEntry](t, "library-convention")})...)
	add(docCases("library-playbook", libraryEntryView{e: wire[api.LibraryEntry](t, "library-playbook")})...)
	act := wire[api.Activation](t, "activation")
	add(renderCase{"activation.table", func(w io.Writer) error {
		return itemDone(w, piped, "Activated "+act.Library.Key+" as", &act.Item)
	}}, renderCase{"activation.json", func(w io.Writer) error {
		return writeJSON(w, activationOut{itemOut: outItem(&act.Item), Warnings: act.Warnings, Library: act.Library})
	}})
	add(docCases("roles", rolesView{list: *wire[[]api.AgentRole](t, "roles")})...)
	add(tableCase("roles-empty.table", rolesView{}, piped))
	boot := bootstrapView{b: wire[api.Bootstrap](t, "bootstrap"), now: goldenNow}
	add(docCases("bootstrap", boot)...)

	add(lineCases(t)...)
	return cases
}

// lineCases renders the one-line confirmations of the writes together:
// the lines (also their Markdown, which is the same sentence), in colour,
// and a JSON object of what --format json prints for each.
func lineCases(t *testing.T) []renderCase {
	claim := wire[api.ClaimAnswer](t, "claim")
	renewed := *claim
	renewed.Renewed = true
	rem := wire[api.ReminderView](t, "reminder")
	rearmed := *rem
	rearmed.ItemRef = "" // an answer without the ref: the ref typed names the item
	role := wire[api.AgentRole](t, "role")
	lines := []struct {
		name string
		v    lineView
	}{
		{"claim", claimLine(claim)},
		{"claim-renewed", claimLine(&renewed)},
		{"release", releaseLine(wire[api.ReleaseAnswer](t, "release"))},
		{"release-none", releaseLine(&api.ReleaseAnswer{Ref: "TASK-3", ItemID: "01a2-0017"})},
		{"remind", reminderLine(rem, "set", "TASK-4")},
		{"remind-rearm", reminderLine(&rearmed, "re-armed", "write-docs")},
		{"ack-reminder", ackLine(rem)},
		{"unremind", unremindLine(rem.ID)},
		{"star", starLine(wire[api.StarState](t, "star"), "TASK-3")},
		{"unstar", starLine(&api.StarState{Ref: "TASK-3"}, "TASK-3")},
		{"role-create", roleLine("Created", role)},
		{"role-update", roleLine("Updated", role)},
		{"role-delete", roleDeletedLine(role.Slug)},
		{"seen", seenLine("padd", wire[api.Seen](t, "seen"))},
	}
	text := func(st Style) func(w io.Writer) error {
		return func(w io.Writer) error {
			for _, l := range lines {
				if _, err := fmt.Fprintf(w, "%s: %s\n", l.name, l.v.line(st)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return []renderCase{
		{"lines.table", text(piped)},
		{"lines.markdown", text(piped)},
		{"lines.color", text(colour)},
		{"lines.json", func(w io.Writer) error {
			out := map[string]any{}
			for _, l := range lines {
				out[l.name] = l.v.value
			}
			return writeJSON(w, out)
		}},
	}
}

// TestNoStrayGoldens: every golden file is written by a case, so a
// renamed case cannot leave a stale file behind that nothing checks.
func TestNoStrayGoldens(t *testing.T) {
	want := map[string]bool{}
	for _, c := range goldenCases(t) {
		want[c.name+".golden"] = true
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	for _, f := range files {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is written by no case; delete it", f)
		}
	}
}
