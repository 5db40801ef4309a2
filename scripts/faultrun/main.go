// Command faultrun runs padd's fault run: kill -9 at random points of a
// concurrent write load, restart, verify that nothing acknowledged was
// lost (docs/RELIABILITY.md). It is one command for what CI runs in a
// few cycles:
//
//	go run ./scripts/faultrun -cycles 20
//
// It runs the e2e package's TestFaultRun (the real padd binary, built by
// the test) with more cycles, streams its log, and prints a summary
// table. It exits non-zero when anything was lost or any check failed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/padd/padd/internal/faultreport"
)

func main() {
	cycles := flag.Int("cycles", 20, "kill -9 cycles")
	writers := flag.Int("writers", 6, "concurrent writers")
	maxKill := flag.Duration("maxkill", 1500*time.Millisecond, "latest kill point after each load starts")
	seed := flag.Uint64("seed", faultreport.DefaultSeed, "random seed (0: from the clock; printed, so a run can be repeated)")
	race := flag.Bool("race", false, "build padd and the test with the race detector")
	report := flag.String("report", "", "also keep the JSON results in this file")
	quiet := flag.Bool("q", false, "print only the summary, not the test's log")
	flag.Parse()

	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	out := *report
	if out == "" {
		f, err := os.CreateTemp("", "faultrun-*.json")
		if err != nil {
			fail(err)
		}
		f.Close()
		out = f.Name()
		defer os.Remove(out)
	} else if out, err = filepath.Abs(out); err != nil {
		fail(err)
	}
	args := []string{"test", "-count=1", "-run", "^TestFaultRun$", "-v", "-timeout", "3h"}
	if *race {
		args = append(args, "-race")
	}
	args = append(args, "./e2e", "-args",
		"-fault.cycles="+strconv.Itoa(*cycles), "-fault.writers="+strconv.Itoa(*writers),
		"-fault.maxkill="+maxKill.String(), "-fault.seed="+strconv.FormatUint(*seed, 10), "-fault.report="+out)
	fmt.Fprintf(os.Stderr, "faultrun: go %s\n", strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if !*quiet {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	}
	runErr := cmd.Run()

	b, err := os.ReadFile(out)
	var res faultreport.Result
	if err != nil || len(b) == 0 || json.Unmarshal(b, &res) != nil {
		fail(fmt.Errorf("the test wrote no results (%v); its log above says why", runErr))
	}
	summarize(res)
	if runErr != nil || !res.Passed || res.Lost > 0 {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("PASS")
}

func summarize(r faultreport.Result) {
	fmt.Printf("\nfault run: %d cycles, %d writers, seed %d, race %v, %.1fs\n", len(r.Cycles), r.Writers, r.Seed, r.Race, r.DurationSec)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cycle\tkill ms\tcreates\tupdates\tcomments\tunacked landed\tunacked upd landed/not\thead\titems\tcheck ms\trestart ms\tsearch ms\tstream live\tlost\t")
	var creates, updates, comments, unacked, pc, pd int
	for _, c := range r.Cycles {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t\n", c.Cycle, c.KillAfterMS, c.Creates, c.Updates, c.Comments,
			c.UnackedCommitted, c.PendingCommitted, c.PendingDropped, c.Head, c.Items, c.CheckMS, c.RestartMS, c.SearchMS, c.SSEEvents, c.Lost)
		creates += c.Creates
		updates += c.Updates
		comments += c.Comments
		unacked += c.UnackedCommitted
		pc += c.PendingCommitted
		pd += c.PendingDropped
	}
	tw.Flush()
	fmt.Printf("acknowledged: %d creates, %d updates, %d comments (%d writes); unacknowledged that had landed: %d creates, %d updates (%d had not)\n",
		creates, updates, comments, creates+updates+comments, unacked, pc, pd)
	fmt.Printf("end: %d items, %d comments, workspace change log 1..%d and journal 1..%d without a gap; lost: %d\n",
		r.Items, r.Comments, r.Head, r.GlobalHead, r.Lost)
}

// moduleRoot is the directory of the go.mod this command is run in.
func moduleRoot() (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run faultrun inside the padd module (go run ./scripts/faultrun)")
	}
	return filepath.Dir(gomod), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "faultrun:", err)
	os.Exit(2)
}
