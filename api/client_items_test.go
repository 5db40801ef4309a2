package api

import "testing"

func TestItemQueryValues(t *testing.T) {
	q := ItemQuery{Status: []string{"open", "in-progress"}, Priority: "high", Parent: "PLAN-1", Tag: "x",
		Role: "impl", NonTerminal: true, IncludeArchived: true, Unparented: false, Sort: "priority:desc",
		Limit: 200, Offset: 400, Fields: map[string][]string{"effort": {"s", "m"}, "status": {"done"}}}
	got := q.Values().Encode()
	// Keys are sorted by url.Values.Encode; a named flag beats a field
	// filter of the same key (status).
	want := "agent_role_id=impl&effort=s%2Cm&include_archived=true&limit=200&non_terminal=true&offset=400&parent=PLAN-1&priority=high&sort=priority%3Adesc&status=open%2Cin-progress&tag=x"
	if got != want {
		t.Errorf("Values() =\n %s\nwant\n %s", got, want)
	}
	if got := (ItemQuery{}).Values().Encode(); got != "" {
		t.Errorf("zero query sends %q", got)
	}
}
