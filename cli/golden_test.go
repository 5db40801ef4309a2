package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// The fixtures are fixed wire objects, so the golden output depends on
// the renderers only (no daemon, no clock).
var goldenNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func before(d time.Duration) time.Time { return goldenNow.Add(-d) }

func i64(n int64) *int64    { return &n }
func strp(s string) *string { return &s }

func fixtureItems() []api.Item {
	archived := before(2 * time.Hour)
	return []api.Item{
		{ID: "01a2-0001", WorkspaceID: "ws-1", CollectionID: "c-tasks", Title: "Fix the login redirect loop on Safari when the session cookie is stale",
			Slug: "fix-the-login-redirect-loop", Ref: "TASK-12", Content: "Steps:\n1. open\n2. \x1b[31mboom\x1b[0m",
			Fields: `{"status":"in-progress","priority":"critical","estimate":1.50,"due_date":"2026-03-31"}`, Tags: `["auth","safari"]`,
			CreatedBy: "user", LastModifiedBy: "agent", CreatedByName: "", Source: "cli",
			CreatedAt: before(72 * time.Hour), UpdatedAt: before(5 * time.Minute), ItemNumber: i64(12), Seq: 41,
			CollectionSlug: "tasks", CollectionName: "Tasks", CollectionIcon: "✓", CollectionPrefix: "TASK",
			ParentID: strp("01a2-0009"), ParentRef: "PLAN-3", ParentTitle: "Q1 hardening", AgentRoleSlug: "implementer", AgentRoleName: "Implementer"},
		{ID: "01a2-0002", WorkspaceID: "ws-1", CollectionID: "c-ideas", Title: "Dark mode | with * stars", Slug: "dark-mode",
			Ref: "IDEA-7", Fields: `{"status":"new","impact":"high"}`, Tags: `[]`, CreatedBy: "user", LastModifiedBy: "user", Source: "web",
			CreatedAt: before(40 * 24 * time.Hour), UpdatedAt: before(3 * 24 * time.Hour), ItemNumber: i64(7), Seq: 12,
			CollectionSlug: "ideas", CollectionName: "Ideas", CollectionIcon: "💡", CollectionPrefix: "IDEA"},
		{ID: "01a2-0003", WorkspaceID: "ws-1", CollectionID: "c-tasks", Title: "日本語のタイトル", Slug: "nihongo",
			Fields: `{"status":"done","priority":"low"}`, Tags: `["i18n"]`, CreatedBy: "agent", CreatedByName: "claude",
			LastModifiedBy: "agent", Source: "mcp", CreatedAt: before(50 * 24 * time.Hour), UpdatedAt: before(45 * 24 * time.Hour),
			DeletedAt: &archived, ItemNumber: i64(3), Seq: 9, CollectionSlug: "tasks", CollectionName: "Tasks", CollectionPrefix: "TASK"},
	}
}

func fixtureWorkspaces() []api.Workspace {
	del := before(26 * time.Hour)
	return []api.Workspace{
		{ID: "ws-1", Name: "Padd", Slug: "padd", Settings: "{}", Source: "padd", Template: "startup", Seq: 41,
			CreatedAt: before(90 * 24 * time.Hour), UpdatedAt: before(5 * time.Minute)},
		{ID: "ws-2", Name: "Home | chores", Slug: "home", Description: "Around the house", Settings: `{"theme":"dark"}`, Source: "padd",
			Template: "blank", Seq: 3, CreatedAt: before(10 * 24 * time.Hour), UpdatedAt: before(2 * time.Hour), DeletedAt: &del},
	}
}

func fixtureCollections() []api.Collection {
	archived := before(24 * time.Hour)
	return []api.Collection{
		{ID: "c-tasks", WorkspaceID: "ws-1", Name: "Tasks", Slug: "tasks", Icon: "✓", Description: "Work to do",
			Schema:   `{"fields":[{"key":"status","label":"Status","type":"select","options":["open","in-progress","done","cancelled"],"terminal_options":["done","cancelled"],"default":"open","required":true},{"key":"priority","label":"Priority","type":"select","options":["low","medium","high","critical"],"default":"medium"},{"key":"estimate","label":"Estimate","type":"number"},{"key":"epic","label":"Epic","type":"relation","collection":"plans"}]}`,
			Settings: `{"layout":"fields-primary","tracks_work":true}`, Traits: "{}", Prefix: "TASK", IsDefault: true, TracksWork: true,
			Seq: 2, CreatedAt: before(90 * 24 * time.Hour), UpdatedAt: before(90 * 24 * time.Hour), ItemCount: 120, ActiveItemCount: 31},
		{ID: "c-docs", WorkspaceID: "ws-1", Name: "Docs", Slug: "docs", Icon: "📄", Schema: `{"fields":[]}`, Settings: "{}", Traits: "{}",
			Prefix: "DOC", Seq: 3, CreatedAt: before(90 * 24 * time.Hour), UpdatedAt: before(90 * 24 * time.Hour), ItemCount: 4, ActiveItemCount: 4,
			ArchivedAt: &archived},
	}
}

