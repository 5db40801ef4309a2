package daemon

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// An item's timeline holds its comments (replies under their parent),
// versions, activity, notes and decisions newest first, leaves out a
// comment's own activity, and pages by (created_at, id) without losing
// or repeating an entry.
func TestItemTimeline(t *testing.T) {
	h := newHarness(t)
	task := h.task("Timeline")
	var c api.Comment
	h.mustJSON("POST", wsPath("/items/"+task.Ref+"/comments"), map[string]any{"body": "first"}, 201, &c)
	h.mustJSON("POST", wsPath("/comments/"+c.ID+"/replies"), map[string]any{"body": "a reply"}, 201, nil)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"content": "one"}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"fields_patch": map[string]any{"status": "in-progress"}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"append_implementation_note": map[string]any{"summary": "Wired it"}}, 200, nil)
	h.mustJSON("PATCH", wsPath("/items/"+task.Ref), map[string]any{"append_decision": map[string]any{"decision": "Use bbolt"}}, 200, nil)

	var full api.Timeline
	h.mustJSON("GET", wsPath("/items/"+task.Ref+"/timeline"), nil, 200, &full)
	kinds := map[string]int{}
	for i, e := range full.Entries {
		kinds[e.Kind]++
		if i > 0 && e.CreatedAt.After(full.Entries[i-1].CreatedAt) {
			t.Errorf("entry %d is newer than the one before it", i)
		}
		if e.Kind == "activity" && e.Activity.Action == "commented" {
			t.Errorf("a comment's own activity is in the timeline: %+v", e.Activity)
		}
		if e.Kind == "comment" && (e.Comment.Body != "first" || len(e.Comment.Replies) != 1 || e.Comment.Replies[0].Body != "a reply") {
			t.Errorf("comment entry = %+v", e.Comment)
		}
		if e.Kind == "note" && e.Note["summary"] != "Wired it" || e.Kind == "decision" && e.Decision["decision"] != "Use bbolt" {
			t.Errorf("structured entry = %+v", e)
		}
	}
	if kinds["comment"] != 1 || kinds["version"] < 2 || kinds["note"] != 1 || kinds["decision"] != 1 || kinds["activity"] < 1 || full.HasMore {
		t.Fatalf("kinds = %v has_more=%v", kinds, full.HasMore)
	}

	// Two at a time, with the last entry's cursor, reads the same stream.
	var paged []string
	q := url.Values{"limit": {"2"}}
	for range 50 {
		var p api.Timeline
		h.mustJSON("GET", wsPath("/items/"+task.Ref+"/timeline?"+q.Encode()), nil, 200, &p)
		for _, e := range p.Entries {
			paged = append(paged, e.ID)
		}
		if !p.HasMore || len(p.Entries) == 0 {
			break
		}
		last := p.Entries[len(p.Entries)-1]
		q.Set("before", last.CreatedAt.Format(time.RFC3339))
		q.Set("before_id", last.ID)
	}
	var want []string
	for _, e := range full.Entries {
		want = append(want, e.ID)
	}
	if strings.Join(paged, ",") != strings.Join(want, ",") {
		t.Errorf("paged = %v\nwant    %v", paged, want)
	}

	h.wantError("GET", wsPath("/items/"+task.Ref+"/timeline?before=yesterday"), nil, 400, "invalid_cursor")
	h.wantError("GET", wsPath("/items/"+task.Ref+"/timeline?limit=0"), nil, 400, "invalid_limit")
	h.wantError("GET", wsPath("/items/TASK-99/timeline"), nil, 404, "not_found")
}
