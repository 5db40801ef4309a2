package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/mapped"
)

// A target padd's own memory alone passes: padd releases its mapped
// files' pages, says in its log that the target is too low, keeps
// serving every item intact, and reports the target and its releases.
func TestRSSTargetBelowPaddsOwnMemory(t *testing.T) {
	home := t.TempDir()
	d := startPaddEnv(t, home, []string{"PADD_RSS_TARGET=1"})
	ws := d.mkWorkspace(t, "Kept")
	var made []api.Item
	for i := range 40 {
		made = append(made, d.createItem(t, ws, "docs", api.ItemCreate{Title: fmt.Sprintf("Doc %d", i),
			Content: strings.Repeat(fmt.Sprintf("body of doc %d ", i), 200)}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var st *api.DaemonStatus
	for {
		var err error
		if st, err = d.client.DaemonStatus(ctx); err != nil {
			t.Fatal(err)
		}
		logged, _ := os.ReadFile(filepath.Join(home, api.LogFile))
		if st.Memory != nil && st.Memory.Releases > 0 && strings.Contains(string(logged), "too near PADD_RSS_TARGET (1 MiB)") {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("after 20 s: status memory %+v; log:\n%s", st.Memory, tail(string(logged), 2000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st.Memory.TargetBytes != 1<<20 {
		t.Errorf("status says the target is %d bytes; want 1 MiB", st.Memory.TargetBytes)
	}
	// The test's process can do what padd does: then padd must have.
	if can := mapped.CanMapExactly(); (can == nil) != st.Memory.DatabaseExact {
		t.Errorf("status says database_exact %v, where mapping reads exactly here gives %v", st.Memory.DatabaseExact, can)
	}
	for i, it := range made {
		got, err := d.getItem(t, ws, it.Ref)
		if err != nil || got.Content != strings.Repeat(fmt.Sprintf("body of doc %d ", i), 200) {
			t.Fatalf("%s after the releases: %v", it.Ref, err)
		}
	}
}
