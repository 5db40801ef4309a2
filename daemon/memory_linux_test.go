//go:build linux

package daemon

import (
	"testing"

	"github.com/padd/padd/api"
)

// padd's status says how much of its memory is its own and how much is
// the database and index mapped from the page cache, read from this
// process's smaps (the test runs padd's server in process, so its
// database is mapped here).
func TestStatusSplitsMemory(t *testing.T) {
	h := newHarness(t)
	h.mustJSON("POST", "/api/v1/workspaces/w/collections/tasks/items", map[string]any{"title": "indexed"}, 201, nil)
	var st api.DaemonStatus
	h.mustJSON("GET", "/api/v1/padd/status", nil, 200, &st)
	m := st.Memory
	if m == nil {
		t.Fatal("status has no memory on Linux, where /proc/self/smaps says it")
	}
	if m.OwnBytes <= 0 || m.DatabaseBytes <= 0 || m.ProgramBytes <= 0 {
		t.Errorf("memory = %+v: want padd's own memory, the database's mapped pages and the program's all above zero", *m)
	}
}
