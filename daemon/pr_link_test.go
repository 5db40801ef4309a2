package daemon

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// ITM-17: an item update's github_pr links a pull request and
// clear_github_pr removes it. The link is stored as the reserved
// github_pr, answered with Pad's code_context, counted as a change (and
// not when it changes nothing), and carried by an export; a bad link is
// refused with the coded envelope and writes nothing.
func TestPullRequestLink(t *testing.T) {
	h := newHarness(t)
	a := h.task("Linked")
	path := wsPath("/items/" + a.Ref)
	pr := map[string]any{"number": 42, "url": "https://github.com/o/r/pull/42", "title": "Fix the parser",
		"state": "OPEN", "branch": "fix/parser", "repo": "o/r"}

	var linked api.Item
	h.mustJSON("PATCH", path, map[string]any{"github_pr": pr}, 200, &linked)
	want := &api.CodeContext{Provider: "github", Repo: "o/r", Branch: "fix/parser",
		PullRequest: &api.PullRequest{Number: 42, URL: "https://github.com/o/r/pull/42", Title: "Fix the parser", State: "OPEN"}}
	if linked.Seq <= a.Seq || !sameJSON(linked.CodeContext, want) {
		t.Fatalf("link answered seq %d (was %d), code_context %+v", linked.Seq, a.Seq, linked.CodeContext)
	}
	fields, _ := linked.FieldMap()
	if !sameJSON(fields["github_pr"], pr) {
		t.Errorf("stored github_pr %v, want %v", fields["github_pr"], pr)
	}
	var got api.Item
	h.mustJSON("GET", path, nil, 200, &got)
	if !sameJSON(got.CodeContext, want) || got.Fields != linked.Fields {
		t.Errorf("GET after the link: %+v %s", got.CodeContext, got.Fields)
	}
	// The same link again changes nothing.
	var again api.Item
	h.mustJSON("PATCH", path, map[string]any{"github_pr": pr}, 200, &again)
	if again.Seq != linked.Seq {
		t.Errorf("relinking the same PR bumped seq %d -> %d", linked.Seq, again.Seq)
	}
	var acts []api.Activity
	h.mustJSON("GET", wsPath("/items/"+a.Ref+"/activity"), nil, 200, &acts)
	if len(acts) == 0 || !strings.Contains(acts[0].Metadata, "fields.github_pr") {
		t.Errorf("the link is not in the item's activity: %+v", acts)
	}

	// An export carries it.
	exp := h.mustJSON("GET", wsPath("/export"), nil, 200, nil)
	var e api.WorkspaceExport
	if err := json.Unmarshal(exp.body, &e); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range e.Items {
		if it.ID == a.ID {
			found = strings.Contains(it.Fields, `"github_pr":{`) && strings.Contains(it.Fields, "pull/42")
		}
	}
	if !found {
		t.Errorf("the export does not carry the link")
	}

	// Refusals write nothing.
	for name, c := range map[string]struct {
		body any
		code string
	}{
		"number 0":             {map[string]any{"github_pr": map[string]any{"number": 0, "url": "https://github.com/o/r/pull/1"}}, model.CodeValidation},
		"negative number":      {map[string]any{"github_pr": map[string]any{"number": -3, "url": "https://github.com/o/r/pull/1"}}, model.CodeValidation},
		"no url":               {map[string]any{"github_pr": map[string]any{"number": 3}}, model.CodeValidation},
		"relative url":         {map[string]any{"github_pr": map[string]any{"number": 3, "url": "/o/r/pull/3"}}, model.CodeValidation},
		"ftp url":              {map[string]any{"github_pr": map[string]any{"number": 3, "url": "ftp://github.com/o/r"}}, model.CodeValidation},
		"number as text":       {map[string]any{"github_pr": map[string]any{"number": "3", "url": "https://github.com/o/r/pull/3"}}, model.CodeBadRequest},
		"not an object":        {map[string]any{"github_pr": "https://github.com/o/r/pull/3"}, model.CodeBadRequest},
		"a title over a value": {map[string]any{"github_pr": map[string]any{"number": 3, "url": "https://github.com/o/r/pull/3", "title": strings.Repeat("t", model.LimitFieldValue.Max+1)}}, model.CodeValidation},
		"link and clear":       {map[string]any{"github_pr": pr, "clear_github_pr": true}, model.CodeBadRequest},
		"with a full fields":   {map[string]any{"github_pr": pr, "fields": map[string]any{"status": "open"}}, model.CodeBadRequest},
		"through fields_patch": {map[string]any{"fields_patch": map[string]any{"github_pr": pr}}, model.CodeValidation},
	} {
		err := h.wantError("PATCH", path, c.body, 400, c.code)
		if c.code == model.CodeValidation && name != "through fields_patch" && name != "a title over a value" && err.Details["field"] != "github_pr" {
			t.Errorf("%s: details %v", name, err.Details)
		}
	}
	h.mustJSON("GET", path, nil, 200, &got)
	if got.Seq != linked.Seq {
		t.Errorf("a refused link wrote: seq %d -> %d", linked.Seq, got.Seq)
	}

	// clear_github_pr removes it; clearing again changes nothing.
	var cleared api.Item
	h.mustJSON("PATCH", path, map[string]any{"clear_github_pr": true}, 200, &cleared)
	if cleared.CodeContext != nil || strings.Contains(cleared.Fields, "github_pr") || cleared.Seq <= linked.Seq {
		t.Errorf("clear: %+v %s seq %d", cleared.CodeContext, cleared.Fields, cleared.Seq)
	}
	var twice api.Item
	h.mustJSON("PATCH", path, map[string]any{"clear_github_pr": true}, 200, &twice)
	if twice.Seq != cleared.Seq {
		t.Errorf("clearing no link bumped seq %d -> %d", cleared.Seq, twice.Seq)
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var u, v any
	_ = json.Unmarshal(x, &u)
	_ = json.Unmarshal(y, &v)
	xa, _ := json.Marshal(u)
	ya, _ := json.Marshal(v)
	return string(xa) == string(ya)
}
