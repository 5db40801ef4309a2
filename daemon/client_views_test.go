package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// api.Client's calls of the timeline, progress, graph, role board and
// report layout routes read what the routes answer.
func TestViewsClient(t *testing.T) {
	h := newHarness(t)
	c, ctx := h.client(), context.Background()
	plan := h.create("plans", map[string]any{"title": "Plan", "content": "- [x] a\n- [ ] b"})
	task := h.task("One", "parent", plan.Ref)
	tl, err := c.Timeline(ctx, "w", task.Ref, 1, time.Time{}, "")
	if err != nil || len(tl.Entries) != 1 {
		t.Fatalf("timeline = %+v, %v", tl, err)
	}
	last := tl.Entries[0]
	if next, err := c.Timeline(ctx, "w", task.Ref, 1, last.CreatedAt, last.ID); err != nil || len(next.Entries) == 1 && next.Entries[0].ID == last.ID {
		t.Errorf("next page = %+v, %v", next, err)
	}
	if rows, err := c.PlansProgress(ctx, "w"); err != nil || len(rows) != 1 || rows[0].Total != 1 {
		t.Errorf("plans progress = %+v, %v", rows, err)
	}
	if rows, err := c.ChildProgress(ctx, "w", "plans", true); err != nil || len(rows) != 1 {
		t.Errorf("child progress = %+v, %v", rows, err)
	}
	if rows, err := c.CheckboxProgress(ctx, "w", "plans", false); err != nil || len(rows) != 1 || rows[0].Done != 1 || rows[0].Total != 2 {
		t.Errorf("checkbox progress = %+v, %v", rows, err)
	}
	if g, err := c.Graph(ctx, "w", false, task.Ref, 1); err != nil || len(g.Nodes) != 2 || len(g.Edges) != 1 {
		t.Errorf("graph = %+v, %v", g, err)
	}
	if err := c.ReorderRoleBoard(ctx, "w", []api.RoleSortUpdate{{ItemID: task.ID, RoleSortOrder: -1}}); err != nil {
		t.Fatal(err)
	}
	if err := c.ReorderRoleLanes(ctx, "w", []api.RoleOrderUpdate{}); err != nil {
		t.Fatal(err)
	}
	if b, err := c.RoleBoard(ctx, "w", ""); err != nil || len(b.Lanes) != 1 || b.Lanes[0].Items[0].Ref != task.Ref {
		t.Errorf("role board = %+v, %v", b, err)
	}
	if l, err := c.SaveReportLayout(ctx, "w", api.ReportLayout{HiddenCards: []string{"wip"}}); err != nil || l.HiddenCards[0] != "wip" {
		t.Errorf("save layout = %+v, %v", l, err)
	}
	if l, err := c.ReportLayout(ctx, "w"); err != nil || len(l.HiddenCards) != 1 || l.DefaultCollections == nil {
		t.Errorf("layout = %+v, %v", l, err)
	}
}
