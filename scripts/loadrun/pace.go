package main

import (
	"encoding/json"
	"slices"
	"time"
)

// The machine this runs on is shared: the same code runs markedly slower
// in some hours than in others (runs AG of
// docs/PERFORMANCE.md's history: git show a6864cb:docs/PERFORMANCE.md),
// and nothing
// in the load's own numbers tells a slow machine from slow code. pace
// times a fixed piece of work like the load's (encoding and decoding an
// item-sized JSON answer) on one goroutine before the run starts anything
// and after its checks, so runs can be compared in the machine's units.

// paceItem is the work's value: an item answer of the load's size.
type paceItem struct {
	Ref     string            `json:"ref"`
	Title   string            `json:"title"`
	Content string            `json:"content"`
	Fields  map[string]string `json:"fields"`
	Tags    []string          `json:"tags"`
	Seq     int64             `json:"seq"`
}

var paceValue = paceItem{Ref: "TASK-4711", Title: "Rework the importer's retry budget", Seq: 91234,
	Content: string(slices.Repeat([]byte("words of a body that is about the size of a task's "), 12)),
	Fields:  map[string]string{"status": "in-progress", "priority": "high", "effort": "m", "assignee": "agent-2"},
	Tags:    []string{"import", "retry", "backend"}}

// pace is the median time of one unit of the work over a few short
// rounds, in microseconds: lower is a faster machine.
func pace() float64 {
	const rounds, perRound = 9, 1000
	times := make([]float64, 0, rounds)
	for range rounds {
		start := time.Now()
		for range perRound {
			b, err := json.Marshal(paceValue)
			if err != nil {
				panic(err) // a fixed value always encodes
			}
			var v paceItem
			if err := json.Unmarshal(b, &v); err != nil {
				panic(err)
			}
		}
		times = append(times, float64(time.Since(start).Nanoseconds())/perRound/1000)
	}
	slices.Sort(times)
	return times[rounds/2]
}
