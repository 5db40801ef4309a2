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
	"flag"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/padd/padd/internal/faultreport"
	"github.com/padd/padd/internal/testrun"
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

	var res faultreport.Result
	runErr, err := testrun.Test{Command: "faultrun", Name: "TestFaultRun", Package: "./e2e",
		Args: []string{"-fault.cycles=" + strconv.Itoa(*cycles), "-fault.writers=" + strconv.Itoa(*writers),
			"-fault.maxkill=" + maxKill.String(), "-fault.seed=" + strconv.FormatUint(*seed, 10)},
		ReportFlag: "-fault.report", Report: *report, Race: *race, Quiet: *quiet}.Run(&res)
	if err != nil {
		testrun.Fail("faultrun", err)
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
