package daemon

import (
	"context"
	"errors"
	"net/http"
	"strconv"
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
