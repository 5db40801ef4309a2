//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
	"github.com/padd/padd/internal/testwait"
)

// padctl item push reaches `padctl watch --all-workspaces --armed`, and
// says so; with nobody listening it says that instead.
func TestE2EPush(t *testing.T) {
	home := t.TempDir()
	stopPaddOf(t, home)
	dir := t.TempDir()
	ok(t, home, dir, "init", "--name", "Push")
	ok(t, home, dir, "item", "create", "tasks", "Review the plan")

	if r := ok(t, home, dir, "item", "push", "TASK-1", "anyone", "there?"); !strings.Contains(r.stdout, "no armed session") {
		t.Errorf("push with nobody listening: %s", r)
	}
	assertFailure(t, padctl(t, home, dir, "", "item", "push", "TASK-1", " \t "), ExitUsage, "bad_field")
	assertFailure(t, padctl(t, home, dir, "", "item", "push", "TASK-1", strings.Repeat("x", api.MaxPushMessage+1)), ExitUsage, "bad_field")
	assertFailure(t, padctl(t, home, dir, "", "item", "push", "TASK-9", "hello"), ExitError, "not_found")
	assertFailure(t, padctl(t, home, dir, "", "watch", "--armed"), ExitUsage, "conflicting_args")

	ctx, cancel := context.WithCancel(context.Background())
	var out, errb testbin.Buffer
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"watch", "--all-workspaces", "--armed", "--format", "json"}, inProcessEnv(home, dir, nil, &out, &errb))
	}()
	cl, _, err := launch.Connect(context.Background(), launch.ConnectOptions{DataDir: home})
	if err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the watcher's armed session", func() bool {
		var ss api.Sessions
		_, err := cl.Do(context.Background(), "GET", "/sessions", nil, nil, &ss)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			t.Fatalf("watch exited %d: %s", code, errb.String())
		default:
		}
		return ss.Count == 1 && ss.Sessions[0].Armed
	})
	r := ok(t, home, dir, "item", "push", "TASK-1", "review", "it\x1b[31m", "now", "--format", "json")
	var res api.PushResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.DeliveredSessions == nil || *res.DeliveredSessions != 1 {
		t.Fatalf("push: %s (%v)", r, err)
	}
	if r := ok(t, home, dir, "item", "push", "TASK-1", "and", "then", "ship"); strings.TrimSpace(r.stdout) != "Pushed TASK-1 to 1 session" {
		t.Errorf("push: %s", r)
	}
	testwait.Until(t, "the watcher to print both pushes", func() bool { return strings.Count(out.String(), `"kind":"push"`) == 2 })
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch exited %d: %s", code, errb.String())
	}
	var n api.WatchNotification
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &n); err != nil ||
		n.PushID != res.PushID || n.Summary != "review it\x1b[31m now" || n.ItemRef != "TASK-1" {
		t.Errorf("watch printed %q (%v)", out.String(), err)
	}
}

// A watcher prints a push id once, keeps the last 256, and forgets one
// after 10 minutes.
func TestPushSeen(t *testing.T) {
	var p pushSeen
	t0 := time.Unix(1_000_000, 0)
	if !p.first("a", t0) || p.first("a", t0.Add(time.Minute)) {
		t.Fatal("a push id printed twice within minutes")
	}
	if !p.first("a", t0.Add(11*time.Minute)) {
		t.Fatal("a push id remembered past 10 minutes")
	}
	for i := range pushSeenMax {
		p.first(string(rune('0'+i%10))+strings.Repeat("x", i), t0.Add(12*time.Minute))
	}
	if len(p.ids) != pushSeenMax || len(p.at) != pushSeenMax || !p.first("a", t0.Add(12*time.Minute)) {
		t.Fatalf("kept %d ids (%d times); the oldest should have given way", len(p.ids), len(p.at))
	}
}
