package views

import (
	"context"
	"testing"
	"time"
)

// BenchmarkActivityFiltered100k reads the activity feed of the 100k
// fixture (146k entries) with filters that match nothing: an action no
// entry has, and a since after every entry.
func BenchmarkActivityFiltered100k(b *testing.B) {
	s, ws := benchStore(b)
	for _, c := range []struct {
		name string
		q    ActivityQuery
	}{
		{"action-none", ActivityQuery{Action: "decided", Limit: 50}},
		{"since-after-all", ActivityQuery{Since: time.Now().Add(time.Hour).UTC().Format(time.RFC3339), Limit: 50}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lat latencies
			for b.Loop() {
				lat.time(func() {
					p, err := Of(s).ListActivity(context.Background(), ws, c.q)
					if err != nil || len(p.Entries) != 0 {
						b.Fatalf("%v, %d entries", err, len(p.Entries))
					}
				})
			}
			lat.report(b, "ms")
		})
	}
}
