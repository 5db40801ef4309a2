//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// TestExpectedSeqRace: N writers PATCH one item with the same
// expected_seq at once. Exactly one wins; every other gets 409
// update_conflict with details.actual_seq = the winner's seq; the item
// ends up as the winner wrote it. Repeated over several rounds.
func TestExpectedSeqRace(t *testing.T) {
	t.Parallel()
	const writers, rounds = 16, 5
	d := startPadd(t, t.TempDir())
	ws := d.mkWorkspace(t, "Racing")
	it := d.createItem(t, ws, "tasks", api.ItemCreate{Title: "contended", Fields: api.FlexOf(map[string]any{"priority": "low"})})
	path := "/api/v1/workspaces/" + ws + "/items/" + it.ID
	seq := it.Seq
	priorities := []string{"low", "medium", "high", "critical"}

	for round := range rounds {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		type outcome struct {
			writer int
			r      reply
			err    error
		}
		results := make([]outcome, writers)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			body := mustJSON(t, map[string]any{
				"title":        fmt.Sprintf("round %d writer %d", round, w),
				"content":      fmt.Sprintf("content by writer %d in round %d", w, round),
				"fields_patch": map[string]any{"priority": priorities[w%len(priorities)]},
				"expected_seq": seq,
			})
			req := d.request(ctx, "PATCH", path, body)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				r, err := d.send(req)
				results[w] = outcome{w, r, err}
			}()
		}
		close(gate)
		wg.Wait()
		cancel()

		var winner *outcome
		var losers []outcome
		for i := range results {
			o := results[i]
			switch {
			case o.err != nil:
				t.Fatalf("round %d writer %d: %v", round, o.writer, o.err)
			case o.r.Status == 200:
				if winner != nil {
					t.Fatalf("round %d: writers %d and %d both succeeded with expected_seq %d (lost update)",
						round, winner.writer, o.writer, seq)
				}
				winner = &results[i]
			default:
				losers = append(losers, o)
			}
		}
		if winner == nil {
			t.Fatalf("round %d: no writer succeeded; first answer: %s", round, results[0].r)
		}
		var won api.Item
		decode(t, winner.r, &won)
		if won.Seq <= seq {
			t.Fatalf("round %d: winner's seq %d did not move past %d", round, won.Seq, seq)
		}
		for _, o := range losers {
			details := wantError(t, o.r, 409, "update_conflict")
			actual, ok := details["actual_seq"].(json.Number)
			if !ok {
				t.Fatalf("round %d writer %d: 409 details have no numeric actual_seq: %v", round, o.writer, details)
			}
			if n, _ := actual.Int64(); n != won.Seq {
				t.Errorf("round %d writer %d: actual_seq %d, want the winner's %d", round, o.writer, n, won.Seq)
			}
		}
		final, err := d.getItem(t, ws, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantTitle := fmt.Sprintf("round %d writer %d", round, winner.writer)
		wantContent := fmt.Sprintf("content by writer %d in round %d", winner.writer, round)
		fm, err := final.FieldMap()
		if err != nil {
			t.Fatal(err)
		}
		if final.Title != wantTitle || final.Content != wantContent || fm["priority"] != priorities[winner.writer%len(priorities)] || final.Seq != won.Seq {
			t.Fatalf("round %d: item is %q / %q / priority %v / seq %d, want the winner's %q / %q / %s / %d",
				round, final.Title, final.Content, fm["priority"], final.Seq, wantTitle, wantContent,
				priorities[winner.writer%len(priorities)], won.Seq)
		}
		seq = final.Seq
	}
}

