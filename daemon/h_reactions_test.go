package daemon

import (
	"net/url"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// The answers checked against a Pad server (docs/INVENTORY.md, CMT-04):
// 201 with the reaction for a new one and for the same one again, 204 for
// a removal, 404 "Reaction not found" for one not there, 400
// validation_error "emoji is required", and the reactions in the
// comment's JSON, each with Pad's members.
func TestReactionsOverHTTP(t *testing.T) {
	h := newHarness(t)
	h.task("React")
	var c api.Comment
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "nice"}, 201, &c)
	base := wsPath("/comments/" + c.ID + "/reactions")

	var first, again api.Reaction
	h.mustJSON("POST", base, map[string]any{"emoji": "👍"}, 201, &first)
	if first.ID == "" || first.CommentID != c.ID || first.UserID != localUserID || first.Actor != "user" || first.Emoji != "👍" || first.CreatedAt.IsZero() {
		t.Fatalf("reaction %+v", first)
	}
	h.mustJSON("POST", base, map[string]any{"emoji": "👍"}, 201, &again)
	if again.ID != first.ID {
		t.Fatalf("the same reaction again made another: %+v then %+v", first, again)
	}
	h.mustJSON("POST", base, map[string]any{"emoji": "🎉"}, 201, nil, "X-Pad-Agent", "claude-code")
	var list []api.Comment
	h.mustJSON("GET", wsPath("/items/TASK-1/comments"), nil, 200, &list)
	rs := list[0].Reactions
	if len(rs) != 2 || rs[0].Emoji != "👍" || rs[0].ActorName != "Local User" || rs[1].Emoji != "🎉" || rs[1].Actor != "agent" || rs[1].ActorName != "claude-code" {
		t.Fatalf("listed reactions %+v", rs)
	}

	h.mustJSON("DELETE", base+"/"+url.PathEscape("👍"), nil, 204, nil)
	if e := h.wantError("DELETE", base+"/"+url.PathEscape("👍"), nil, 404, model.CodeNotFound); e.Message != "Reaction not found" {
		t.Fatalf("absent reaction: %+v", e)
	}
	h.wantError("POST", base, map[string]any{"emoji": "  "}, 400, model.CodeValidation)
	h.wantError("POST", base, map[string]any{}, 400, model.CodeValidation)
	h.wantError("POST", base, map[string]any{"emoji": "a\u0007"}, 400, model.CodeValidation)
	long := h.wantError("POST", base, map[string]any{"emoji": "123456789012345678901234567890123"}, 400, model.CodeValidation)
	if long.Details["limit"] != float64(model.LimitEmoji.Max) {
		t.Fatalf("over-long emoji: %+v", long)
	}
	h.wantError("POST", wsPath("/comments/00000000-0000-7000-8000-000000000000/reactions"), map[string]any{"emoji": "👍"}, 404, model.CodeNotFound)
	// Pad has no item-scoped reaction route.
	h.wantError("POST", wsPath("/items/TASK-1/comments/"+c.ID+"/reactions"), map[string]any{"emoji": "👍"}, 404, model.CodeNotFound)

	// An emoji with a slash or a space travels escaped in the path.
	h.mustJSON("POST", base, map[string]any{"emoji": "a/b c"}, 201, nil)
	h.mustJSON("DELETE", base+"/"+url.PathEscape("a/b c"), nil, 204, nil)
}

// A reaction is on the event stream under Pad's names, with its item's
// id (Pad's syncer reads the item's comments on it) and the comment's.
func TestReactionEvents(t *testing.T) {
	h := newHarness(t)
	s := h.openSSE("/api/v1/events?workspace=w")
	s.connected()
	it := h.task("React")
	var c api.Comment
	h.mustJSON("POST", wsPath("/items/TASK-1/comments"), map[string]any{"body": "nice"}, 201, &c)
	h.mustJSON("POST", wsPath("/comments/"+c.ID+"/reactions"), map[string]any{"emoji": "👍"}, 201, nil)
	h.mustJSON("DELETE", wsPath("/comments/"+c.ID+"/reactions/"+url.PathEscape("👍")), nil, 204, nil)
	for _, typ := range []string{"item_created", "comment_created", "reaction_added", "reaction_removed"} {
		if _, ev := s.change(); ev.Type != typ || ev.ItemID != it.ID || (typ != "item_created" && ev.EntityID != c.ID) {
			t.Fatalf("event %+v, want %s on item %s", ev, typ, it.ID)
		}
	}
}
