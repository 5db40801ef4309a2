//go:build linux

package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
)

// Outcome classes of one operation.
const (
	outOK      = iota // the operation did what was asked
	outRefused        // an intended refusal: lease_held, update_conflict
	outFailed         // anything else: a failure of the run
)

// intendedRefusals are the refusals concurrency is expected to cause.
var intendedRefusals = map[string]bool{api.CodeLeaseHeld: true, api.CodeUpdateConflict: true}

// stats records every operation's latency and outcome, per operation
// name, safe for many goroutines.
type stats struct {
	mu       sync.Mutex
	ops      map[string]*opStats
	failures []string // the first failures, for the report
	nFail    int
}

type opStats struct {
	lat      []time.Duration // successes and refusals: both are answers
	ok       int
	refused  map[string]int // by code
	failed   int
	failCode map[string]int
}

func newStats() *stats { return &stats{ops: map[string]*opStats{}} }

func (s *stats) op(name string) *opStats {
	o := s.ops[name]
	if o == nil {
		o = &opStats{refused: map[string]int{}, failCode: map[string]int{}}
		s.ops[name] = o
	}
	return o
}

// record notes one operation. code is the refusal or failure code ("" on
// success); detail describes a failure.
func (s *stats) record(name string, d time.Duration, out int, code, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.op(name)
	switch out {
	case outOK:
		o.ok++
		o.lat = append(o.lat, d)
	case outRefused:
		o.refused[code]++
		o.lat = append(o.lat, d)
	default:
		o.failed++
		o.failCode[code]++
		s.nFail++
		if len(s.failures) < 30 {
			s.failures = append(s.failures, fmt.Sprintf("%s: %s %s", name, code, detail))
		}
	}
}

// fail records a failure that is not one operation's answer (a
// verification step that could not run, a process that died).
func (s *stats) fail(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nFail++
	if len(s.failures) < 30 {
		s.failures = append(s.failures, what)
	}
}

// OpReport is one operation's line of the summary.
type OpReport struct {
	Op       string         `json:"op"`
	Count    int            `json:"count"` // answered: ok + refused
	OK       int            `json:"ok"`
	Refused  map[string]int `json:"refused,omitempty"`
	Failed   int            `json:"failed"`
	PerSec   float64        `json:"ops_per_sec"`
	P50ms    float64        `json:"p50_ms"`
	P95ms    float64        `json:"p95_ms"`
	P99ms    float64        `json:"p99_ms"`
	MaxMs    float64        `json:"max_ms"`
	MeanMs   float64        `json:"mean_ms"`
	FailCode map[string]int `json:"fail_codes,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile is the q-quantile of sorted latencies (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*q+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func summarize(name string, lat []time.Duration, ok, failed int, refused, failCode map[string]int, secs float64) OpReport {
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	r := OpReport{Op: name, Count: len(sorted), OK: ok, Failed: failed, PerSec: float64(len(sorted)) / secs,
		P50ms: ms(quantile(sorted, 0.50)), P95ms: ms(quantile(sorted, 0.95)), P99ms: ms(quantile(sorted, 0.99))}
	if len(sorted) > 0 {
		r.MaxMs, r.MeanMs = ms(sorted[len(sorted)-1]), ms(sum/time.Duration(len(sorted)))
	}
	if len(refused) > 0 {
		r.Refused = refused
	}
	if len(failCode) > 0 {
		r.FailCode = failCode
	}
	return r
}

// reports summarises every operation, then the groups: all MCP tool
// calls, all padctl runs, and everything together.
func (s *stats) reports(secs float64) (per []OpReport, groups []OpReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.ops))
	for n := range s.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	type acc struct {
		lat               []time.Duration
		ok, failed        int
		refused, failCode map[string]int
	}
	gs := map[string]*acc{}
	add := func(g string, o *opStats) {
		a := gs[g]
		if a == nil {
			a = &acc{refused: map[string]int{}, failCode: map[string]int{}}
			gs[g] = a
		}
		a.lat = append(a.lat, o.lat...)
		a.ok += o.ok
		a.failed += o.failed
		for k, v := range o.refused {
			a.refused[k] += v
		}
		for k, v := range o.failCode {
			a.failCode[k] += v
		}
	}
	for _, n := range names {
		o := s.ops[n]
		per = append(per, summarize(n, o.lat, o.ok, o.failed, o.refused, o.failCode, secs))
		group, _, _ := strings.Cut(n, " ")
		add("ALL "+group, o)
		add("ALL", o)
	}
	for _, g := range []string{"ALL mcp", "ALL padctl", "ALL"} {
		if a := gs[g]; a != nil {
			groups = append(groups, summarize(g, a.lat, a.ok, a.failed, a.refused, a.failCode, secs))
		}
	}
	return per, groups
}

// printTable writes the per-operation table.
func printTable(w io.Writer, rows []OpReport) {
	fmt.Fprintf(w, "%-28s %8s %8s %8s %7s %9s %8s %8s %8s %8s\n", "operation", "count", "ops/s", "refused", "failed", "p50 ms", "p95 ms", "p99 ms", "max ms", "mean ms")
	for _, r := range rows {
		ref := 0
		for _, v := range r.Refused {
			ref += v
		}
		fmt.Fprintf(w, "%-28s %8d %8.1f %8d %7d %9.2f %8.2f %8.2f %8.1f %8.2f\n", r.Op, r.Count, r.PerSec, ref, r.Failed,
			r.P50ms, r.P95ms, r.P99ms, r.MaxMs, r.MeanMs)
	}
}
