//go:build linux

package main

import (
	"bytes"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoadRunShort is the load run in miniature, as CI runs it: 2,000
// items, 2 agents, padctl and the event watcher for 10 s against the
// real binaries (built with -race when the test is), then every check.
// It asserts the verification, not the throughput: CI machines vary.
func TestLoadRunShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binaries for about half a minute")
	}
	race := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				race = true
			}
		}
	}
	var log bytes.Buffer
	cfg := config{Items: 2000, Agents: 2, Duration: 10 * time.Second, Seed: 9, CLIInterval: 250 * time.Millisecond,
		SSEDrop: 3 * time.Second, Comments: -1, SortedLists: true, Restart: true, Race: race, Log: &log}
	selfTested := false
	cfg.selfTest = func(check func(*ledger, []event) []Check, led *ledger, evs []event) {
		selfTested = true
		tamperedChecksFail(t, check, led, evs)
	}
	rep, err := runConfig(cfg, "go test ./scripts/loadrun -run TestLoadRunShort")
	if err != nil {
		t.Fatalf("the load run could not be carried out: %v\n%s", err, log.String())
	}
	var out bytes.Buffer
	printReport(&out, rep)
	if !rep.Pass {
		t.Fatalf("load run failed its checks:\n%s\n%s", out.String(), log.String())
	}
	t.Logf("\n%s", out.String())
	// The run did real work, on every path.
	want := []string{"mcp pad_project.next", "mcp pad_item.claim", "mcp pad_item.get", "mcp pad_item.update",
		"mcp pad_item.comment", "mcp pad_item.create", "mcp pad_item.list", "mcp pad_search.query",
		"mcp pad_item.release", "padctl item-list", "padctl item-show", "padctl item-create"}
	seen := map[string]int{}
	for _, o := range rep.Ops {
		seen[o.Op] = o.OK
	}
	for _, op := range want {
		if seen[op] == 0 {
			t.Errorf("no successful %s in the run", op)
		}
	}
	// padd's own memory was read, the Go heap from padd itself.
	if n, _ := rep.Padd["heap_samples"].(int); n == 0 || rep.Padd["max_sampled_heap_mb"].(float64) <= 0 {
		t.Errorf("the Go heap was not sampled: %d samples, peak %v MB", n, rep.Padd["max_sampled_heap_mb"])
	}
	if !selfTested {
		t.Error("the checks were not tried on a tampered ledger")
	}
	if n, _ := rep.SSE["reconnects"].(int); n == 0 {
		t.Errorf("the event watcher never resumed with Last-Event-ID (sse %v)", rep.SSE)
	}
	// A run says how fast the machine was, or runs on different days
	// cannot be compared.
	bounds := map[string]float64{"pace_before_us": 1e6, "pace_after_us": 1e6, "cpu_busy_during_load_pct": 100, "cpu_steal_during_load_pct": 100}
	for _, k := range []string{"syscall_us", "pipe_round_trip_us", "page_fault_us"} {
		bounds[k+"_before"], bounds[k+"_after"] = 1e6, 1e6
	}
	for k, max := range bounds {
		v, err := strconv.ParseFloat(rep.Machine[k], 64)
		if err != nil || v < 0 || v > max || v == 0 && !strings.HasPrefix(k, "cpu_") {
			t.Errorf("machine %s = %q, want a number in (0, %g]", k, rep.Machine[k], max)
		}
	}
	if busy, _ := strconv.ParseFloat(rep.Machine["cpu_busy_during_load_pct"], 64); busy == 0 {
		t.Error("the machine's CPU was idle throughout a load run: /proc/stat was misread")
	}
	// Every process of the run waits on the others: a count of zero is a
	// misread /proc, not a design without waits.
	for name, v := range map[string]any{"padd": rep.Padd["waits_per_op"], "relays": rep.Clients["mcp_servers_waits_per_call"], "loadrun": rep.Clients["loadrun_waits_per_op"]} {
		if w, ok := v.(float64); !ok || w <= 0 {
			t.Errorf("%s waits per operation = %v, want a positive count", name, v)
		}
	}
}

// tamperedChecksFail proves every check can fail: re-run on the run's own
// ledger and events they pass; on a ledger claiming writes padd never
// acknowledged, and an event record with a gap, a duplicate and a swap,
// each of them fails.
func tamperedChecksFail(t *testing.T, check func(*ledger, []event) []Check, led *ledger, evs []event) {
	for _, c := range check(led, evs) {
		if !c.Pass {
			t.Errorf("re-check on the run's own record failed: %s: %s %v", c.Name, c.Detail, c.Samples)
		}
	}
	if len(led.creates) == 0 || len(led.updates) == 0 || len(led.comments) == 0 || len(evs) < 10 {
		t.Fatalf("the run acknowledged too little to tamper with: %d creates, %d updates, %d comments, %d events",
			len(led.creates), len(led.updates), len(led.comments), len(evs))
	}
	bad := newLedger()
	bad.creates = append([]createAck(nil), led.creates...)
	bad.updates = append([]updateAck(nil), led.updates...)
	bad.comments = append([]commentAck(nil), led.comments...)
	bad.writes = append([]writeAck(nil), led.writes...)
	for k, v := range led.unsequenced {
		bad.unsequenced[k] = v
	}
	bad.counterAcked = led.counterAcked + 1 // an increment padd never counted
	bad.creates[0].Content += " (not what was written)"
	bad.creates = append(bad.creates, createAck{ID: "01900000-0000-7000-8000-000000000000", Ref: "TASK-999999",
		Title: "never made lrneverwritten", Token: "lrneverwritten", Content: "x", Priority: "low"})
	for i := range bad.updates {
		if bad.updates[i].Ref == led.updates[0].Ref {
			bad.updates[i].Status = "cancelled"
		}
	}
	bad.comments = append(bad.comments, commentAck{ItemRef: led.comments[0].ItemRef, ItemID: led.comments[0].ItemID,
		CommentID: "01900000-0000-7000-8000-000000000001", Body: "never said"})
	tampered := append([]event(nil), evs...)
	// The gap drops an event an acknowledged write's seq names: an
	// unsequenced one (a claim) dropped beside a duplicate of its own type
	// would leave every count as it was.
	acked := map[int64]bool{}
	for _, w := range led.writes {
		acked[w.Seq] = true
	}
	mid := len(tampered) / 2
	for mid < len(tampered)-1 && !acked[tampered[mid].ID] {
		mid++
	}
	tampered = append(tampered[:mid], tampered[mid+1:]...)                            // a gap
	tampered = append(tampered[:3], append([]event{tampered[2]}, tampered[3:]...)...) // a duplicate
	tampered[6], tampered[7] = tampered[7], tampered[6]                               // a reordering
	for _, c := range check(bad, tampered) {
		if c.Pass {
			t.Errorf("check passed on a tampered record: %s: %s", c.Name, c.Detail)
		}
	}
}