func fixtureDaemon() daemonState {
	return daemonState{Running: true, DataDir: "/home/u/.local/share/padd", ClientVersion: "v1.2.0", Port: 7787,
		URL: "http://127.0.0.1:7787", DaemonStatus: &api.DaemonStatus{Version: "v1.1.0", PID: 4242,
			StartedAt: before(3 * time.Hour), UptimeSeconds: 3 * 3600, DBPath: "/home/u/.local/share/padd/padd.db",
			DBBytes: 5 << 20, Workspaces: 2, MCPSessions: 3,
			Memory: &api.MemoryUse{OwnBytes: 9 << 20, DatabaseBytes: 3 << 20, IndexBytes: 1 << 20, ProgramBytes: 14 << 20,
				HeapBytes: 5 << 20, PeakBytes: 41 << 20}}}
}

// renderCase renders one view in one format.
type renderCase struct {
	name string
	fn   func(w io.Writer) error
}

// styles are the layouts the golden files pin: piped (the default
// width, no colour), a narrow terminal, and a colour terminal.
var (
	piped  = Style{Width: DefaultWidth}
	narrow = Style{Width: 60}
	colour = Style{Width: DefaultWidth, Color: true}
)

func goldenCases(t *testing.T) []renderCase {
	items := fixtureItems()
	wss := fixtureWorkspaces()
	colls := fixtureCollections()
	list := itemsView{items: items, now: goldenNow, showCollection: true}
	one := itemsView{items: items[:1], now: goldenNow}
	detail := itemDetail{it: &items[0], now: goldenNow}
	wsv := workspacesView{list: wss, current: "padd", now: goldenNow}
	wsDeleted := workspacesView{list: wss[1:], now: goldenNow, deleted: true}
	wsd := workspaceDetail{ws: &wss[1], now: goldenNow}
	cv := collectionsView{list: colls}
	cd := collectionDetail{c: &colls[0]}
	arch := archivedView{list: []api.ArchivedCollection{{ID: "c-docs", Name: "Docs", Slug: "docs", Prefix: "DOC", Icon: "📄", ItemCount: 4, ArchivedAt: colls[1].ArchivedAt}}}
	dm := fixtureDaemon()
	importing := fixtureDaemon()
	importing.Imports = []api.ImportProgress{{Name: "Big backlog", Items: 1_000_000, ItemsWritten: 120_000,
		StartedAt: importing.StartedAt.Add(time.Duration(importing.UptimeSeconds-75) * time.Second)}}
	links := linksView{self: "01a2-0001", list: []api.ItemLink{
		{ID: "l1", SourceID: "01a2-0001", TargetID: "01a2-0005", LinkType: "blocks", SourceRef: "TASK-12", TargetRef: "TASK-5", TargetTitle: "Ship the release", TargetStatus: "open"},
		{ID: "l2", SourceID: "01a2-0009", TargetID: "01a2-0001", LinkType: "split_from", SourceRef: "TASK-20", SourceTitle: "Part two", SourceStatus: "done", TargetRef: "TASK-12"},
		{ID: "l3", SourceID: "01a2-0007", TargetID: "01a2-0001", LinkType: "implements", SourceRef: "TASK-21", SourceTitle: "Do it", SourceStatus: "in-progress", TargetRef: "TASK-12"},
	}}
	cmts := commentsView{now: goldenNow, list: []api.Comment{
		{ID: "cm-1", ItemID: "01a2-0001", Author: "Ada", CreatedBy: "user", Body: "Repro on Safari 17:\n- log in\n- wait an hour", CreatedAt: before(3 * time.Hour), UpdatedAt: before(2 * time.Hour), Edited: true},
		{ID: "cm-3", ItemID: "01a2-0001", Author: "claude", CreatedBy: "agent", Body: "Fixed in the | cookie * refresh", ParentID: "cm-1", CreatedAt: before(time.Hour), UpdatedAt: before(time.Hour)},
		{ID: "cm-2", ItemID: "01a2-0001", CreatedBy: "user", Deleted: true, CreatedAt: before(90 * time.Minute), UpdatedAt: before(90 * time.Minute)},
		{ID: "cm-4", ItemID: "01a2-0001", Author: "Ada", Body: "orphan reply", ParentID: "cm-gone", CreatedAt: before(time.Minute), UpdatedAt: before(time.Minute)},
	}}
	jsonOf := func(v any) func(io.Writer) error { return func(w io.Writer) error { return writeJSON(w, v) } }
	// Made in a synced workspace, before the server numbered it.
	local := items[0]
	local.Ref, local.ItemNumber = "TASK-L1", i64(-1)
	return append([]renderCase{
		{"items.table", func(w io.Writer) error { return list.writeTable(w, piped) }},
		{"items.narrow", func(w io.Writer) error { return list.writeTable(w, narrow) }},
		{"items.color", func(w io.Writer) error { return list.writeTable(w, colour) }},
		{"items.markdown", list.writeMarkdown},
		{"items.json", jsonOf(outItems(items))},
		{"items-one-collection.table", func(w io.Writer) error { return one.writeTable(w, piped) }},
		{"items-empty.table", func(w io.Writer) error { return itemsView{}.writeTable(w, piped) }},
		{"item.table", func(w io.Writer) error { return detail.writeTable(w, piped) }},
		{"item.narrow", func(w io.Writer) error { return detail.writeTable(w, narrow) }},
		{"item.markdown", detail.writeMarkdown},
		{"item.json", jsonOf(outItem(&items[0]))},
		{"item-done.table", func(w io.Writer) error { return itemDone(w, piped, "Created", &items[0]) }},
		{"item-done-local.table", func(w io.Writer) error { return itemDone(w, piped, "Created", &local) }},
		{"workspaces.table", func(w io.Writer) error { return wsv.writeTable(w, piped) }},
		{"workspaces.markdown", wsv.writeMarkdown},
		{"workspaces.json", jsonOf(outWorkspaces(wss))},
		{"workspaces-deleted.table", func(w io.Writer) error { return wsDeleted.writeTable(w, piped) }},
		{"workspace.table", func(w io.Writer) error { return wsd.writeTable(w, piped) }},
		{"workspace.markdown", wsd.writeMarkdown},
		{"collections.table", func(w io.Writer) error { return cv.writeTable(w, piped) }},
		{"collections.markdown", cv.writeMarkdown},
		{"collections.json", jsonOf(outCollections(colls))},
		{"collection.table", func(w io.Writer) error { return cd.writeTable(w, piped) }},
		{"collection.narrow", func(w io.Writer) error { return cd.writeTable(w, narrow) }},
		{"collection.markdown", cd.writeMarkdown},
		{"collections-archived.table", func(w io.Writer) error { return arch.writeTable(w, piped) }},
		{"comments.table", func(w io.Writer) error { return cmts.writeTable(w, piped) }},
		{"comments.markdown", cmts.writeMarkdown},
		{"comments-empty.table", func(w io.Writer) error { return commentsView{}.writeTable(w, piped) }},
		{"events.table", func(w io.Writer) error { return printEvents(w, piped, FormatTable) }},
		{"events.narrow", func(w io.Writer) error { return printEvents(w, narrow, FormatTable) }},
		{"events.markdown", func(w io.Writer) error { return printEvents(w, piped, FormatMarkdown) }},
		{"links.table", func(w io.Writer) error { return links.writeTable(w, piped) }},
		{"daemon-status.table", func(w io.Writer) error { dm.pairs().write(w, piped, ""); return nil }},
		{"daemon-status.json", func(w io.Writer) error { return writeJSON(w, dm) }},
		{"daemon-importing.table", func(w io.Writer) error { importing.pairs().write(w, piped, ""); return nil }},
		{"daemon-stopped.json", func(w io.Writer) error {
			return writeJSON(w, daemonState{DataDir: "/home/u/.local/share/padd", ClientVersion: "v1.2.0"})
		}},
	}, append(append(viewGoldenCases(t), syncGoldenCases()...), textGoldenCases(t)...)...)
}

