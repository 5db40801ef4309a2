package mcpstdio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testwait"
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
				info, err := launch.ReadInfo(e.home)
				if err != nil {
					t.Fatal(err)
				}
				if how == "shutdown" {
					stopPaddOf(t, e.home)
				} else {
					p, _ := os.FindProcess(info.PID)
					_ = p.Kill()
					waitAllThreadsGone(t, info.PID)
				}
				// No workspace named: the one set before padd stopped.
				after := ok(t, cs, "pad_item", map[string]any{"action": "create", "collection": "tasks", "title": "After " + how})
				if !strings.HasPrefix(after.str("ref"), "TASK-") {
					t.Fatalf("create after %s: %s", how, after.texts[0])
				}
				if now, _ := launch.ReadInfo(e.home); now == nil || now.PID == info.PID {
					t.Fatalf("after %s the call was not served by a new padd", how)
				}
				e.api, _, err = launch.Connect(context.Background(), launch.ConnectOptions{DataDir: e.home})
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
func waitAllThreadsGone(t *testing.T, pid int) {
	t.Helper()
	testwait.Until(t, fmt.Sprintf("every thread of killed pid %d to end", pid), func() bool {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		return !launch.ProcessAlive(pid) && (err != nil || len(tasks) <= 1)
	})
}

// Killed while an agent's calls run, padd leaves none of them waiting:
// every call is answered, the calls after the kill start a new padd and
// succeed, every create acknowledged is there afterwards, and a call
// whose outcome the relay cannot know says so (padd_restarted).
func TestRelayKilledUnderCalls(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { stopPaddOf(t, e.home) })
	ws := e.workspace("Busy")
	cs := e.session(sessionOpts{name: "busy-agent", noRoots: true})
	ok(t, cs, "pad_set_workspace", map[string]any{"workspace": ws})

	type outcome struct {
		title, ref, code, reason string
		err                      error
		at                       time.Time // when the answer came
	}
	const writers = 3
	results := make(chan outcome, 10000)
	stop := make(chan struct{})
	// answered counts the calls answered; killed is set once padd is
	// killed, and ackedAfter counts the creates sent after that and
	// acknowledged.
	var answered, ackedAfter atomic.Int64
	var killed atomic.Bool
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				o := outcome{title: fmt.Sprintf("w%d-%d", w, i)}
				sentAfter := killed.Load()
				ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "pad_item",
					Arguments: map[string]any{"action": "create", "collection": "tasks", "title": o.title}})
				cancel()
				o.at = time.Now()
				if o.err = err; err == nil {
					var v struct {
						Ref, Code string
						Details   struct{ Reason string }
					}
					if tc, isText := res.Content[0].(*sdk.TextContent); isText {
						_ = json.Unmarshal([]byte(tc.Text), &v)
					}
					o.ref, o.code, o.reason = v.Ref, v.Code, v.Details.Reason
					if res.IsError {
						o.ref = ""
					}
					if sentAfter && o.ref != "" {
						ackedAfter.Add(1)
					}
				}
				answered.Add(1)
				results <- o
			}
		}()
	}
	// Calls are running: each writer has had one answered.
	testwait.Until(t, "the writers' first answers", func() bool { return answered.Load() >= writers })
	info, err := launch.ReadInfo(e.home)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := os.FindProcess(info.PID)
	_ = p.Kill()
	killedAt := time.Now()
	killed.Store(true)
	waitAllThreadsGone(t, info.PID)
	// The relay starts padd again, and calls go on.
	testwait.Until(t, "a create sent after the kill to be acknowledged", func() bool { return ackedAfter.Load() > 0 })
	close(stop)
	wg.Wait()
	close(results)

	acked := map[string]string{}
	unknown, answeredAfter := 0, 0
	for o := range results {
		switch {
		case o.err != nil:
			t.Errorf("%s: the call failed: %v", o.title, o.err)
		case o.ref != "":
			acked[o.title] = o.ref
			if o.at.After(killedAt) {
				answeredAfter++
			}
		case o.reason == "padd_restarted":
			unknown++
		default:
			t.Errorf("%s: refused %s (%s)", o.title, o.code, o.reason)
		}
	}
	t.Logf("%d creates acknowledged (%d after the kill), %d with an unknown outcome", len(acked), answeredAfter, unknown)
	if unknown > 2*writers {
		t.Errorf("%d calls answered padd_restarted for one kill with %d writers", unknown, writers)
	}
	now, err := launch.ReadInfo(e.home)
	if err != nil || now.PID == info.PID {
		t.Fatalf("no new padd after the kill (%v)", err)
	}
	e.api, _, err = launch.Connect(context.Background(), launch.ConnectOptions{DataDir: e.home})
	if err != nil {
		t.Fatal(err)
	}
	for title, ref := range acked {
		if it := e.item(ws, ref); it.Title != title {
			t.Errorf("acknowledged %s (%s) reads back as %+v", ref, title, it)
		}
	}
	if answeredAfter == 0 {
		t.Error("no create was acknowledged after the kill")
	}
}
