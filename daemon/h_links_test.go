package daemon

import (
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// padItemLink and padBacklink are the shapes Pad's CLI decodes
// (models.ItemLink, models.Backlink: updated_at is text there).
type padItemLink struct {
	ID                   string    `json:"id"`
	WorkspaceID          string    `json:"workspace_id"`
	SourceID             string    `json:"source_id"`
	TargetID             string    `json:"target_id"`
	LinkType             string    `json:"link_type"`
	CreatedBy            string    `json:"created_by"`
	CreatedAt            time.Time `json:"created_at"`
	SourceTitle          string    `json:"source_title"`
	TargetTitle          string    `json:"target_title"`
	SourceSlug           string    `json:"source_slug"`
	TargetSlug           string    `json:"target_slug"`
	SourceRef            string    `json:"source_ref"`
	TargetRef            string    `json:"target_ref"`
	SourceCollectionSlug string    `json:"source_collection_slug"`
	TargetCollectionSlug string    `json:"target_collection_slug"`
	SourceStatus         string    `json:"source_status"`
	TargetStatus         string    `json:"target_status"`
}

type padBacklink struct {
	SourceItemID         string  `json:"source_item_id"`
	SourceRef            string  `json:"source_ref"`
	SourceTitle          string  `json:"source_title"`
	SourceCollectionSlug string  `json:"source_collection_slug"`
	SourceCollectionIcon string  `json:"source_collection_icon"`
	Snippet              string  `json:"snippet"`
	DisplayText          *string `json:"display_text"`
	UpdatedAt            string  `json:"updated_at"`
}

func TestLinksBothDirectionsEnriched(t *testing.T) {
	h := newHarness(t)
	a, b := h.task("Alpha"), h.task("Beta")
	var l padItemLink
	// Pad's CLI posts to the source's slug with the target's id.
	h.mustJSON("POST", wsPath("/items/"+a.Slug+"/links"), map[string]any{"target_id": b.ID, "link_type": "blocks"}, 201, &l)
	want := padItemLink{ID: l.ID, WorkspaceID: a.WorkspaceID, SourceID: a.ID, TargetID: b.ID, LinkType: "blocks",
		CreatedBy: "user", CreatedAt: l.CreatedAt, SourceTitle: "Alpha", TargetTitle: "Beta", SourceSlug: a.Slug,
		TargetSlug: b.Slug, SourceRef: "TASK-1", TargetRef: "TASK-2", SourceCollectionSlug: "tasks",
		TargetCollectionSlug: "tasks", SourceStatus: "open", TargetStatus: "open"}
	if l != want || l.ID == "" || l.CreatedAt.IsZero() {
		t.Fatalf("created link\n got %+v\nwant %+v", l, want)
	}
	for _, ref := range []string{a.Slug, b.Slug} {
		var list []padItemLink
		h.mustJSON("GET", wsPath("/items/"+ref+"/links"), nil, 200, &list)
		if len(list) != 1 || list[0] != want {
			t.Errorf("links of %s = %+v, want the one link seen whole", ref, list)
		}
	}
	var none []padItemLink
	c := h.task("Gamma")
	r := h.mustJSON("GET", wsPath("/items/"+c.Slug+"/links"), nil, 200, &none)
	if string(r.body) != "[]\n" {
		t.Errorf("no links body = %q", r.body)
	}
}

func TestLinkTypesAndSpellings(t *testing.T) {
	h := newHarness(t)
	a, b, c, d := h.task("A"), h.task("B"), h.task("C"), h.task("D")
	var l padItemLink
	// blocked-by is stored the other way round: the blocker is the source.
	h.mustJSON("POST", wsPath("/items/TASK-3/links"), map[string]any{"target_id": a.ID, "link_type": "blocked_by"}, 201, &l)
	if l.SourceID != a.ID || l.TargetID != c.ID || l.LinkType != "blocks" {
		t.Errorf("blocked_by link = %+v", l)
	}
	for _, spelled := range []string{"split-from", "split_from"} {
		var sl padItemLink
		target := b.ID
		if spelled == "split_from" {
			target = d.ID
		}
		h.mustJSON("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": target, "link_type": spelled}, 201, &sl)
		if sl.LinkType != "split_from" {
			t.Errorf("%s stored as %q, want Pad's split_from", spelled, sl.LinkType)
		}
	}
	h.mustJSON("POST", wsPath("/items/TASK-2/links"), map[string]any{"target_id": "TASK-4", "link_type": "supersedes"}, 201, &l)
	if l.TargetID != d.ID || l.LinkType != "supersedes" {
		t.Errorf("a target named by ref: %+v", l)
	}
	h.mustJSON("POST", wsPath("/items/TASK-2/links"), map[string]any{"target_id": c.ID, "link_type": "implements"}, 201, &l)
	if l.LinkType != "implements" {
		t.Errorf("implements = %q", l.LinkType)
	}
}

