package mcpstdio_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// An agent's session outlives padd: stopped gracefully or killed, padd
// is started anew on the agent's next call, and the session goes on as
// it was (its workspace, its name, its leases), for both protocol eras.
func TestRelayAcrossRestart(t *testing.T) {
	for _, proto := range []string{"2025-11-25", ""} {
		t.Run("proto="+proto, func(t *testing.T) {
			e := newEnv(t)
			t.Cleanup(func() { stopPaddOf(t, e.home) }) // the padd the relay starts
			e.workspace("Alpha")
			beta := e.workspace("Beta")
			cs := e.session(sessionOpts{proto: proto, name: "relay-agent", noRoots: true})
			ok(t, cs, "pad_set_workspace", map[string]any{"workspace": beta})
			ref := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "Before"}).str("ref")
			claim := ok(t, cs, "pad_item", map[string]any{"action": "claim", "ref": ref})

			for _, how := range []string{"shutdown", "kill -9"} {
				info, err := api.ReadInfo(e.home)
				if err != nil {
					t.Fatal(err)
				}
				if how == "shutdown" {
					stopPaddOf(t, e.home)
				} else {
					p, _ := os.FindProcess(info.PID)
					_ = p.Kill()
					waitAllThreadsGone(info.PID)
				}
				// No workspace named: the one set before padd stopped.
				after := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "After " + how})
				if !strings.HasPrefix(after.str("ref"), "TASK-") {
					t.Fatalf("create after %s: %s", how, after.texts[0])
				}
				if now, _ := api.ReadInfo(e.home); now == nil || now.PID == info.PID {
					t.Fatalf("after %s the call was not served by a new padd", how)
				}
				e.api, _, err = api.Connect(context.Background(), api.ConnectOptions{DataDir: e.home})
				if err != nil {
					t.Fatal(err)
				}
				if it := e.item(beta, after.str("ref")); it.Title != "After "+how {
					t.Errorf("after %s the item went elsewhere: %+v", how, it)
				}
				// The lease is still this session's: claimed again, it is
				// its own; another agent is refused.
				again := ok(t, cs, "pad_item", map[string]any{"action": "claim", "ref": ref})
				if again.str("worker_id") != claim.str("worker_id") || again.str("holder") != "relay-agent" {
					t.Errorf("after %s the claim is %s, was %s", how, again.texts[0], claim.texts[0])
				}
				other := e.session(sessionOpts{proto: proto, name: "other-agent", noRoots: true})
				held := refused(t, other, "pad_item", map[string]any{"action": "claim", "ref": ref, "workspace": beta}, "lease_held")
				if held.str("details", "holder") != "relay-agent" {
					t.Errorf("lease_held after %s: %s", how, held.texts[0])
				}
				_ = other.Close()
			}
		})
	}
}

// waitAllThreadsGone waits until a killed process has released its
// files. Its main thread may show as a zombie while other threads still
// hold its sockets open; /proc/<pid>/task lists them until they are gone.
func waitAllThreadsGone(pid int) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil && !api.ProcessAlive(pid) || err == nil && len(tasks) <= 1 && !api.ProcessAlive(pid) {
			return
		}
	}
}
