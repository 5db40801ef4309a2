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
// It runs the e2e package's TestSyncFaultRun (the real padd binary,
// built by the test) with these flags, streams its log, and prints a
// summary. It exits non-zero when a remote holds a duplicate, an
// acknowledged write was lost, or the sides differ where no recorded
// conflict says why.
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

	"github.com/padd/padd/internal/syncfaultreport"
)

func main() {
	duration := flag.Duration("duration", 60*time.Second, "how long the agents write")
	agents := flag.Int("agents", 2, "agents writing on each side")
	pause := flag.Duration("pause", 250*time.Millisecond, "an agent's mean pause between writes")
	mode := flag.String("mode", "both", "the remote: aug2026 (the Pad of August 2026: no idempotency keys, no expected_seq), current, or both (one run each)")
	kills := flag.Int("kills", 4, "kill -9 of the local padd during the agents")
	restarts := flag.Int("restarts", 2, "restarts of the remote during the agents")
	rate := flag.Float64("rate", 0.05, "share of the local padd's requests to the remote that meet a fault")
	maxFaults := flag.Int("maxfaults", 0, "faults injected at most (0: no cap)")
	seed := flag.Uint64("seed", syncfaultreport.DefaultSeed, "random seed (0: from the clock; printed, so a run can be repeated)")
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
		f, err := os.CreateTemp("", "syncfault-*.json")
		if err != nil {
			fail(err)
		}
		f.Close()
		out = f.Name()
		defer os.Remove(out)
	} else if out, err = filepath.Abs(out); err != nil {
		fail(err)
	}
	args := []string{"test", "-count=1", "-run", "^TestSyncFaultRun$", "-v", "-timeout", "3h"}
	if *race {
		args = append(args, "-race")
	}
	args = append(args, "./e2e", "-args",
		"-syncfault.duration="+duration.String(), "-syncfault.agents="+strconv.Itoa(*agents), "-syncfault.pause="+pause.String(),
		"-syncfault.mode="+*mode, "-syncfault.kills="+strconv.Itoa(*kills), "-syncfault.restarts="+strconv.Itoa(*restarts),
		"-syncfault.rate="+strconv.FormatFloat(*rate, 'f', -1, 64), "-syncfault.maxfaults="+strconv.Itoa(*maxFaults),
		"-syncfault.seed="+strconv.FormatUint(*seed, 10), "-syncfault.report="+out)
	fmt.Fprintf(os.Stderr, "syncfault: go %s\n", strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if !*quiet {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	}
	runErr := cmd.Run()

	b, err := os.ReadFile(out)
	var res syncfaultreport.Result
	if err != nil || len(b) == 0 || json.Unmarshal(b, &res) != nil || len(res.Runs) == 0 {
		fail(fmt.Errorf("the test wrote no results (%v); its log above says why", runErr))
	}
	bad := summarize(res)
	if runErr != nil || bad {
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
	fmt.Fprintln(tw, "mode\tseed\tagents s\tkills\trestarts\tfaults\trequests\tlocal acked\tremote acked\tunknown\tsettle s\titems l/r\tequal\tdifferent\tunexplained\tduplicates\tlost\tconflicts\tset aside\tpassed\t")
	bad := false
	for _, r := range res.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%d/%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%v\t\n",
			r.Mode, r.Seed, r.AgentsSec, r.Kills, r.Restarts, r.Faults.Total(), r.Requests, r.LocalAcked.Total(), r.RemoteAcked.Total(),
			r.Unknown, r.SettleSec, r.LocalItems, r.RemoteItems, r.Equal, len(r.Different), r.Unexplained, len(r.Duplicates), len(r.Lost),
			r.Conflicts, r.SetAside, r.Passed)
		if !r.Passed || len(r.Duplicates) > 0 || len(r.Lost) > 0 || r.Unexplained > 0 {
			bad = true
		}
	}
	tw.Flush()
	for _, r := range res.Runs {
		fmt.Printf("\n%s: faults %v; local acked %v; remote acked %v; %d comments and %d links on the remote\n",
			r.Mode, r.Faults, r.LocalAcked, r.RemoteAcked, r.Comments, r.Links)
		for _, s := range r.Duplicates {
			fmt.Println("  duplicate:", s)
		}
		for _, s := range r.Lost {
			fmt.Println("  lost:", s)
		}
		for _, s := range r.Different {
			fmt.Println("  different:", s)
		}
		for _, s := range r.ConflictList {
			fmt.Println("  conflict:", s)
		}
		for _, s := range r.Errors {
			fmt.Println("  error:", s)
		}
	}
	return bad
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
		return "", fmt.Errorf("run syncfault inside the padd module (go run ./scripts/syncfault)")
	}
	return filepath.Dir(gomod), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "syncfault:", err)
	os.Exit(2)
}
