package mcpstdio_test

import (
	"reflect"
	"strings"
	"testing"
)

// pad_item search is pad_search query under pad_item (Pad's catalog has
// both): the same params, the same answer over padd's index, the
// collection resolved exact-first, and the query's bounds refused alike.
func TestItemSearch(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Item Search")
	cs := e.session(sessionOpts{noRoots: true})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})
	ok(t, cs, "pad_collection", map[string]any{"action": "create", "name": "Task", "slug": "task", "prefix": "TK"})
	inTasks := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "Wire the gateway",
		"priority": "high"}).str("ref")
	inTask := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "task", "title": "Gateway notes"}).str("ref")
	ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "ideas", "title": "Unrelated"})

	for _, args := range []map[string]any{
		{"query": "gateway"},
		{"query": "gateway", "collection": "tasks", "priority": "high"},
		{"query": "gateway", "sort": "title", "limit": 1, "offset": 1},
	} {
		viaItem := map[string]any{"action": "search"}
		viaSearch := map[string]any{"action": "query"}
		for k, v := range args {
			viaItem[k], viaSearch[k] = v, v
		}
		a, b := ok(t, cs, "pad_item", viaItem), ok(t, cs, "pad_search", viaSearch)
		if !reflect.DeepEqual(a.value, b.value) || !reflect.DeepEqual(a.texts[1:], b.texts[1:]) {
			t.Errorf("%v: pad_item search %s, pad_search query %s", args, a.texts, b.texts)
		}
	}
	all := ok(t, cs, "pad_item", map[string]any{"action": "search", "query": "gateway"})
	if all.str("total") != "2" || len(all.list("items")) != 2 || all.str("items", "0", "snippet") == "" {
		t.Errorf("search: %s", all.texts[0])
	}
	// "task" is a collection of its own: exact before the tasks alias.
	if r := ok(t, cs, "pad_item", map[string]any{"action": "search", "query": "gateway", "collection": "task"}); r.str("total") != "1" ||
		r.str("items", "0", "ref") != inTask {
		t.Errorf("collection task: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "search", "query": "gateway", "collection": "tasks"}); r.str("items", "0", "ref") != inTasks {
		t.Errorf("collection tasks: %s", r.texts[0])
	}
	if r := ok(t, cs, "pad_item", map[string]any{"action": "search", "query": "gateway", "sort": "title", "limit": 1}); r.get("has_more") != true ||
		len(r.list("items")) != 1 {
		t.Errorf("a page of one: %s", r.texts[0])
	}

	refused(t, cs, "pad_item", map[string]any{"action": "search"}, "validation_failed")
	refused(t, cs, "pad_item", map[string]any{"action": "search", "query": "gateway", "ref": inTask}, "validation_failed")
	long := refused(t, cs, "pad_item", map[string]any{"action": "search", "query": strings.Repeat("gateway ", 300)}, "validation_error")
	if long.str("details", "field") != "q" {
		t.Errorf("an over-long query: %s", long.texts[0])
	}
	refused(t, cs, "pad_item", map[string]any{"action": "search", "query": "gateway", "collection": "nowhere"}, "not_found")
}
