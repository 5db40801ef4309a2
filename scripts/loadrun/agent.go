//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bench"
	"github.com/padd/padd/internal/testbin"
)

// An agent is what a coding agent does to padd: the official go-sdk MCP
// client launching `padctl mcp serve` over stdio, working items in a
// loop: find work (next or ready), claim it, read it, mark it in
// progress with expected_seq, comment, file a follow-up task, look
// around (a filtered list, a search), now and then bump the shared
// counter doc (read, add one, write with expected_seq, re-read on
// update_conflict), mark the item done and release it.

// callTimeout bounds one tool call: a call that takes longer has failed.
const callTimeout = 30 * time.Second

type agent struct {
	idx    int
	name   string
	cs     *sdk.ClientSession
	cmd    *exec.Cmd
	stderr *testbin.Buffer
	run    *runner
	r      *rand.Rand
	made   int // creates so far (the token counter)

	closeOnce sync.Once
}

// answer is a decoded tool answer.
type answer struct {
	v    map[string]any
	code string // the refusal or failure code
	text string
}

// startAgent launches one `padctl mcp serve` through the go-sdk client.
func (rn *runner) startAgent(idx int) (*agent, error) {
	name := fmt.Sprintf("loadrun-agent-%d", idx+1)
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1.0"},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cmd := exec.Command(rn.padctl, "mcp", "serve")
	cmd.Env = childEnv(rn.home, append([]string{"PAD_WORKSPACE=" + rn.seed.Slug}, rn.cfg.RelayEnv...)...)
	cmd.Dir = rn.home
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("agent %d: connect: %v\n%s", idx+1, err, stderr.String())
	}
	return &agent{idx: idx, name: name, cs: cs, cmd: cmd, stderr: stderr, run: rn,
		r: rand.New(rand.NewPCG(uint64(idx+1)*7919, rn.cfg.Seed))}, nil
}

// call calls a tool, times it and records the outcome as op "mcp
// tool.action". ok is false on a refusal or failure.
func (a *agent) call(tool string, args map[string]any) (answer, bool) {
	op := "mcp " + tool + "." + fmt.Sprint(args["action"])
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	start := time.Now()
	res, err := a.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(start)
	if err != nil {
		// What the agent's padctl mcp serve logged says which side stalled.
		a.run.st.record(op, d, outFailed, "protocol_error", fmt.Sprintf("%v; its MCP server logged: %s", err, tail(a.stderr.String(), 1500)))
		return answer{code: "protocol_error"}, false
	}
	var ans answer
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			ans.text = tc.Text
			break
		}
	}
	dec := json.NewDecoder(strings.NewReader(ans.text))
	dec.UseNumber()
	if err := dec.Decode(&ans.v); err != nil {
		a.run.st.record(op, d, outFailed, "bad_answer", fmt.Sprintf("%v: %.300s", err, ans.text))
		return ans, false
	}
	if res.IsError {
		ans.code = str(ans.v, "code")
		if intendedRefusals[ans.code] {
			a.run.st.record(op, d, outRefused, ans.code, "")
		} else {
			a.run.st.record(op, d, outFailed, ans.code, fmt.Sprintf("%v: %.300s", args, ans.text))
		}
		return ans, false
	}
	a.run.st.record(op, d, outOK, "", "")
	return ans, true
}

// loop works items until the deadline.
func (a *agent) loop(deadline time.Time) {
	for n := 0; time.Now().Before(deadline); n++ {
		a.workOne(n, deadline)
	}
}

// listFilters are the agents' list calls. The last is sorted (recently
// finished tasks): padd reads every match to sort it, so
// -sorted-lists=false leaves it out.
var listFilters = []map[string]any{
	{"collection": "tasks", "status": "open", "priority": "high", "limit": 20},
	{"collection": "tasks", "status": "in-progress", "limit": 20},
	{"collection": "tasks", "field": []string{"effort=m"}, "priority": "critical", "limit": 20},
	{"collection": "ideas", "limit": 20},
	{"collection": "tasks", "status": "done", "sort": "updated_at", "limit": 10},
}

func (a *agent) workOne(n int, deadline time.Time) {
	past := func() bool { return time.Now().After(deadline) }
	ref := a.findWork(n)
	if ref == "" || past() {
		return
	}
	if _, ok := a.call("pad_item", map[string]any{"action": "claim", "ref": ref}); !ok {
		return // lease_held: someone else took it; look again
	}
	a.run.led.other("lease_claimed")
	if a.setStatus(ref, "in-progress") && !past() {
		body := fmt.Sprintf("%s: picked this up (%s)", a.name, bench.Words(a.r, 6+a.r.IntN(10)))
		if ans, ok := a.call("pad_item", map[string]any{"action": "comment", "ref": ref, "message": body}); ok {
			a.run.led.commented(commentAck{ItemRef: ref, ItemID: str(ans.v, "item_id"), CommentID: str(ans.v, "id"),
				Body: body, Seq: num(ans.v, "seq")})
		} else if ans.code != "" && !intendedRefusals[ans.code] {
			a.run.led.unsure(ref)
		}
		a.create(ref)
		if !past() {
			filters := listFilters
			if !a.run.cfg.SortedLists {
				filters = listFilters[:len(listFilters)-1]
			}
			f := filters[a.r.IntN(len(filters))]
			args := map[string]any{"action": "list"}
			for k, v := range f {
				args[k] = v
			}
			a.call("pad_item", args)
		}
		if !past() {
			q := bench.Topics[a.r.IntN(len(bench.Topics))]
			if a.r.IntN(3) == 0 {
				q += " " + bench.Topics[a.r.IntN(len(bench.Topics))]
			}
			a.call("pad_search", map[string]any{"action": "query", "query": q, "limit": 20})
		}
		if n%3 == 0 && !past() {
			a.bumpCounter()
		}
		a.setStatus(ref, "done")
	}
	if ans, ok := a.call("pad_item", map[string]any{"action": "release", "ref": ref}); ok {
		if ans.v["released"] == true {
			a.run.led.other("lease_released")
		}
	}
}

