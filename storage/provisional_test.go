package storage

import (
	"testing"

	"github.com/padd/padd/storage/internal/records"
)

func TestParseItemRef(t *testing.T) {
	for _, tc := range []struct {
		in     string
		prefix string
		n      int64
		ok     bool
	}{
		{"TASK-12", "TASK", 12, true},
		{"task-12", "TASK", 12, true},
		{"TASK-L3", "TASK", -3, true},
		{"task-l3", "TASK", -3, true},
		{"TASK-L", "", 0, false},
		{"TASK-L0", "", 0, false},
		{"TASK-L03", "", 0, false},
		{"TASK-L+3", "", 0, false},
		{"TASK-LL3", "", 0, false},
		{"-L3", "", 0, false},
		{"TASK-X3", "", 0, false},
	} {
		p, n, ok := records.ParseItemRef(tc.in)
		if p != tc.prefix || n != tc.n || ok != tc.ok {
			t.Errorf("parseItemRef(%q) = %q %d %v, want %q %d %v", tc.in, p, n, ok, tc.prefix, tc.n, tc.ok)
		}
		if ok && records.RefText(p, n) != map[bool]string{true: "TASK-L3", false: "TASK-12"}[n < 0] {
			t.Errorf("refText(%q, %d) = %q", p, n, records.RefText(p, n))
		}
	}
}
