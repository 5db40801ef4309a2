package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// TestCallsSpeakPadsWire sends every call to the fake and checks the
// request it made and that the answer, in the shapes the Pad of August
// 2026 sends, decodes.
func TestCallsSpeakPadsWire(t *testing.T) {
	f := newFakePad(t)
	f.answer("GET /api/v1/workspaces", 200, "["+observedWorkspace+"]")
	f.answer("GET /api/v1/workspaces/{ws}", 200, observedWorkspace)
	f.answer("GET /api/v1/workspaces/{ws}/collections", 200, "["+observedCollection+"]")
	f.answer("POST /api/v1/workspaces/{ws}/collections", 201, observedCollection)
	f.answer("PATCH /api/v1/workspaces/{ws}/collections/{coll}", 200, observedCollection)
	f.answer("GET /api/v1/workspaces/{ws}/items-index", 200, `{"items":[`+observedItem+`],"total":1,"cursor":"7","includes_unparented_metadata":true}`)
	f.answer("GET /api/v1/workspaces/{ws}/items-changes", 200, `{"changes":[`+strings.Replace(observedItem, `"seq":1`, `"seq":9,"deleted":true`, 1)+`],"cursor":"9","includes_unparented_metadata":true}`)
	f.answer("GET /api/v1/workspaces/{ws}/changes", 200, `{"updated":[`+observedItem+`],"deleted":["x"],"server_time":1796011031255,"collections_changed":false}`)
	f.answer("GET /api/v1/workspaces/{ws}/items/{ref}", 200, observedItem)
	f.answer("GET /api/v1/workspaces/{ws}/collections/{coll}/items", 200, "["+observedItem+","+observedItem+"]")
	f.answer("GET /api/v1/workspaces/{ws}/items/{ref}/comments", 200, "["+observedComment+"]")
	f.answer("GET /api/v1/workspaces/{ws}/activity", 200, `[{"id":"a1","workspace_id":"w1","document_id":"i1","action":"comment_created","actor":"user","source":"cli","metadata":"{}","created_at":"2026-11-30T03:57:00Z"}]`)
	f.answer("POST /api/v1/workspaces/{ws}/collections/{coll}/items", 201, observedItem)
	f.answer("PATCH /api/v1/workspaces/{ws}/items/{ref}", 200, observedItem)
	f.answer("DELETE /api/v1/workspaces/{ws}/items/{ref}", 204, "")
	f.answer("POST /api/v1/workspaces/{ws}/items/{ref}/restore", 200, observedItem)
	f.answer("POST /api/v1/workspaces/{ws}/items/{ref}/move", 200, strings.Replace(observedItem, "TASK-1", "IDEA-1", 1))
	f.answer("POST /api/v1/workspaces/{ws}/items/{ref}/comments", 201, observedComment)
	f.answer("POST /api/v1/workspaces/{ws}/comments/{id}/replies", 201, observedComment)
	f.answer("PATCH /api/v1/workspaces/{ws}/comments/{id}", 200, observedComment)
	f.answer("DELETE /api/v1/workspaces/{ws}/comments/{id}", 204, "")
	f.answer("GET /api/v1/workspaces/{ws}/items/{ref}/links", 200, `[{"id":"l1","workspace_id":"w1","source_id":"a","target_id":"b","link_type":"blocks","created_by":"user","created_at":"2026-11-30T03:57:00Z"}]`)
	f.answer("POST /api/v1/workspaces/{ws}/items/{ref}/links", 201, `{"id":"l1","source_id":"a","target_id":"b","link_type":"blocks","created_at":"2026-11-30T03:57:00Z"}`)
	f.answer("DELETE /api/v1/workspaces/{ws}/links/{id}", 204, "")
	f.answer("GET /api/v1/search", 200, `{"results":[{"item":`+observedItem+`,"snippet":"x","rank":-0.5}],"total":1,"limit":50,"offset":0}`)
	c := f.client(Options{})
	ctx := context.Background()
	base := Base{Seq: 4, UpdatedAt: time.Date(2026, 11, 30, 3, 56, 41, 0, time.UTC)}

	check := func(name string, err error, method, path, query string, body map[string]any) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		got := f.last()
		if got.Method != method || got.Path != path || got.Query != query {
			t.Errorf("%s sent %s %s?%s, want %s %s?%s", name, got.Method, got.Path, got.Query, method, path, query)
		}
		if got.Header.Get("Authorization") != "Bearer "+testToken {
			t.Errorf("%s sent no token", name)
		}
		if body != nil {
			var m map[string]any
			if err := json.Unmarshal([]byte(got.Body), &m); err != nil {
				t.Errorf("%s body %q: %v", name, got.Body, err)
			}
			for k, v := range body {
				if b, _ := json.Marshal(m[k]); string(b) != mustJSON(v) {
					t.Errorf("%s body[%s] = %s, want %s (body %s)", name, k, b, mustJSON(v), got.Body)
				}
			}
		}
	}
	wss, err := c.ListWorkspaces(ctx)
	check("ListWorkspaces", err, "GET", "/api/v1/workspaces", "", nil)
	if len(wss) != 1 || wss[0].Slug != "sync-peer" || wss[0].Settings != "{}" {
		t.Errorf("workspaces = %+v", wss)
	}
	_, err = c.GetWorkspace(ctx, "sync peer/x")
	check("GetWorkspace", err, "GET", "/api/v1/workspaces/sync peer/x", "", nil)
	if raw := f.last(); raw.Path != "/api/v1/workspaces/sync peer/x" {
		t.Errorf("path = %q", raw.Path)
	}
	cols, err := c.ListCollections(ctx, "w")
	check("ListCollections", err, "GET", "/api/v1/workspaces/w/collections", "", nil)
	if len(cols) != 1 || !strings.Contains(cols[0].Schema, `"status"`) || cols[0].Settings != "{}" {
		t.Errorf("collections = %+v", cols)
	}
	_, err = c.CreateCollection(ctx, "w", api.CollectionCreate{Name: "Bugs", Schema: api.FlexOf(map[string]any{"fields": []any{}})})
	// Pad reads a collection's schema as JSON text only (an object is 400),
	// so schema and settings go as text whatever the caller built.
	check("CreateCollection", err, "POST", "/api/v1/workspaces/w/collections", "", map[string]any{"name": "Bugs", "schema": `{"fields":[]}`})
	_, err = c.UpdateCollection(ctx, "w", "tasks", api.CollectionUpdate{Schema: api.FlexOf(map[string]any{"fields": []any{}}),
		Settings: api.FlexOf(map[string]any{"layout": "fields-primary"})}, base.UpdatedAt)
	check("UpdateCollection", err, "PATCH", "/api/v1/workspaces/w/collections/tasks", "", map[string]any{"expected_updated_at": "2026-11-30T03:56:41Z",
		"schema": `{"fields":[]}`, "settings": `{"layout":"fields-primary"}`})
	_, err = c.UpdateCollection(ctx, "w", "tasks", api.CollectionUpdate{Schema: api.Flex(`"{\"fields\":[]}"`)}, time.Time{})
	check("UpdateCollection with text", err, "PATCH", "/api/v1/workspaces/w/collections/tasks", "", map[string]any{"schema": `{"fields":[]}`})

	idx, err := c.ItemsIndex(ctx, "w")
	check("ItemsIndex", err, "GET", "/api/v1/workspaces/w/items-index", "include_archived=true", nil)
	if idx == nil || idx.Cursor != 7 || len(idx.Items) != 1 || idx.Items[0].Ref != "TASK-1" {
		t.Errorf("index = %+v", idx)
	}
	ch, err := c.ItemsChanges(ctx, "w", 7, 500)
	check("ItemsChanges", err, "GET", "/api/v1/workspaces/w/items-changes", "limit=500&since=7", nil)
	if ch == nil || ch.Cursor != 9 || len(ch.Changes) != 1 || ch.Changes[0].Deleted == nil || !*ch.Changes[0].Deleted || ch.Changes[0].Seq != 9 {
		t.Errorf("items-changes = %+v", ch)
	}
	tc, err := c.Changes(ctx, "w", ChangesQuery{Since: 1796011000000, Limit: 1000})
	check("Changes", err, "GET", "/api/v1/workspaces/w/changes", "limit=1000&since=1796011000000", nil)
	if tc == nil || len(tc.Items) != 1 || tc.Items[0].Content != "Hello **world**" || tc.ServerTime != 1796011031255 || tc.HasMore || len(tc.Deleted) != 1 {
		t.Errorf("changes = %+v", tc)
	}
	_, err = c.Changes(ctx, "w", ChangesQuery{Since: 5, Cursor: "c2"})
	check("Changes (cursor)", err, "GET", "/api/v1/workspaces/w/changes", "cursor=c2", nil)

	it, err := c.GetItem(ctx, "w", "TASK-1")
	check("GetItem", err, "GET", "/api/v1/workspaces/w/items/TASK-1", "", nil)
	if it != nil {
		fm, _ := it.FieldMap()
		if fm["status"] != "open" || len(it.TagList()) != 2 || !it.UpdatedAt.Equal(base.UpdatedAt) || it.Seq != 1 {
			t.Errorf("item = %+v", it)
		}
	}
	items, more, err := c.ListItems(ctx, "w", "tasks", 2, 4)
	check("ListItems", err, "GET", "/api/v1/workspaces/w/collections/tasks/items", "include_archived=true&limit=2&offset=4", nil)
	if len(items) != 2 || !more {
		t.Errorf("list = %d items, more %v (a full page with no header may have more)", len(items), more)
	}
	cms, err := c.ListComments(ctx, "w", "TASK-1")
	check("ListComments", err, "GET", "/api/v1/workspaces/w/items/TASK-1/comments", "", nil)
	if len(cms) != 1 || cms[0].Body != "hi" {
		t.Errorf("comments = %+v", cms)
	}
	acts, err := c.Activity(ctx, "w", ActivityQuery{Limit: 100})
	check("Activity", err, "GET", "/api/v1/workspaces/w/activity", "limit=100", nil)
	_, err = c.Activity(ctx, "w", ActivityQuery{Limit: 100, Before: base.UpdatedAt, BeforeID: "a1"})
	check("Activity (keyset)", err, "GET", "/api/v1/workspaces/w/activity", "before=2026-11-30T03%3A56%3A41Z&before_id=a1&limit=100", nil)
	if len(acts) != 1 || acts[0].Action != "comment_created" {
		t.Errorf("activity = %+v", acts)
	}

	_, err = c.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "T", Fields: api.FlexOf(map[string]any{"status": "open"})}, "op-1")
	check("CreateItem", err, "POST", "/api/v1/workspaces/w/collections/tasks/items", "", map[string]any{"title": "T", "fields": map[string]any{"status": "open"}})
	title := "New"
	_, err = c.UpdateItem(ctx, "w", "TASK-1", api.ItemUpdate{Title: &title, FieldsPatch: api.FlexOf(map[string]any{"status": "done"})}, base)
	check("UpdateItem", err, "PATCH", "/api/v1/workspaces/w/items/TASK-1", "", map[string]any{"title": "New", "fields_patch": map[string]any{"status": "done"}, "expected_updated_at": "2026-11-30T03:56:41Z"})
	_, err = c.AppendToItem(ctx, "w", "TASK-1", api.ItemUpdate{AppendDecision: &api.DecisionEntry{Decision: "keep", Rationale: "works"}}, "op-2", "robot")
	check("AppendToItem", err, "PATCH", "/api/v1/workspaces/w/items/TASK-1", "", map[string]any{"append_decision": map[string]any{"decision": "keep", "rationale": "works"}})
	if a := f.last().Header.Get("X-Pad-Agent"); a != "robot" {
		t.Errorf("AppendToItem named the agent %q, want robot", a)
	}
	err = c.ArchiveItem(ctx, "w", "TASK-1")
	check("ArchiveItem", err, "DELETE", "/api/v1/workspaces/w/items/TASK-1", "", nil)
	_, err = c.RestoreItem(ctx, "w", "TASK-1")
	check("RestoreItem", err, "POST", "/api/v1/workspaces/w/items/TASK-1/restore", "", nil)
	moved, err := c.MoveItem(ctx, "w", "TASK-1", "ideas")
	check("MoveItem", err, "POST", "/api/v1/workspaces/w/items/TASK-1/move", "", map[string]any{"target_collection": "ideas"})
	if moved == nil || moved.Ref != "IDEA-1" {
		t.Errorf("moved = %+v", moved)
	}
	_, err = c.CreateComment(ctx, "w", "TASK-1", "hello", "op-2")
	check("CreateComment", err, "POST", "/api/v1/workspaces/w/items/TASK-1/comments", "", map[string]any{"body": "hello"})
	_, err = c.Reply(ctx, "w", "cm1", "re", "")
	check("Reply", err, "POST", "/api/v1/workspaces/w/comments/cm1/replies", "", map[string]any{"body": "re"})
	_, err = c.EditComment(ctx, "w", "cm1", "edited")
	check("EditComment", err, "PATCH", "/api/v1/workspaces/w/comments/cm1", "", map[string]any{"body": "edited"})
	err = c.DeleteComment(ctx, "w", "cm1")
	check("DeleteComment", err, "DELETE", "/api/v1/workspaces/w/comments/cm1", "", nil)
	links, err := c.ListLinks(ctx, "w", "TASK-1")
	check("ListLinks", err, "GET", "/api/v1/workspaces/w/items/TASK-1/links", "", nil)
	if len(links) != 1 || links[0].LinkType != "blocks" {
		t.Errorf("links = %+v", links)
	}
	_, err = c.CreateLink(ctx, "w", "TASK-1", "b", "blocks")
	check("CreateLink", err, "POST", "/api/v1/workspaces/w/items/TASK-1/links", "", map[string]any{"target_id": "b", "link_type": "blocks"})
	err = c.DeleteLink(ctx, "w", "l1")
	check("DeleteLink", err, "DELETE", "/api/v1/workspaces/w/links/l1", "", nil)
	res, err := c.Search(ctx, api.SearchQuery{Query: "first", Workspace: "w"})
	check("Search", err, "GET", "/api/v1/search", "q=first&workspace=w", nil)
	if res == nil || len(res.Results) != 1 {
		t.Errorf("search = %+v", res)
	}
}

