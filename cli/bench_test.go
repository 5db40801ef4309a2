//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
)

// BenchmarkColdPadctl measures padctl as a new process each time, which
// is what a shell (or an agent's tool call) pays: exec, find padd
// through daemon.json, one authenticated health check, the request, the
// rendering. The workspace holds PADCTL_BENCH_ITEMS items (default
// 10000), created through padd's API before timing starts.
//
//	go test ./cli -run '^$' -bench ColdPadctl -benchtime 50x
//	PADCTL_BENCH_ITEMS=100000 go test ./cli -run '^$' -bench ColdPadctl -benchtime 50x -timeout 60m
func BenchmarkColdPadctl(b *testing.B) {
	padd, bin := binaries(b)
	n := 10000
	if s := os.Getenv("PADCTL_BENCH_ITEMS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	home := startPadd(b, padd)
	dir := b.TempDir()
	write(b, filepath.Join(dir, PadTomlName), "workspace = \"bench\"\n")
	took := seedItems(b, home, n)
	b.Logf("seeded %d items in %s (%.0f items/s)", n, took.Round(time.Millisecond), float64(n)/took.Seconds())

	for _, c := range []struct {
		name string
		args []string
	}{
		{"item-list", []string{"item", "list"}},
		{"item-list-json", []string{"item", "list", "--format", "json"}},
		{"item-list-all-1000", []string{"item", "list", "--all", "--limit", "1000"}},
		{"item-list-status-done", []string{"item", "list", "tasks", "--status", "done"}},
		{"item-show", []string{"item", "show", "TASK-" + strconv.Itoa(n/2)}},
		{"workspace-list", []string{"workspace", "list"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := testEnv(home)
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("padctl %v: %v\n%s", c.args, err, out)
				}
			}
		})
	}
}

// seedItems creates the bench workspace and n tasks (a quarter done,
// varied priorities) with parallel API writers.
func seedItems(b *testing.B, home string, n int) time.Duration {
	ctx := context.Background()
	cl, _, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cl.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	priorities := []string{"low", "medium", "high", "critical"}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) || firstErr.Load() != nil {
					return
				}
				status := "open"
				if i%4 == 0 {
					status = "done"
				}
				_, err := cl.CreateItem(ctx, "bench", "tasks", api.ItemCreate{
					Title:  fmt.Sprintf("Bench task %d: a title of a typical length for a work item", i),
					Fields: api.FlexOf(map[string]any{"status": status, "priority": priorities[i%4]}),
					Tags:   api.FlexOf([]string{"bench"}),
				})
				if err != nil {
					firstErr.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
