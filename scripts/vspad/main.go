// Command vspad times the same operations, over the same REST API, on
// padd and on a Pad server running on this machine, for the README's
// table of current numbers.
//
//	go run ./scripts/vspad -pad-url http://127.0.0.1:7799 -pad-token-file tok
//
// padd is built from this checkout and started on a temporary PAD_HOME.
// The Pad server is one you started yourself (padd never builds or
// starts it); its token is a Pad API token. Both get a new workspace of
// -items tasks, then each operation runs -n times back to back and
// -paced times one every 100 ms (as a person or an agent thinking), and
// the medians and 99th percentiles are printed side by side. With
// -pad-pid, the two servers' resident and anonymous memory afterwards.
//
// Pad limits a user to 10 API requests a second (a burst of 60): a
// request it refuses with 429 is retried once the limiter has room, and
// only the answered attempt is timed, so the table compares answers,
// not Pad's limiter.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/procstat"
)

func main() {
	padURL := flag.String("pad-url", "", "a Pad server on this machine (required)")
	tokFile := flag.String("pad-token-file", "", "file holding a Pad API token (required)")
	padPID := flag.Int("pad-pid", 0, "the Pad server's pid, to read its memory")
	items := flag.Int("items", 500, "tasks in each workspace")
	n := flag.Int("n", 200, "back-to-back runs of each operation")
	paced := flag.Int("paced", 50, "paced runs of each operation, one every 100 ms")
	seed := flag.Uint64("seed", 1, "seed of the generated words")
	flag.Parse()
	if *padURL == "" || *tokFile == "" {
		flag.Usage()
		os.Exit(2)
	}
	tok, err := os.ReadFile(*tokFile)
	must(err)
	fmt.Printf("seed %d, %d items, %d back to back, %d paced; %s, %d cores; load average %s\n", *seed, *items, *n, *paced,
		runtime.Version(), runtime.NumCPU(), procstat.LoadAvg())

	padd, paddPID, stop := startPadd()
	defer stop()
	pad := api.NewClient(strings.TrimRight(*padURL, "/"), strings.TrimSpace(string(tok)))

	ctx := context.Background()
	sides := []*side{{name: "padd", c: padd, pid: paddPID}, {name: "Pad", c: pad, pid: *padPID}}
	for _, s := range sides {
		s.fill(ctx, *items, *seed)
	}
	ops := []struct {
		name string
		run  func(s *side, i int) error
	}{
		{"item get by ref", func(s *side, i int) error {
			_, err := s.c.GetItem(ctx, s.ws, s.refs[i%len(s.refs)])
			return err
		}},
		{"item create", func(s *side, i int) error {
			_, err := s.c.CreateItem(ctx, s.ws, "tasks", api.ItemCreate{Title: fmt.Sprintf("created %d", i), Content: "made by vspad"})
			return err
		}},
		{"list page of 50", func(s *side, i int) error {
			_, _, err := s.c.ListItems(ctx, s.ws, "tasks", api.ItemQuery{Limit: 50})
			return err
		}},
		{"search, two words", func(s *side, i int) error {
			_, err := s.c.Search(ctx, api.SearchQuery{Workspace: s.ws, Query: words[i%len(words)] + " " + words[(i+3)%len(words)]})
			return err
		}},
		{"dashboard", func(s *side, i int) error {
			_, err := s.c.Dashboard(ctx, s.ws)
			return err
		}},
	}
	fmt.Printf("\n%-20s %-12s %22s %22s\n", "operation", "", "padd median / p99", "Pad median / p99")
	for _, op := range ops {
		for _, mode := range []struct {
			name  string
			runs  int
			pause time.Duration
		}{{"back to back", *n, 0}, {"paced", *paced, 100 * time.Millisecond}} {
			var cols []string
			for _, s := range sides {
				d := timeRuns(mode.runs, mode.pause, func(i int) error { return op.run(s, i) })
				cols = append(cols, fmt.Sprintf("%8.2f / %8.2f ms", ms(pct(d, 50)), ms(pct(d, 99))))
			}
			fmt.Printf("%-20s %-12s %22s %22s\n", op.name, mode.name, cols[0], cols[1])
		}
	}
	fmt.Println()
	for _, s := range sides {
		if s.pid != 0 {
			fmt.Printf("%s memory after the run: %s\n", s.name, memory(s.pid))
		}
	}
}

type side struct {
	name string
	c    *api.Client
	pid  int
	ws   string
	refs []string // the items fill made
}

var words = []string{"login", "cache", "deploy", "timeout", "session", "report", "schema", "backup", "render", "upload", "billing", "search"}

// fill makes a workspace with the startup template's collections and
// items tasks of a few generated words each.
func (s *side) fill(ctx context.Context, items int, seed uint64) {
	slug := fmt.Sprintf("vspad-%d", time.Now().UnixNano()%1e9)
	ws, err := s.c.CreateWorkspace(ctx, api.WorkspaceCreate{Name: slug, Slug: slug, Template: "startup"})
	must(err)
	s.ws = ws.Slug
	rng := rand.New(rand.NewPCG(seed, 0))
	start := time.Now()
	for i := range items {
		var b strings.Builder
		for range 12 {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		title := fmt.Sprintf("%s %s %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i)
		var it *api.Item
		_ = answered(func() (err error) {
			it, err = s.c.CreateItem(ctx, s.ws, "tasks", api.ItemCreate{Title: title, Content: b.String()})
			return err
		})
		s.refs = append(s.refs, it.Ref)
	}
	fmt.Printf("%s: %d items in %s (workspace %s)\n", s.name, items, time.Since(start).Round(time.Millisecond), s.ws)
}

func timeRuns(runs int, pause time.Duration, f func(i int) error) []time.Duration {
	out := make([]time.Duration, 0, runs)
	for i := range runs {
		if pause > 0 {
			time.Sleep(pause) // the pacing itself: a request every pause
		}
		out = append(out, answered(func() error { return f(i) }))
	}
	slices.Sort(out)
	return out
}

// answered runs f until it is not refused by a rate limiter, and
// returns how long the answered attempt took.
func answered(f func() error) time.Duration {
	for {
		t := time.Now()
		err := f()
		d := time.Since(t)
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == 429 {
			time.Sleep(150 * time.Millisecond) // the limiter's refill
			continue
		}
		must(err)
		return d
	}
}

func pct(d []time.Duration, p int) time.Duration { return d[min(len(d)-1, len(d)*p/100)] }
func ms(d time.Duration) float64                 { return float64(d.Microseconds()) / 1000 }

// startPadd builds padd and padctl from this checkout into a temporary
// directory and starts padd on a temporary PAD_HOME.
func startPadd() (*api.Client, int, func()) {
	tmp, err := os.MkdirTemp("", "padd-vspad-")
	must(err)
	build := exec.Command("go", "build", "-o", tmp+"/", "./cmd/padd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	must(build.Run())
	home := filepath.Join(tmp, "home")
	ctx := context.Background()
	c, info, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home, Start: true, Padd: filepath.Join(tmp, "padd")})
	must(err)
	return c, info.PID, func() {
		if p, err := os.FindProcess(info.PID); err == nil {
			_ = p.Signal(os.Interrupt)
		}
		for launch.ProcessAlive(info.PID) {
			time.Sleep(20 * time.Millisecond)
		}
		os.RemoveAll(tmp)
	}
}

func memory(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "RssAnon:") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, ", ")
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "vspad:", err)
		os.Exit(1)
	}
}
