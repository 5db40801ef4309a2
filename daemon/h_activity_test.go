package daemon

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/padd/padd/storage/views"
)

// padActivity is Pad's activity row as its clients decode it: metadata
// is JSON text.
type padActivity struct {
	ID             string    `json:"id"`
	WorkspaceID    string    `json:"workspace_id"`
	DocumentID     string    `json:"document_id"`
	Action         string    `json:"action"`
	Actor          string    `json:"actor"`
	Source         string    `json:"source"`
	Metadata       string    `json:"metadata"`
	CreatedAt      time.Time `json:"created_at"`
	ItemTitle      string    `json:"item_title"`
	ItemSlug       string    `json:"item_slug"`
	ItemRef        string    `json:"item_ref"`
	CollectionSlug string    `json:"collection_slug"`
	ActorName      string    `json:"actor_name"`
	Seq            int64     `json:"seq"`
}

func TestActivityFeed(t *testing.T) {
	h := newHarness(t)
	a := h.task("A")
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "A2"}, 200, nil)
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "hi"}, 201, nil, "X-Pad-Agent", "bot")
	h.create("ideas", map[string]any{"title": "I"})

	var feed []padActivity
	h.mustJSON("GET", wsPath("/activity"), nil, 200, &feed)
	if len(feed) < 4 || feed[0].ItemRef != "IDEA-2" || feed[0].Action != "created" || feed[0].CollectionSlug != "ideas" {
		t.Fatalf("feed head = %+v", feed[:min(len(feed), 2)])
	}
	cm := feed[1]
	var meta map[string]any
	if cm.Action != "commented" || cm.Actor != "agent" || cm.ActorName != "bot" || cm.DocumentID != a.ID ||
		cm.ItemTitle != "A2" || cm.ItemSlug != "a2" || json.Unmarshal([]byte(cm.Metadata), &meta) != nil || meta["comment_id"] == nil {
		t.Errorf("comment entry = %+v", cm)
	}
	for i := 1; i < len(feed); i++ {
		if feed[i].Seq >= feed[i-1].Seq {
			t.Fatalf("not newest first: %d then %d", feed[i-1].Seq, feed[i].Seq)
		}
	}

	var only []padActivity
	h.mustJSON("GET", wsPath("/activity?action=created&collection=tasks"), nil, 200, &only)
	if len(only) != 1 || only[0].ItemRef != "TASK-1" {
		t.Errorf("created in tasks = %+v", only)
	}
	h.mustJSON("GET", wsPath("/activity?actor=agent"), nil, 200, &only)
	if len(only) != 1 || only[0].Action != "commented" {
		t.Errorf("agent entries = %+v", only)
	}
	r := h.mustJSON("GET", wsPath("/activity?collection=nothing"), nil, 200, &only)
	if string(r.body) != "[]\n" {
		t.Errorf("unknown collection = %s", r.body)
	}
	h.mustJSON("GET", wsPath("/items/TASK-1/activity"), nil, 200, &only)
	if len(only) != 3 || only[0].Action != "commented" || only[2].Action != "created" {
		t.Errorf("item activity = %+v", only)
	}
	h.mustJSON("GET", wsPath("/activity?since=2999-01-01"), nil, 200, &only)
	if len(only) != 0 {
		t.Errorf("future since = %+v", only)
	}
	h.wantError("GET", wsPath("/activity?since=yesterday"), nil, 400, "invalid_since")
	h.wantError("GET", wsPath("/activity?actor=robot"), nil, 400, "validation_error")
	h.wantError("GET", wsPath("/items/TASK-9/activity"), nil, 404, "not_found")
}

func TestActivityKeyset(t *testing.T) {
	h := newHarness(t)
	for i := range 5 {
		h.task("T" + strconv.Itoa(i))
	}
	var all []padActivity
	h.mustJSON("GET", wsPath("/activity"), nil, 200, &all)
	var page []padActivity
	r := h.mustJSON("GET", wsPath("/activity?limit=2"), nil, 200, &page)
	next := r.header.Get("X-Pad-Next-Before")
	if len(page) != 2 || r.header.Get("X-Pad-Has-More") != "true" || next != strconv.FormatInt(page[1].Seq, 10) {
		t.Fatalf("first page: %d rows, headers %v", len(page), r.header)
	}
	var bySeq, byID []padActivity
	h.mustJSON("GET", wsPath("/activity?limit=2&before="+next), nil, 200, &bySeq)
	h.mustJSON("GET", wsPath("/activity?limit=2&before=2026-01-01T00:00:00Z&before_id="+page[1].ID), nil, 200, &byID)
	if len(bySeq) != 2 || bySeq[0].ID != all[2].ID || bySeq[1].ID != all[3].ID {
		t.Errorf("before=%s gave %+v", next, bySeq)
	}
	if len(byID) != 2 || byID[0].ID != all[2].ID {
		t.Errorf("before_id gave %+v", byID)
	}
	r = h.mustJSON("GET", wsPath("/activity?before="+strconv.FormatInt(all[len(all)-2].Seq, 10)), nil, 200, &page)
	if len(page) != 1 || r.header.Get("X-Pad-Has-More") != "false" || r.header.Get("X-Pad-Next-Before") != "" {
		t.Errorf("last page: %d rows, headers %v", len(page), r.header)
	}
	h.wantError("GET", wsPath("/activity?before=soon"), nil, 400, "bad_request")
	h.wantError("GET", wsPath("/activity?before_id=0190a0a0-0000-7000-8000-000000000000"), nil, 400, "bad_request")
}

