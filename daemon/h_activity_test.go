package daemon

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/padd/padd/storage"
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
	h.wantError("GET", wsPath(fmt.Sprintf("/activity?offset=%d", storage.MaxActivityOffset+1)), nil, 400, "validation_error")
}