// TestGolden pins padctl's table, markdown and JSON output. After an
// intended change: go test ./cli -run TestGolden -update, and review the
// diff of cli/testdata.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.fn(&buf); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./cli -run TestGolden -update` to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("output differs from %s (run with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

// TestGoldenJSONParses checks that every JSON golden is valid JSON, so a
// bad -update cannot pin broken output.
func TestGoldenJSONParses(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json.golden"))
	if len(files) == 0 {
		t.Fatal("no JSON golden files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) {
			t.Errorf("%s is not valid JSON", f)
		}
	}
}

// TestPlainOutputHasNoEscapes: without colour no ANSI escape may reach
// the output, including escapes smuggled in through stored text.
func TestPlainOutputHasNoEscapes(t *testing.T) {
	for _, c := range goldenCases(t) {
		if strings.Contains(c.name, "color") || strings.HasSuffix(c.name, ".json") {
			continue
		}
		var buf bytes.Buffer
		if err := c.fn(&buf); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(buf.String(), 0x1b) {
			t.Errorf("%s: output holds an escape character:\n%q", c.name, buf.String())
		}
	}
}

// printEvents renders a fixed event sequence as watch prints it.
func printEvents(w io.Writer, st Style, f Format) error {
	p := eventPrinter{w: w, st: st, loc: time.UTC, format: f, showWorkspace: true}
	for _, e := range []api.Event{
		{ID: 41, Type: "item_created", Workspace: "padd", Ref: "TASK-12", Title: "Fix the login redirect loop on Safari when the session cookie is stale", Actor: "user", ActorName: "Local User", Source: "cli", Timestamp: before(time.Minute).UnixMilli()},
		{ID: 42, Type: "comment_created", Workspace: "padd", Ref: "TASK-12", Title: "Fix | it", Actor: "agent", ActorName: "claude", Source: "mcp", Timestamp: before(30 * time.Second).UnixMilli()},
		{ID: 43, Type: "collection_updated", Workspace: "padd", Collection: "tasks", Actor: "user", Source: "cli", Timestamp: goldenNow.UnixMilli()},
	} {
		if err := p.print(&e, nil); err != nil {
			return err
		}
	}
	return nil
}
