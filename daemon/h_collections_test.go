package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

// An archived collection can still be updated, and a restore answers
// with the collection's live counts.
func TestArchivedCollectionUpdateAndRestore(t *testing.T) {
	h := newHarness(t)
	h.task("first")
	h.task("second")
	h.mustJSON("DELETE", "/api/v1/workspaces/w/collections/tasks", nil, 204, nil)
	var up api.Collection
	h.mustJSON("PATCH", "/api/v1/workspaces/w/collections/tasks", map[string]any{"description": "parked"}, 200, &up)
	if up.Description != "parked" || up.ArchivedAt == nil {
		t.Fatalf("update of an archived collection: %+v", up)
	}
	var back api.Collection
	h.mustJSON("POST", "/api/v1/workspaces/w/archived-collections/tasks/restore", nil, 200, &back)
	if back.ArchivedAt != nil || back.ItemCount != 2 || back.ActiveItemCount != 2 {
		t.Fatalf("restored collection: archived=%v items=%d active=%d", back.ArchivedAt, back.ItemCount, back.ActiveItemCount)
	}
}