// Pad pages its activity with offset (newest first); padd does too, up
// to storage.MaxActivityOffset, and a reader past it is told to page by
// before_id.
func TestActivityOffset(t *testing.T) {
	h := newHarness(t)
	for _, title := range []string{"A", "B", "C", "D", "E"} {
		h.task(title)
	}
	var all, page []padActivity
	h.mustJSON("GET", wsPath("/activity?action=created"), nil, 200, &all)
	h.mustJSON("GET", wsPath("/activity?action=created&limit=2&offset=2"), nil, 200, &page)
	if len(all) != 5 || len(page) != 2 || page[0].ID != all[2].ID || page[1].ID != all[3].ID {
		t.Fatalf("offset 2 of %d rows: %+v", len(all), page)
	}
	h.wantError("GET", wsPath("/activity?offset=-1"), nil, 400, "bad_request")
	h.wantError("GET", wsPath(fmt.Sprintf("/activity?offset=%d", views.MaxActivityOffset+1)), nil, 400, "validation_error")
}

// WS-08: the audit log is every live workspace's activity in one list,
// newest first, over the last days (default 30), filtered by action,
// actor and workspace, paged by offset within a bounded reach; bad
// params get the coded envelope.
func TestAuditLog(t *testing.T) {
	h := newHarness(t)
	h.srv.now = h.clock.now
	old := h.task("Old")
	h.clock.advance(40 * 24 * time.Hour)
	h.mustJSON("POST", "/api/v1/workspaces", map[string]any{"name": "Other"}, 201, nil)
	h.mustJSON("POST", "/api/v1/workspaces/other/collections/tasks/items", map[string]any{"title": "Elsewhere"}, 201, nil)
	h.clock.advance(time.Second)
	h.mustJSON("POST", wsPath("/items/"+old.Ref+"/comments"), map[string]any{"body": "still here"}, 201, nil, "X-Pad-Agent", "bot")

	get := func(q string) ([]padActivity, reply) {
		t.Helper()
		var rows []padActivity
		r := h.mustJSON("GET", "/api/v1/audit-log"+q, nil, 200, &rows)
		return rows, r
	}
	// Other's two entries are of one second: newest (by seq) first.
	recent, _ := get("")
	if len(recent) != 3 || recent[0].Action != "commented" || recent[0].Actor != "agent" || recent[0].ItemRef != old.Ref ||
		recent[1].ItemTitle != "Elsewhere" || recent[2].Action != "workspace_created" || recent[0].WorkspaceID == recent[1].WorkspaceID ||
		recent[1].WorkspaceID != recent[2].WorkspaceID {
		t.Fatalf("the last 30 days: %+v", recent)
	}
	all, _ := get("?days=60")
	if len(all) != 5 || all[3].ItemRef != old.Ref || all[3].Action != "created" || all[4].Action != "workspace_created" {
		t.Fatalf("the last 60 days: %+v", all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].CreatedAt.After(all[i-1].CreatedAt) {
			t.Errorf("not newest first: %v then %v", all[i-1].CreatedAt, all[i].CreatedAt)
		}
	}
	if rows, _ := get("?days=60&workspace=other"); len(rows) != 2 || rows[0].ItemTitle != "Elsewhere" {
		t.Errorf("one workspace: %+v", rows)
	}
	if rows, _ := get("?days=60&action=created"); len(rows) != 2 {
		t.Errorf("created: %+v", rows)
	}
	for _, q := range []string{"?days=60&actor=agent", "?days=60&user=agent"} {
		if rows, _ := get(q); len(rows) != 1 || rows[0].ActorName != "bot" {
			t.Errorf("%s: %+v", q, rows)
		}
	}
	page, r := get("?days=60&limit=1&offset=1")
	if len(page) != 1 || page[0].ID != all[1].ID || r.header.Get("X-Pad-Has-More") != "true" || r.header.Get("X-Pad-Next-Offset") != "2" {
		t.Errorf("a page of one at 1: %+v %v", page, r.header)
	}
	if _, r := get("?days=60&limit=5"); r.header.Get("X-Pad-Has-More") != "false" {
		t.Errorf("the whole log says there is more: %v", r.header)
	}
	for q, code := range map[string]string{"?days=0": "bad_request", "?days=x": "bad_request", "?days=-2": "bad_request",
		"?actor=robot": "validation_error", "?limit=0": "invalid_limit", "?offset=-1": "bad_request",
		"?offset=990&limit=50": "bad_request"} {
		h.wantError("GET", "/api/v1/audit-log"+q, nil, 400, code)
	}
	h.wantError("GET", "/api/v1/audit-log?workspace=nope", nil, 404, "not_found")
	// A window past the bound is the bound, not an overflow.
	if rows, _ := get("?days=999999999"); len(rows) != 5 {
		t.Errorf("the widest window: %+v", rows)
	}
}
