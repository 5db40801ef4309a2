package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// A write answers with the workspace's seq after it (api.SeqHeader), and
// a search sent with min_seq at that seq sees the write without waiting
// for writes that came after it: an agent's search waits for its own
// writes, not for every other agent's.
func TestSearchMinSeqWaitsForOwnWrites(t *testing.T) {
	h := newHarness(t)
	var mine api.Item
	r := h.mustJSON("POST", wsPath("/collections/tasks/items"), map[string]any{"title": "mine quokka"}, 201, &mine)
	seq, err := strconv.ParseInt(r.header.Get(api.SeqHeader), 10, 64)
	if err != nil || seq != mine.Seq {
		t.Fatalf("create answered %s %q for an item of seq %d", api.SeqHeader, r.header.Get(api.SeqHeader), mine.Seq)
	}
	if got := h.call("GET", wsPath("/items/"+mine.Ref), nil).header.Get(api.SeqHeader); got != "" {
		t.Errorf("a read answered %s %q", api.SeqHeader, got)
	}
	var found api.SearchResponse
	q := "/api/v1/search?workspace=w&q=quokka&min_seq=" + strconv.FormatInt(seq, 10)
	h.mustJSON("GET", q, nil, 200, &found)
	if found.Total != 1 {
		t.Fatalf("a search at the write's seq found %d, want its item", found.Total)
	}

	// Another writer's item, which the stopped indexer never indexes.
	h.stopIndexer()
	later := h.task("theirs quokka")
	if later.Seq <= seq {
		t.Fatalf("the later write has seq %d, not after %d", later.Seq, seq)
	}
	start := time.Now()
	h.mustJSON("GET", q, nil, 200, &found)
	if found.Total != 1 || found.Results[0].Item.Ref != mine.Ref {
		t.Errorf("search at min_seq %d: %+v, want only %s", seq, found, mine.Ref)
	}
	if took := time.Since(start); took > readYourWrites/2 {
		t.Errorf("the search at min_seq took %v: it waited for a later write", took)
	}
	// Without min_seq the search waits for the head, which the index
	// never reaches: the client gives up first.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.ts.URL+"/api/v1/search?workspace=w&q=quokka", nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	if resp, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		if resp != nil {
			resp.Body.Close()
		}
		t.Errorf("a search without min_seq answered (%v) while the index was behind the head", err)
	}

	for _, bad := range []string{"-1", "x", "1.5"} {
		e := h.wantError("GET", "/api/v1/search?workspace=w&q=quokka&min_seq="+bad, nil, 400, "bad_request")
		if e.Details["param"] != "min_seq" {
			t.Errorf("min_seq=%s: details %v", bad, e.Details)
		}
	}
}

// GET item with ?include=comments,links answers the item with its
// comments and links exactly as their own routes answer them.
func TestGetItemInclude(t *testing.T) {
	h := newHarness(t)
	a, b := h.task("include a"), h.task("include b")
	h.mustJSON("POST", wsPath("/items/"+a.Ref+"/comments"), map[string]any{"body": "first word"}, 201, nil)
	h.mustJSON("POST", wsPath("/items/"+a.Ref+"/links"), map[string]any{"target_id": b.ID, "link_type": "blocks"}, 201, nil)
	var got map[string]json.RawMessage
	h.mustJSON("GET", wsPath("/items/"+a.Ref+"?include=comments,links"), nil, 200, &got)
	var plain map[string]json.RawMessage
	h.mustJSON("GET", wsPath("/items/"+a.Ref), nil, 200, &plain)
	for k, v := range plain {
		if string(got[k]) != string(v) {
			t.Errorf("member %s: %s with include, %s without", k, got[k], v)
		}
	}
	for _, part := range []string{"comments", "links"} {
		own := h.call("GET", wsPath("/items/"+a.Ref+"/"+part), nil)
		if strings.TrimSpace(string(own.body)) != string(got[part]) || !strings.Contains(string(got[part]), "{") {
			t.Errorf("%s: %s with include, %s from its route", part, got[part], own.body)
		}
	}
	var bare map[string]json.RawMessage
	h.mustJSON("GET", wsPath("/items/"+b.Ref+"?include=comments"), nil, 200, &bare)
	if string(bare["comments"]) != "[]" || bare["links"] != nil {
		t.Errorf("include=comments of an item without any: comments %s, links %s", bare["comments"], bare["links"])
	}
	if _, has := plain["comments"]; has {
		t.Error("a get without include carries comments")
	}
	e := h.wantError("GET", wsPath("/items/"+a.Ref+"?include=history"), nil, 400, "bad_request")
	if e.Details["param"] != "include" {
		t.Errorf("include=history: details %v", e.Details)
	}
}

// A hit's snippet comes from its body, else from its comments (read for
// all such hits at once), else from its title, else from its body's
// opening.
func TestSearchSnippetsFromBodyThenCommentsThenTitleThenOpening(t *testing.T) {
	h := newHarness(t)
	var inBody, inComment, inTitle, nowhere api.Item
	h.mustJSON("POST", wsPath("/collections/tasks/items"), map[string]any{"title": "wombat one", "content": "The wombat digs a burrow."}, 201, &inBody)
	h.mustJSON("POST", wsPath("/collections/tasks/items"), map[string]any{"title": "wombat two", "content": "Nothing here."}, 201, &inComment)
	h.mustJSON("POST", wsPath("/items/"+inComment.Ref+"/comments"), map[string]any{"body": "Saw a wombat near the gate."}, 201, nil)
	long := strings.Repeat("plain words without the animal ", 10)
	h.mustJSON("POST", wsPath("/collections/tasks/items"), map[string]any{"title": "wombat three", "content": long}, 201, &inTitle)
	h.mustJSON("POST", wsPath("/collections/tasks/items"), map[string]any{"title": "four", "content": long, "tags": []string{"wombat"}}, 201, &nowhere)

	var found api.SearchResponse
	h.mustJSON("GET", "/api/v1/search?workspace=w&q=wombat", nil, 200, &found)
	got := map[string]string{}
	for _, r := range found.Results {
		got[r.Item.Ref] = r.Snippet
	}
	if sn := got[inBody.Ref]; !strings.Contains(sn, "wombat") || !strings.Contains(sn, "burrow") {
		t.Errorf("body match: snippet %q", sn)
	}
	if sn := got[inComment.Ref]; !strings.Contains(sn, "wombat") || !strings.Contains(sn, "gate") {
		t.Errorf("comment match: snippet %q", sn)
	}
	if sn := got[inTitle.Ref]; sn != "<mark>wombat</mark> three" {
		t.Errorf("title match: snippet %q", sn)
	}
	if sn := got[nowhere.Ref]; !strings.HasPrefix(sn, "plain words") || !strings.HasSuffix(sn, "…") || len(sn) > 170 {
		t.Errorf("no match: snippet %q", sn)
	}
}