// TestIdempotencyKey: a create sent twice with one Idempotency-Key makes
// one item, the second answer replays it (Idempotent-Replayed: true, same
// id); the same key on another body is 422 idempotency_key_reused; racing
// duplicates make one item; the key still replays after a restart.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Idem")
	path := "/api/v1/workspaces/" + ws + "/collections/ideas/items"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	post := func(d *instance, key string, body []byte) reply {
		t.Helper()
		req := d.request(ctx, "POST", path, body)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		r, err := d.send(req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	countTitled := func(d *instance, title string) int {
		t.Helper()
		var list []api.Item
		decode(t, d.do(t, "GET", path+"?limit=1000", nil), &list)
		n := 0
		for _, it := range list {
			if it.Title == title {
				n++
			}
		}
		return n
	}

	body := []byte(`{"title":"once only","content":"hello","tags":["idem"]}`)
	r1 := post(d, "key-1", body)
	wantStatus(t, r1, 201)
	if r1.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("first create answered Idempotent-Replayed: %q", r1.Header.Get("Idempotent-Replayed"))
	}
	r2 := post(d, "key-1", body)
	wantStatus(t, r2, 201)
	if r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("second create with the same key: Idempotent-Replayed %q, want true", r2.Header.Get("Idempotent-Replayed"))
	}
	var a, b api.Item
	decode(t, r1, &a)
	decode(t, r2, &b)
	if a.ID == "" || a.ID != b.ID || a.Ref != b.Ref {
		t.Errorf("replay answered %s/%s, first create %s/%s", b.ID, b.Ref, a.ID, a.Ref)
	}
	if n := countTitled(d, "once only"); n != 1 {
		t.Errorf("%d items titled %q after a replayed create, want 1", n, "once only")
	}

	// Same key, different body: refused, nothing written. The same body
	// to another collection is another request too.
	wantError(t, post(d, "key-1", []byte(`{"title":"once only","content":"changed"}`)), 422, "idempotency_key_reused")
	req := d.request(ctx, "POST", "/api/v1/workspaces/"+ws+"/collections/tasks/items", body)
	req.Header.Set("Idempotency-Key", "key-1")
	if r, err := d.send(req); err != nil {
		t.Fatal(err)
	} else {
		wantError(t, r, 422, "idempotency_key_reused")
	}
	if n := countTitled(d, "once only"); n != 1 {
		t.Errorf("%d items titled %q after a refused reuse, want 1", n, "once only")
	}
	// The key also works as op_key in the body, and the two spellings
	// are one key space.
	r3 := post(d, "", []byte(`{"title":"op keyed","op_key":"key-2"}`))
	wantStatus(t, r3, 201)
	r4 := post(d, "", []byte(`{"title":"op keyed","op_key":"key-2"}`))
	if r4.Status != 201 || r4.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("op_key replay: %s (Idempotent-Replayed %q)", r4, r4.Header.Get("Idempotent-Replayed"))
	}
	if n := countTitled(d, "op keyed"); n != 1 {
		t.Errorf("%d items titled %q, want 1", n, "op keyed")
	}

	// Racing duplicates: many identical keyed creates at once make one item.
	const racers = 12
	raceBody := []byte(`{"title":"raced once","content":"x"}`)
	ids := make([]string, racers)
	answers := make([]reply, racers)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range racers {
		req := d.request(ctx, "POST", path, raceBody)
		req.Header.Set("Idempotency-Key", "key-race")
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			r, err := d.send(req)
			if err != nil {
				t.Error(err)
				return
			}
			answers[i] = r
			if r.Status == 201 {
				var it api.Item
				if json.Unmarshal(r.Body, &it) == nil {
					ids[i] = it.ID
				}
			}
		}()
	}
	close(gate)
	wg.Wait()
	fresh := 0
	for i, r := range answers {
		switch {
		case r.Status == 201:
			if r.Header.Get("Idempotent-Replayed") != "true" {
				fresh++
			}
			if ids[i] != ids[0] && ids[0] != "" {
				t.Errorf("racer %d got id %s, racer 0 got %s", i, ids[i], ids[0])
			}
		case r.Status == http.StatusConflict:
			wantError(t, r, 409, "idempotency_in_flight")
			if r.Header.Get("Retry-After") == "" {
				t.Errorf("idempotency_in_flight without Retry-After")
			}
		default:
			t.Errorf("racer %d: %s", i, r)
		}
	}
	if fresh != 1 {
		t.Errorf("%d racing creates were answered as fresh (not replayed), want exactly 1", fresh)
	}
	if n := countTitled(d, "raced once"); n != 1 {
		t.Errorf("%d items titled %q after %d racing keyed creates, want 1", n, "raced once", racers)
	}

	// Idempotency records are durable: after a restart the key replays.
	d.stop()
	d2 := startPadd(t, home)
	r5 := post(d2, "key-1", body)
	wantStatus(t, r5, 201)
	var c api.Item
	decode(t, r5, &c)
	if r5.Header.Get("Idempotent-Replayed") != "true" || c.ID != a.ID {
		t.Errorf("after restart, replay answered id %s (Idempotent-Replayed %q), want %s replayed",
			c.ID, r5.Header.Get("Idempotent-Replayed"), a.ID)
	}
	if n := countTitled(d2, "once only"); n != 1 {
		t.Errorf("%d items titled %q after restart and replay, want 1", n, "once only")
	}
}
