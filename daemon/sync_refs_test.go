package daemon

import (
	"strconv"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
)

// An item made while the workspace is linked answers with its provisional
// ref; once the remote numbers it, the server's ref is its ref and the
// provisional one still names it on every route that takes a ref.
func TestProvisionalRefResolvesAfterAdoption(t *testing.T) {
	h := newHarness(t)
	if err := syncstate.Of(h.store).LinkSync("w", storage.RemoteLink{BaseURL: "http://127.0.0.1:1", RemoteSlug: "team", TokenName: "team"}); err != nil {
		t.Fatal(err)
	}
	made := h.task("written on a plane")
	if made.Ref != "TASK-L1" {
		t.Fatalf("ref of an item made while linked = %s, want TASK-L1", made.Ref)
	}
	var got api.Item
	h.mustJSON("GET", wsPath("/items/TASK-L1"), nil, 200, &got)
	if got.ID != made.ID {
		t.Fatalf("GET TASK-L1 = %s", got.ID)
	}

	if _, err := h.store.AdoptRemoteRef("w", made.ID, 41); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"TASK-41", "TASK-L1", "task-l1"} {
		h.mustJSON("GET", wsPath("/items/"+ref), nil, 200, &got)
		if got.ID != made.ID || got.Ref != "TASK-41" || got.ItemNumber == nil || *got.ItemNumber != 41 {
			t.Fatalf("GET %s after adoption = %s %s", ref, got.ID, got.Ref)
		}
	}
	h.mustJSON("PATCH", wsPath("/items/TASK-L1"), map[string]any{"title": "landed"}, 200, &got)
	if got.Title != "landed" || got.Ref != "TASK-41" {
		t.Fatalf("PATCH by the provisional ref = %+v", got)
	}

	// The search index follows the renumbering: the server's ref finds it.
	head, err := views.Of(h.store).Head("w")
	if err != nil {
		t.Fatal(err)
	}
	var found api.SearchResponse
	h.mustJSON("GET", "/api/v1/search?workspace=w&q=TASK-41&min_seq="+strconv.FormatInt(head, 10), nil, 200, &found)
	if len(found.Results) != 1 || found.Results[0].Item.ID != made.ID || found.Results[0].Item.Ref != "TASK-41" {
		t.Fatalf("search by the server's ref = %+v", found.Results)
	}
}