func TestLinkRefusals(t *testing.T) {
	h := newHarness(t)
	a, b := h.task("A"), h.task("B")
	var l padItemLink
	h.mustJSON("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": b.ID, "link_type": "blocks"}, 201, &l)
	h.wantError("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": b.ID, "link_type": "blocks"}, 409, "conflict")
	// The same relationship asked for from the other end is the same link.
	h.wantError("POST", wsPath("/items/TASK-2/links"), map[string]any{"target_id": a.ID, "link_type": "blocked-by"}, 409, "conflict")
	h.wantError("POST", wsPath("/items/TASK-2/links"), map[string]any{"target_id": a.ID, "link_type": "blocks"}, 400, "validation_error") // a cycle
	h.wantError("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": a.ID, "link_type": "blocks"}, 400, "bad_request")
	h.wantError("POST", wsPath("/items/TASK-1/links"), map[string]any{"link_type": "blocks"}, 400, "bad_request")
	h.wantError("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": b.ID, "link_type": "friends"}, 400, "bad_request")
	h.wantError("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": b.ID, "link_type": "parent"}, 400, "bad_request")
	h.wantError("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": "TASK-99", "link_type": "blocks"}, 400, "bad_request")
	h.wantError("POST", wsPath("/items/TASK-99/links"), map[string]any{"target_id": b.ID, "link_type": "blocks"}, 404, "not_found")
	h.mustJSON("DELETE", wsPath("/links/"+l.ID), nil, 204, nil)
	h.wantError("DELETE", wsPath("/links/"+l.ID), nil, 404, "not_found")
	h.wantError("DELETE", wsPath("/links/not-an-id"), nil, 404, "not_found")
	var list []padItemLink
	h.mustJSON("GET", wsPath("/items/TASK-1/links"), nil, 200, &list)
	if len(list) != 0 {
		t.Errorf("links after delete: %+v", list)
	}
	// No type is Pad's default, related.
	h.mustJSON("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": b.ID}, 201, &l)
	if l.LinkType != "related" {
		t.Errorf("a link with no type is %q, want related", l.LinkType)
	}
}

func TestDeps(t *testing.T) {
	h := newHarness(t)
	a, b, c := h.task("A"), h.task("B"), h.task("C")
	h.mustJSON("POST", wsPath("/items/TASK-1/links"), map[string]any{"target_id": b.ID, "link_type": "blocks"}, 201, nil)
	h.mustJSON("POST", wsPath("/items/TASK-2/links"), map[string]any{"target_id": c.ID, "link_type": "blocks"}, 201, nil)
	var g api.Deps
	h.mustJSON("GET", wsPath("/items/TASK-1/deps"), nil, 200, &g)
	if g.Item.ID != a.ID || g.Item.Ref != "TASK-1" || g.Item.State != "open" || len(g.BlockedBy) != 0 || g.Truncated {
		t.Errorf("deps of A = %+v", g)
	}
	if len(g.Blocks) != 2 || g.Blocks[0].Ref != "TASK-2" || g.Blocks[0].Depth != 1 || g.Blocks[0].LinkID == "" ||
		g.Blocks[1].Ref != "TASK-3" || g.Blocks[1].Depth != 2 || g.Blocks[1].Via != "TASK-2" {
		t.Errorf("A blocks = %+v", g.Blocks)
	}
	h.mustJSON("GET", wsPath("/items/TASK-3/deps"), nil, 200, &g)
	if len(g.Blocks) != 0 || len(g.BlockedBy) != 2 || g.BlockedBy[0].Ref != "TASK-2" {
		t.Errorf("C = %+v", g)
	}
	h.wantError("GET", wsPath("/items/TASK-9/deps"), nil, 404, "not_found")
}

func TestBacklinks(t *testing.T) {
	h := newHarness(t)
	h.task("Target")
	h.task("Mentions once", "content", "see [[TASK-1]] for context")
	h.task("Mentions twice", "content", "[[TASK-1|the target]] and again [[TASK-1]]")
	var bl []padBacklink
	r := h.mustJSON("GET", wsPath("/items/TASK-1/backlinks"), nil, 200, &bl)
	if len(bl) != 3 || r.header.Get("X-Pad-Has-More") != "false" {
		t.Fatalf("backlinks = %+v (has more %q)", bl, r.header.Get("X-Pad-Has-More"))
	}
	for _, b := range bl {
		if _, err := time.Parse(time.RFC3339, b.UpdatedAt); err != nil || b.SourceCollectionSlug != "tasks" || b.Snippet == "" {
			t.Errorf("backlink %+v: updated_at must be RFC 3339 text (%v)", b, err)
		}
	}
	var shown int
	for _, b := range bl {
		if b.DisplayText != nil && *b.DisplayText == "the target" {
			shown++
		}
	}
	if shown != 1 {
		t.Errorf("%d backlinks carry the display text, want 1", shown)
	}
	r = h.mustJSON("GET", wsPath("/items/TASK-1/backlinks?limit=2"), nil, 200, &bl)
	if len(bl) != 2 || r.header.Get("X-Pad-Has-More") != "true" || r.header.Get("X-Pad-Next-Offset") != "2" {
		t.Errorf("limit=2: %d rows, has more %q, next %q", len(bl), r.header.Get("X-Pad-Has-More"), r.header.Get("X-Pad-Next-Offset"))
	}
	h.mustJSON("GET", wsPath("/items/TASK-1/backlinks?limit=2&offset=2"), nil, 200, &bl)
	if len(bl) != 1 {
		t.Errorf("offset=2: %d rows, want 1", len(bl))
	}
	h.wantError("GET", wsPath("/items/TASK-1/backlinks?offset=-1"), nil, 400, "bad_request")
	h.wantError("GET", wsPath("/items/TASK-9/backlinks"), nil, 404, "not_found")
}
