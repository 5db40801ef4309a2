// Command syncfault runs padd's sync fault run (issue 23): a remote (a
// second padd behind a fault-injecting proxy, as the Pad of August 2026
// or as the current one) and a local padd process that cloned its
// workspace; agents write on both sides while the proxy drops, delays
// and refuses the local padd's requests, the local padd is killed with
// SIGKILL and restarted, and the remote restarts. Then both sides sync
// until idle and are compared entity by entity (docs/RELIABILITY.md,
// "Sync fault run"). It is one command for what CI runs for a few
// seconds:
//
//	go run ./scripts/syncfault -duration 60s -kills 4 -restarts 2
//
// With -laptops 3 it is the convergence run: three local padds, each on
// a link of its own that -outages cuts (refused connections or
// accept-and-close) and mends, all cloning the one remote; at the end
// every copy is compared with the remote and every laptop's sync verify
// must pass. -seeds runs several seeds in a row:
//
//	go run ./scripts/syncfault -laptops 3 -outages 2 -mode current -seed 301 -seeds 10
//
// It runs the e2e package's TestSyncFaultRun (the real padd binary,
// built by the test) with these flags, streams its log, and prints a
// summary. It exits non-zero when a remote holds a duplicate, an
// acknowledged write was lost, or the sides differ where no recorded
// conflict says why.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/padd/padd/internal/syncfaultreport"
	"github.com/padd/padd/internal/testrun"
)

func main() {
	duration := flag.Duration("duration", 60*time.Second, "how long the agents write")
	agents := flag.Int("agents", 2, "agents writing on each side")
	pause := flag.Duration("pause", 250*time.Millisecond, "an agent's mean pause between writes")
	mode := flag.String("mode", "both", "the remote: aug2026 (the Pad of August 2026: no idempotency keys, no expected_seq), current, or both (one run each)")
	laptops := flag.Int("laptops", 1, "local padds, each cloning the remote over a link of its own")
	outages := flag.Int("outages", 0, "cuts of each laptop's link during the agents (refused connections or accept-and-close)")
	outageMax := flag.Duration("outagemax", 8*time.Second, "how long a cut lasts at most")
	kills := flag.Int("kills", 4, "kill -9 of a local padd during the agents")
	restarts := flag.Int("restarts", 2, "restarts of the remote during the agents")
	rate := flag.Float64("rate", 0.05, "share of the local padd's requests to the remote that meet a fault")
	maxFaults := flag.Int("maxfaults", 0, "faults injected at most (0: no cap)")
	seed := flag.Uint64("seed", syncfaultreport.DefaultSeed, "random seed (0: from the clock; printed, so a run can be repeated)")
	seeds := flag.Int("seeds", 1, "runs in a row, with seeds seed, seed+1, ...")
	race := flag.Bool("race", false, "build padd and the test with the race detector")
	report := flag.String("report", "", "also keep the JSON results in this file")
	quiet := flag.Bool("q", false, "print only the summary, not the test's log")
	flag.Parse()

	var res syncfaultreport.Result
	var runErrs []error
	for i := range max(*seeds, 1) {
		s := *seed
		if s != 0 {
			s += uint64(i)
		}
		var one syncfaultreport.Result
		runErr, err := testrun.Test{Command: "syncfault", Name: "TestSyncFaultRun", Package: "./e2e",
			Args: []string{"-syncfault.duration=" + duration.String(), "-syncfault.agents=" + strconv.Itoa(*agents), "-syncfault.pause=" + pause.String(),
				"-syncfault.mode=" + *mode, "-syncfault.kills=" + strconv.Itoa(*kills), "-syncfault.restarts=" + strconv.Itoa(*restarts),
				"-syncfault.rate=" + strconv.FormatFloat(*rate, 'f', -1, 64), "-syncfault.maxfaults=" + strconv.Itoa(*maxFaults),
				"-syncfault.laptops=" + strconv.Itoa(*laptops), "-syncfault.outages=" + strconv.Itoa(*outages),
				"-syncfault.outagemax=" + outageMax.String(), "-syncfault.seed=" + strconv.FormatUint(s, 10)},
			ReportFlag: "-syncfault.report", Report: reportFile(*report, i, *seeds), Race: *race, Quiet: *quiet}.Run(&one)
		if err == nil && len(one.Runs) == 0 {
			err = fmt.Errorf("the test wrote no runs (%v); its log above says why", runErr)
		}
		if err != nil {
			testrun.Fail("syncfault", err)
		}
		if runErr != nil {
			runErrs = append(runErrs, runErr)
		}
		res.Runs = append(res.Runs, one.Runs...)
	}
	bad := summarize(res)
	if len(runErrs) > 0 || bad {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("PASS")
}

// summarize prints one row per run and the findings; it says whether
// any run failed.
func summarize(res syncfaultreport.Result) bool {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tseed\tlaptops\tagents s\tkills\toutages\trestarts\tfaults\trequests\tlocal acked\tremote acked\tunknown\tsettle s\titems l/r\tequal\tdifferent\tunexplained\tduplicates\tlost\tconflicts\tset aside\tpassed\t")
	bad := false
	for _, r := range res.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%d/%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%v\t\n",
			r.Mode, r.Seed, r.Laptops, r.AgentsSec, r.Kills, r.Outages, r.Restarts, r.Faults.Total(), r.Requests, r.LocalAcked.Total(), r.RemoteAcked.Total(),
			r.Unknown, r.SettleSec, r.LocalItems, r.RemoteItems, r.Equal, len(r.Different), r.Unexplained, len(r.Duplicates), len(r.Lost),
			r.Conflicts, r.SetAside, r.Passed)
		if !r.Passed || len(r.Duplicates) > 0 || len(r.Lost) > 0 || r.Unexplained > 0 || len(r.Verify) > 0 {
			bad = true
		}
	}
	tw.Flush()
	for _, r := range res.Runs {
		fmt.Printf("\n%s seed %d: faults %v; local acked %v; remote acked %v; %d comments, %d links and %d attachments on the remote\n",
			r.Mode, r.Seed, r.Faults, r.LocalAcked, r.RemoteAcked, r.Comments, r.Links, r.Attachments)
		for _, s := range r.Duplicates {
			fmt.Println("  duplicate:", s)
		}
		for _, s := range r.Lost {
			fmt.Println("  lost:", s)
		}
		for _, s := range r.RoundTrips {
			fmt.Println("  round trip (not lost: undone on its side, the other side's change stands):", s)
		}
		for _, s := range r.History {
			fmt.Println("  write:", s)
		}
		for _, s := range r.Different {
			fmt.Println("  different:", s)
		}
		for _, s := range r.ConflictList {
			fmt.Println("  conflict:", s)
		}
		for _, s := range r.Verify {
			fmt.Println("  verify:", s)
		}
		for _, s := range r.Errors {
			fmt.Println("  error:", s)
		}
	}
	return bad
}

// reportFile is where run i of n keeps its JSON report: the -report
// file itself for one run, else the file with the run's number.
func reportFile(report string, i, n int) string {
	if report == "" || n <= 1 {
		return report
	}
	ext := filepath.Ext(report)
	return fmt.Sprintf("%s.%d%s", strings.TrimSuffix(report, ext), i+1, ext)
}