// findWork asks next (or, every other time, ready) for a task and picks
// one of the answers at random; with none, an open task from a list.
func (a *agent) findWork(n int) string {
	args := map[string]any{"action": "next"}
	if n%2 == 1 {
		args = map[string]any{"action": "ready", "limit": 10}
	}
	ans, ok := a.call("pad_project", args)
	if !ok {
		return ""
	}
	var refs []string
	items, _ := ans.v["items"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if ref := str(m, "item_ref"); m["collection"] == "tasks" && ref != "" {
			refs = append(refs, ref)
		}
	}
	if len(refs) == 0 {
		ans, ok := a.call("pad_item", map[string]any{"action": "list", "collection": "tasks", "status": "open", "limit": 20})
		if !ok {
			return ""
		}
		rows, _ := ans.v["items"].([]any)
		for _, it := range rows {
			if m, _ := it.(map[string]any); str(m, "ref") != "" {
				refs = append(refs, str(m, "ref"))
			}
		}
	}
	if len(refs) == 0 {
		return ""
	}
	return refs[a.r.IntN(len(refs))]
}

// maxRetries bounds the re-read-and-retry rounds of one write.
const maxRetries = 20

// setStatus reads the item and sets its status with expected_seq,
// re-reading on update_conflict. It reports success.
func (a *agent) setStatus(ref, status string) bool {
	for range maxRetries {
		got, ok := a.call("pad_item", map[string]any{"action": "get", "ref": ref})
		if !ok {
			return false
		}
		seq := num(got.v, "item", "seq")
		ans, ok := a.call("pad_item", map[string]any{"action": "update", "ref": ref, "status": status,
			"expected_seq": seq})
		if ok {
			a.run.led.updated(updateAck{ID: str(ans.v, "id"), Ref: ref, Status: status, Seq: num(ans.v, "seq")}, seq)
			return true
		}
		if ans.code != api.CodeUpdateConflict {
			if ans.code != "" && !intendedRefusals[ans.code] {
				a.run.led.unsure(ref)
			}
			return false
		}
	}
	a.run.st.fail(fmt.Sprintf("%s: status update of %s still conflicting after %d re-reads", a.name, ref, maxRetries))
	return false
}

var countRE = regexp.MustCompile(`(?m)^count: (\d+)$`)

// bumpCounter adds one to the shared counter doc: read, add, write with
// expected_seq; on update_conflict re-read and add to the new value.
func (a *agent) bumpCounter() {
	ref := a.run.seed.CounterRef
	for range maxRetries {
		got, ok := a.call("pad_item", map[string]any{"action": "get", "ref": ref})
		if !ok {
			return
		}
		m := countRE.FindStringSubmatch(str(got.v, "item", "content"))
		if m == nil {
			a.run.st.fail(fmt.Sprintf("%s: counter doc %s has no count line: %.200s", a.name, ref, str(got.v, "item", "content")))
			return
		}
		n, _ := strconv.Atoi(m[1])
		ans, ok := a.call("pad_item", map[string]any{"action": "update", "ref": ref, "content": counterContent(n + 1),
			"expected_seq": num(got.v, "item", "seq")})
		if ok {
			a.run.led.counted(num(ans.v, "seq"), str(ans.v, "id"))
			return
		}
		if ans.code != api.CodeUpdateConflict {
			a.run.led.counterLost()
			return
		}
	}
	a.run.st.fail(fmt.Sprintf("%s: counter update still conflicting after %d re-reads", a.name, maxRetries))
}

// create files a follow-up task with a unique word in its title.
func (a *agent) create(under string) {
	a.made++
	token := fmt.Sprintf("lr%s%c%d", a.run.tag, 'a'+rune(a.idx), a.made)
	title := "Follow up " + bench.Words(a.r, 3+a.r.IntN(4)) + " " + token
	content := bench.Words(a.r, 30+a.r.IntN(60)) + "\n\nFound while working on " + under + "."
	prio := []string{"low", "medium", "high", "critical"}[a.r.IntN(4)]
	ans, ok := a.call("pad_item", map[string]any{"action": "create", "collection": "tasks", "title": title,
		"content": content, "priority": prio})
	if !ok {
		return
	}
	a.run.led.created(createAck{ID: str(ans.v, "id"), Ref: str(ans.v, "ref"), Title: title, Token: token,
		Content: content, Priority: prio, Seq: num(ans.v, "seq"), By: a.name})
}

// close ends the session and its server (once).
func (a *agent) close() {
	a.closeOnce.Do(func() { _ = a.cs.Close() })
}

// str walks object keys and answers the string (or number text) there.
func str(v any, path ...string) string {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// num walks object keys and answers the integer there (0 if none).
func num(v any, path ...string) int64 {
	n, _ := strconv.ParseInt(str(v, path...), 10, 64)
	return n
}