// TestKeysAndGuardsFollowCapabilities: an idempotency key and
// expected_seq go only to a server that honours them; the Pad of August
// 2026 would ignore both and, for the key, Go's transport would take a
// keyed POST for one safe to resend.
func TestKeysAndGuardsFollowCapabilities(t *testing.T) {
	f := newFakePad(t)
	f.answer("POST /api/v1/workspaces/{ws}/collections/{coll}/items", 201, observedItem)
	f.answer("POST /api/v1/workspaces/{ws}/items/{ref}/comments", 201, observedComment)
	f.answer("PATCH /api/v1/workspaces/{ws}/items/{ref}", 200, observedItem)
	c := f.client(Options{})
	ctx := context.Background()
	base := Base{Seq: 4, UpdatedAt: time.Date(2026, 11, 30, 3, 56, 41, 500, time.UTC)}
	for _, caps := range []*Capabilities{{}, {OpKeys: true, ExpectedSeq: true}} {
		c.SetCapabilities(caps)
		for _, call := range []func() error{
			func() error {
				_, err := c.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "T", OpKey: "stale"}, "op-1")
				return err
			},
			func() error { _, err := c.CreateComment(ctx, "w", "TASK-1", "hi", "op-1"); return err },
			func() error {
				_, err := c.AppendToItem(ctx, "w", "TASK-1", api.ItemUpdate{AppendImplementationNote: &api.NoteEntry{Summary: "s"}, ExpectedUpdatedAt: "stale"}, "op-1", "")
				return err
			},
		} {
			if err := call(); err != nil {
				t.Fatal(err)
			}
			got := f.last()
			var m map[string]any
			_ = json.Unmarshal([]byte(got.Body), &m)
			hdr, body := got.Header.Get("Idempotency-Key"), m["op_key"]
			if caps.OpKeys && (hdr != "op-1" || body != "op-1") || !caps.OpKeys && (hdr != "" || body != nil) {
				t.Errorf("caps %+v: %s %s sent key header %q, op_key %v", caps, got.Method, got.Path, hdr, body)
			}
		}
		if _, err := c.UpdateItem(ctx, "w", "TASK-1", api.ItemUpdate{ExpectedUpdatedAt: "stale"}, base); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(f.last().Body), &m)
		if caps.ExpectedSeq && (m["expected_seq"] != 4.0 || m["expected_updated_at"] != nil) ||
			!caps.ExpectedSeq && (m["expected_seq"] != nil || m["expected_updated_at"] != "2026-11-30T03:56:41.0000005Z") {
			t.Errorf("caps %+v: update guard = %v", caps, m)
		}
	}
	if _, err := c.UpdateItem(ctx, "w", "TASK-1", api.ItemUpdate{}, Base{}); err != nil {
		t.Fatal(err)
	}
	if b := f.last().Body; strings.Contains(b, "expected_") {
		t.Errorf("an unguarded update sent a guard: %s", b)
	}
}

