package daemon

import (
	"reflect"
	"testing"

	"github.com/padd/padd/api"
)

// GET .../tags counts the live items carrying each tag, once per item,
// the most used first and then by tag; archived items and the items of
// an archived collection are not counted, as they are in no list.
func TestTagsCountLiveItems(t *testing.T) {
	h := newHarness(t)
	var empty []api.TagCount
	r := h.mustJSON("GET", wsPath("/tags"), nil, 200, &empty)
	if string(r.body) != "[]\n" {
		t.Fatalf("no tags: %q", r.body)
	}
	h.task("One", "tags", []string{"ux", "api"})
	h.task("Two", "tags", []string{"api", "api"})
	gone := h.task("Three", "tags", []string{"api", "zeta"})
	h.task("Four", "tags", []string{"beta"})
	h.create("ideas", map[string]any{"title": "Idea", "tags": []string{"ux", "later"}})
	h.mustJSON("DELETE", wsPath("/items/"+gone.Ref), nil, 204, nil)
	h.mustJSON("DELETE", wsPath("/collections/ideas"), nil, 204, nil)
	var got []api.TagCount
	h.mustJSON("GET", wsPath("/tags"), nil, 200, &got)
	want := []api.TagCount{{Tag: "api", Count: 2}, {Tag: "beta", Count: 1}, {Tag: "ux", Count: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tags = %+v, want %+v", got, want)
	}
	h.wantError("GET", "/api/v1/workspaces/nope/tags", nil, 404, "not_found")
}
