package daemon

import (
	"slices"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// padComment is the comment as Pad's CLI decodes it (models.Comment):
// every member's JSON type must match or the CLI fails.
type padComment struct {
	ID          string    `json:"id"`
	ItemID      string    `json:"item_id"`
	WorkspaceID string    `json:"workspace_id"`
	Author      string    `json:"author"`
	UserID      string    `json:"user_id"`
	Body        string    `json:"body"`
	CreatedBy   string    `json:"created_by"`
	Source      string    `json:"source"`
	ParentID    string    `json:"parent_id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	ItemTitle   string    `json:"item_title"`
	ItemSlug    string    `json:"item_slug"`
	Edited      bool      `json:"edited"`
	Deleted     bool      `json:"deleted"`
}

func TestCommentsAddListAndShapes(t *testing.T) {
	h := newHarness(t)
	it := h.task("Write docs")
	var c padComment
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "first"}, 201, &c)
	if c.ID == "" || c.ItemID != it.ID || c.WorkspaceID != it.WorkspaceID || c.Body != "first" ||
		c.Author != "Local User" || c.UserID != "local" || c.CreatedBy != "user" || c.Source != "cli" ||
		c.ItemTitle != "Write docs" || c.ItemSlug != it.Slug || c.Edited || c.Deleted || c.CreatedAt.IsZero() {
		t.Errorf("created comment = %+v", c)
	}
	var byAgent padComment
	h.mustJSON("POST", wsPath("/items/"+it.Slug+"/comments"), map[string]any{"body": "second"}, 201, &byAgent, "X-Pad-Agent", "claude-code")
	if byAgent.CreatedBy != "agent" || byAgent.Author != "claude-code" || byAgent.UserID != "" {
		t.Errorf("agent comment = %+v", byAgent)
	}
	var list []padComment
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	if len(list) != 2 || list[0].ID != c.ID || list[1].ID != byAgent.ID {
		t.Fatalf("list = %+v, want first then second", list)
	}
	// An item without comments answers [], not null.
	h.task("Quiet")
	r := h.mustJSON("GET", wsPath("/items/TASK-2/comments"), nil, 200, nil)
	if string(r.body) != "[]\n" {
		t.Errorf("empty list body = %q", r.body)
	}
}

func TestCommentRefusals(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	h.wantError("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "  "}, 400, "bad_request")
	h.wantError("POST", wsPath("/items/TASK-9/comments"), map[string]any{"body": "x"}, 404, "not_found")
	h.wantError("GET", wsPath("/items/TASK-9/comments"), nil, 404, "not_found")
	h.wantError("POST", "/api/v1/workspaces/nope/items/TASK-1/comments", map[string]any{"body": "x"}, 404, "not_found")
	h.mustJSON("DELETE", wsPath("/items/TASK-1"), nil, 204, nil)
	h.wantError("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "x"}, 409, "archived")
	// Archived items' comments can still be read.
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, nil)
}

func TestCommentReplies(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	h.task("B")
	var root, viaParent, viaReplyTo, viaRoute padComment
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "root"}, 201, &root)
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "r1", "parent_id": root.ID}, 201, &viaParent)
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "r2", "reply_to": root.ID}, 201, &viaReplyTo)
	h.mustJSON("POST", wsPath("/comments/"+root.ID+"/replies"), map[string]any{"body": "r3"}, 201, &viaRoute)
	for _, r := range []padComment{viaParent, viaReplyTo, viaRoute} {
		if r.ParentID != root.ID || r.ItemID != root.ItemID {
			t.Errorf("reply %q: parent %q item %q, want %q on %q", r.Body, r.ParentID, r.ItemID, root.ID, root.ItemID)
		}
	}
	h.wantError("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "x", "parent_id": root.ID, "reply_to": viaParent.ID}, 400, "bad_request")
	// A parent on another item is a bad parameter, not a missing item.
	h.wantError("POST", wsPath("/items/TASK-2/comments"), map[string]any{"body": "x", "parent_id": root.ID}, 400, "validation_error")
	e := h.wantError("POST", wsPath("/comments/0190a0a0-0000-7000-8000-000000000000/replies"), map[string]any{"body": "x"}, 404, "not_found")
	if e.Message != "Parent comment not found" {
		t.Errorf("missing parent message = %q", e.Message)
	}
}

func TestCommentIdempotency(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	var first, again, fromBody padComment
	r1 := h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "once"}, 201, &first, "Idempotency-Key", "k-1")
	r2 := h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "once"}, 201, &again, "Idempotency-Key", "k-1")
	if r1.header.Get("Idempotent-Replayed") != "" || r2.header.Get("Idempotent-Replayed") != "true" || again.ID != first.ID {
		t.Errorf("replay: first %q (replayed %q), again %q (replayed %q)", first.ID, r1.header.Get("Idempotent-Replayed"), again.ID, r2.header.Get("Idempotent-Replayed"))
	}
	// The key may move from the header into the body: same request.
	r3 := h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "once", "op_key": "k-1"}, 201, &fromBody)
	if r3.header.Get("Idempotent-Replayed") != "true" || fromBody.ID != first.ID {
		t.Errorf("op_key replay = %q (replayed %q)", fromBody.ID, r3.header.Get("Idempotent-Replayed"))
	}
	h.wantError("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "different"}, 422, "idempotency_key_reused", "Idempotency-Key", "k-1")
	var list []padComment
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	if len(list) != 1 {
		t.Errorf("%d comments after replays, want 1", len(list))
	}
}

func TestCommentEditAndItemScope(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	h.task("B")
	var c padComment
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "v1"}, 201, &c)
	h.clock.advance(2 * time.Second)
	var edited padComment
	h.mustJSON("PATCH", wsPath("/comments/"+c.ID), map[string]any{"body": "v2"}, 200, &edited)
	if edited.Body != "v2" || !edited.Edited || !edited.UpdatedAt.After(edited.CreatedAt) {
		t.Errorf("edited = %+v", edited)
	}
	h.mustJSON("PATCH", wsPath("/items/TASK-1/comments/"+c.ID), map[string]any{"body": "v3"}, 200, &edited)
	if edited.Body != "v3" {
		t.Errorf("item-scoped edit body = %q", edited.Body)
	}
	// Addressed through the wrong item, the comment does not exist.
	h.wantError("PATCH", wsPath("/items/TASK-2/comments/"+c.ID), map[string]any{"body": "x"}, 404, "not_found")
	h.wantError("DELETE", wsPath("/items/TASK-2/comments/"+c.ID), nil, 404, "not_found")
	h.wantError("PATCH", wsPath("/comments/"+c.ID), map[string]any{}, 400, "bad_request")
	h.wantError("PATCH", wsPath("/comments/"+c.ID), map[string]any{"body": " "}, 400, "bad_request")
	h.mustJSON("DELETE", wsPath("/items/TASK-1/comments/"+c.ID), nil, 204, nil)
	h.wantError("PATCH", wsPath("/comments/"+c.ID), map[string]any{"body": "x"}, 404, "not_found")
}

func TestCommentTombstones(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	var root, reply padComment
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "root"}, 201, &root)
	h.mustJSON("POST", wsPath("/comments/"+root.ID+"/replies"), map[string]any{"body": "reply"}, 201, &reply)
	h.mustJSON("DELETE", wsPath("/comments/"+root.ID), nil, 204, nil)
	var list []padComment
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	if len(list) != 2 || !list[0].Deleted || list[0].Body != "" || list[0].Author != "Local User" || list[1].ParentID != root.ID {
		t.Fatalf("after deleting a comment with a reply: %+v", list)
	}
	h.wantError("PATCH", wsPath("/comments/"+root.ID), map[string]any{"body": "x"}, 409, "comment_deleted")
	h.wantError("POST", wsPath("/comments/"+root.ID+"/replies"), map[string]any{"body": "x"}, 409, "comment_deleted")
	h.wantError("DELETE", wsPath("/comments/"+root.ID), nil, 404, "not_found")
	// Deleting the last reply takes the tombstone with it.
	h.mustJSON("DELETE", wsPath("/comments/"+reply.ID), nil, 204, nil)
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	if len(list) != 0 {
		t.Errorf("comments left: %+v", list)
	}
}

func TestUpdateCommentBecomesAComment(t *testing.T) {
	h := newHarness(t)
	h.task("A")
	var it api.Item
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"fields_patch": map[string]any{"status": "in-progress"},
		"comment": "  starting now  "}, 200, &it)
	var list []padComment
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	if len(list) != 1 || list[0].Body != "starting now" || list[0].ItemID != it.ID {
		t.Fatalf("comments after an update with comment: %+v", list)
	}
	// A blank comment records nothing.
	h.mustJSON("PATCH", wsPath("/items/TASK-1"), map[string]any{"title": "A2", "comment": " "}, 200, nil)
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	if len(list) != 1 {
		t.Errorf("%d comments after a blank update comment, want 1", len(list))
	}
}

func TestCapabilitiesAdvertiseItemScopedCommentWrites(t *testing.T) {
	h := newHarness(t)
	var caps api.Capabilities
	h.mustJSON("GET", "/api/v1/server/capabilities", nil, 200, &caps)
	if !slices.Contains(caps.Capabilities, "item_scoped_comment_writes") {
		t.Errorf("capabilities = %v", caps.Capabilities)
	}
}
