//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/padd/padd/bench"
)

// The terminal user: padctl run as a process, every interval, one of
// item list (with filters), item show and item create, in turn. Each run is one
// operation; its latency is the whole command: exec, finding padd
// through daemon.json, the request, the output.

// cliLoop runs padctl commands until the deadline.
func (rn *runner) cliLoop(deadline time.Time) {
	r := rand.New(rand.NewPCG(99, rn.cfg.Seed))
	tick := time.NewTicker(rn.cfg.CLIInterval)
	defer tick.Stop()
	made := 0
	// In turn: list, show, create, show, list (2:2:1), so even a short
	// run with slow processes does each.
	for i := 0; time.Now().Before(deadline); i++ {
		switch k := i % 5; {
		case k == 0 || k == 4:
			filters := [][]string{
				{"item", "list", "tasks", "--status", "open", "--priority", "high", "--limit", "20"},
				{"item", "list", "tasks", "--status", "in-progress", "--limit", "50"},
				{"item", "list", "--limit", "20"},
				{"item", "list", "ideas", "--limit", "20"},
			}
			rn.padctlOp("padctl item-list", append(filters[r.IntN(len(filters))], "--format", "json"))
		case k == 1 || k == 3:
			ref := rn.seed.TaskRefs[r.IntN(len(rn.seed.TaskRefs))]
			rn.padctlOp("padctl item-show", []string{"item", "show", ref, "--format", "json"})
		default:
			made++
			token := fmt.Sprintf("lr%sz%d", rn.tag, made)
			title := "Noted " + bench.Words(r, 3+r.IntN(4)) + " " + token
			content := bench.Words(r, 20+r.IntN(40))
			prio := []string{"low", "medium", "high"}[r.IntN(3)]
			out, ok := rn.padctlOp("padctl item-create", []string{"item", "create", "tasks", title, "--content", content,
				"--priority", prio, "--format", "json"})
			if ok {
				var it struct {
					ID  string `json:"id"`
					Ref string `json:"ref"`
					Seq int64  `json:"seq"`
				}
				if err := json.Unmarshal(out, &it); err != nil || it.ID == "" {
					rn.st.fail(fmt.Sprintf("padctl item create: answer without an id: %.300s", out))
					continue
				}
				rn.led.created(createAck{ID: it.ID, Ref: it.Ref, Title: title, Token: token, Content: content,
					Priority: prio, Seq: it.Seq, By: "padctl"})
			}
		}
		<-tick.C
	}
}

// errCodeRE finds the code in padctl's error line: "error: <message> (<code>)".
var errCodeRE = regexp.MustCompile(`(?m)^error: .*\(([a-z0-9_]+)\)$`)

// padctlOp runs padctl once and records it as op. A non-zero exit is a
// failure, with the error line padctl printed.
func (rn *runner) padctlOp(op string, args []string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, rn.padctl, args...)
	cmd.Env = childEnv(rn.home, "PAD_WORKSPACE="+rn.seed.Slug)
	cmd.Dir = rn.home
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		code := "exit"
		if m := errCodeRE.FindStringSubmatch(stderr.String()); m != nil {
			code = m[1]
		}
		rn.st.record(op, d, outFailed, code, fmt.Sprintf("padctl %s: %v: %.300s", strings.Join(args, " "), err, stderr.String()))
		return nil, false
	}
	if cmd.ProcessState != nil {
		rn.addChildCPU(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
	}
	rn.st.record(op, d, outOK, "", "")
	return stdout.Bytes(), true
}