func TestListItemsReadsPagingHeaders(t *testing.T) {
	f := newFakePad(t)
	f.handle("GET /api/v1/workspaces/{ws}/collections/{coll}/items", func(w http.ResponseWriter, r *http.Request) {
		more := "false"
		if r.URL.Query().Get("offset") == "0" {
			more = "true"
		}
		w.Header().Set("X-Pad-Has-More", more)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[" + observedItem + "]"))
	})
	c := f.client(Options{})
	ctx := context.Background()
	if items, more, err := c.ListItems(ctx, "w", "tasks", 5, 0); err != nil || len(items) != 1 || !more {
		t.Errorf("first page: %d items, more %v, %v; want the header's more", len(items), more, err)
	}
	if items, more, err := c.ListItems(ctx, "w", "tasks", 1, 1); err != nil || len(items) != 1 || more {
		t.Errorf("last page: %d items, more %v, %v; want the header's end", len(items), more, err)
	}
	if _, _, err := c.ListItems(ctx, "w", "tasks", 5000, 1); err != nil || !strings.Contains(f.last().Query, "limit=1000") {
		t.Errorf("a limit over Pad's clamp was sent as %q (%v)", f.last().Query, err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func searchQuery(q string) api.SearchQuery { return api.SearchQuery{Query: q, Workspace: "w"} }
