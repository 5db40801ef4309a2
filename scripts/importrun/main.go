//go:build linux

// Command importrun imports a large Pad JSON export of small items into a
// real padd and measures what the rest of padd sees meanwhile (issue 44):
//
//	go run ./scripts/importrun -items 1000000     # builds padd from this checkout
//	go run ./scripts/importrun -padd /tmp/old/padd -items 40000
//
// It starts padd on a temporary PAD_HOME, makes a small workspace of its
// own, and sends POST /api/v1/workspaces/import with an export of -items
// items of about 50 bytes each (an id, the collection, a title: the
// issue's 47 MB for a million). From -before ahead of the import (the
// latency the machine gives padd without it) it reads an item of the
// small workspace every -pace and writes one every ten paces, each
// request on its own whatever the others wait for, and samples padd's
// status (its Go heap, its anonymous memory) every -sample. After the
// import it waits for the search index to hold the new workspace,
// reading and writing the same way. It reports the import's time and
// rate, each phase's read and write latencies (p50, p99, max; a request
// counts in the phase it began in), and padd's peak heap and anonymous
// memory; -out writes the same as JSON.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testbin"
)

func main() {
	bin := flag.String("padd", "", "padd binary (default: build ./cmd/padd of this checkout)")
	items := flag.Int("items", 1_000_000, "items in the imported export")
	pace := flag.Duration("pace", 100*time.Millisecond, "time between two paced reads")
	sample := flag.Duration("sample", 250*time.Millisecond, "time between two samples of padd's status")
	before := flag.Duration("before", 20*time.Second, "paced requests before the import, for the machine's usual latency")
	out := flag.String("out", "", "write the results as JSON to this file too")
	flag.Parse()
	res, err := run(*bin, *items, *pace, *sample, *before)
	if err != nil {
		fmt.Fprintln(os.Stderr, "importrun:", err)
		os.Exit(2)
	}
	res.print(os.Stdout)
	if *out != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*out, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "importrun:", err)
			os.Exit(2)
		}
	}
}

// result is what a run measured.
type result struct {
	Items       int     `json:"items"`
	ExportBytes int     `json:"export_bytes"`
	Status      int     `json:"status"`
	ImportSecs  float64 `json:"import_seconds"`
	Rate        float64 `json:"items_per_second"`
	IndexSecs   float64 `json:"index_catch_up_seconds"`
	// Before the import (-before long: what the machine gives padd
	// now), during it, and during the index's catch-up after it.
	Before     phase   `json:"before_import"`
	Import     phase   `json:"during_import"`
	CatchUp    phase   `json:"during_index_catch_up"`
	PeakHeapMB float64 `json:"peak_heap_mb"`
	PeakOwnMB  float64 `json:"peak_anonymous_mb"`
	VmHWMMB    float64 `json:"vm_hwm_mb"`
	Load       string  `json:"load_average"`
}

// phase is the paced requests of one phase.
type phase struct {
	Reads  latencies `json:"reads"`
	Writes latencies `json:"writes"`
	Failed int       `json:"failed"`
}

// latencies are a phase's answers of one kind, in milliseconds.
type latencies struct {
	ms            []float64
	n             int
	p50, p99, max float64
}

func (l *latencies) add(d time.Duration) { l.ms = append(l.ms, float64(d.Microseconds())/1000) }

func (l *latencies) settle() {
	l.n = len(l.ms)
	if l.n == 0 {
		return
	}
	s := slices.Sorted(slices.Values(l.ms))
	l.p50, l.p99, l.max = s[l.n/2], s[min(l.n-1, l.n*99/100)], s[l.n-1]
}

func (l latencies) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"n": l.n, "p50_ms": l.p50, "p99_ms": l.p99, "max_ms": l.max})
}

func (l latencies) String() string {
	return fmt.Sprintf("n %d, p50 %.2f ms, p99 %.2f ms, max %.1f ms", l.n, l.p50, l.p99, l.max)
}

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "before the import, paced reads:  %s\n", r.Before.Reads)
	fmt.Fprintf(w, "  paced writes: %s; failed requests %d\n", r.Before.Writes, r.Before.Failed)
	fmt.Fprintf(w, "import of %d items (%.1f MB of JSON): %d in %.1f s, %.0f items/s\n", r.Items, float64(r.ExportBytes)/1e6, r.Status, r.ImportSecs, r.Rate)
	fmt.Fprintf(w, "  paced reads during the import:  %s\n", r.Import.Reads)
	fmt.Fprintf(w, "  paced writes during the import: %s; failed requests %d\n", r.Import.Writes, r.Import.Failed)
	fmt.Fprintf(w, "index catch-up after it: %.1f s\n", r.IndexSecs)
	fmt.Fprintf(w, "  paced reads during the catch-up:  %s\n", r.CatchUp.Reads)
	fmt.Fprintf(w, "  paced writes during the catch-up: %s; failed requests %d\n", r.CatchUp.Writes, r.CatchUp.Failed)
	fmt.Fprintf(w, "padd's peak Go heap %.0f MB, peak anonymous memory %.0f MB (sampled), VmHWM %.0f MB (with mapped files)\n", r.PeakHeapMB, r.PeakOwnMB, r.VmHWMMB)
	fmt.Fprintf(w, "load average at the end: %s\n", r.Load)
}

// export is Pad's JSON export of n small items in one collection.
func export(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":1,"exported_at":"2026-12-07T10:00:00Z","workspace":{"name":"Imported","slug":"imported","settings":"{}"},` +
		`"collections":[{"id":"c","name":"Tasks","slug":"tasks","prefix":"TASK","schema":"{\"fields\":[]}","settings":"{}"}],"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"i%d","collection_id":"c","title":"t%d"}`, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

type padd struct {
	cmd    *exec.Cmd
	base   string
	token  string
	hc     *http.Client
	exited chan struct{}
}

func (p *padd) do(method, path string, body []byte, out any) (int, error) {
	req, err := http.NewRequest(method, p.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %.300s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(b, out)
	}
	return resp.StatusCode, nil
}

func start(bin, home string) (*padd, error) {
	port, err := testbin.FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "PAD_HOME="+home)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &padd{cmd: cmd, hc: &http.Client{Timeout: time.Hour}, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		info, err := launch.ReadInfo(home)
		if err != nil || info.PID != cmd.Process.Pid {
			continue
		}
		p.base, p.token = "http://127.0.0.1:"+strconv.Itoa(info.Port), info.Token
		if _, err := p.do("GET", "/api/v1/health", nil, nil); err == nil {
			return p, nil
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("padd did not start")
}

func (p *padd) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// status is what the run reads of /api/v1/padd/status.
type status struct {
	Memory *struct {
		HeapBytes int64 `json:"heap_bytes"`
		OwnBytes  int64 `json:"own_bytes"`
	} `json:"memory"`
	Imports []struct {
		ItemsWritten int `json:"items_written"`
	} `json:"imports"`
}

func run(bin string, n int, pace, sample, before time.Duration) (*result, error) {
	tmp, err := os.MkdirTemp("", "padd-importrun-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		root, err := testbin.ModuleRoot()
		if err != nil {
			return nil, err
		}
		bin = filepath.Join(tmp, "padd")
		if err := testbin.GoBuild(root, bin, false, nil, "./cmd/padd"); err != nil {
			return nil, err
		}
	}
	home := filepath.Join(tmp, "home")
	p, err := start(bin, home)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	if _, err := p.do("POST", "/api/v1/workspaces", []byte(`{"name":"Beside","slug":"beside"}`), nil); err != nil {
		return nil, err
	}
	var it struct {
		Ref string `json:"ref"`
	}
	if _, err := p.do("POST", "/api/v1/workspaces/beside/collections/tasks/items", []byte(`{"title":"Read me"}`), &it); err != nil {
		return nil, err
	}
	body := export(n)
	res := &result{Items: n, ExportBytes: len(body)}

	// The paced requests and the samples run until stop closes; each
	// phase's latencies go to the phase cur points at.
	var mu sync.Mutex
	cur := &res.Before
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Each paced request goes on its own, at its tick, whatever the ones
	// before it are waiting for, and counts in the phase it began in.
	var paced sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(pace)
		defer tick.Stop()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			mu.Lock()
			ph := cur
			mu.Unlock()
			time1 := func(l func(*phase) *latencies, method, path string, body []byte) {
				t0 := time.Now()
				_, err := p.do(method, path, body, nil)
				d := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					ph.Failed++
				} else {
					l(ph).add(d)
				}
			}
			paced.Go(func() {
				time1(func(ph *phase) *latencies { return &ph.Reads }, "GET", "/api/v1/workspaces/beside/items/"+it.Ref, nil)
			})
			if k%10 == 0 {
				paced.Go(func() {
					time1(func(ph *phase) *latencies { return &ph.Writes }, "POST", "/api/v1/workspaces/beside/collections/tasks/items",
						[]byte(`{"title":"Paced `+strconv.Itoa(k)+`"}`))
				})
			}
		}
	})
	wg.Go(func() {
		tick := time.NewTicker(sample)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			var st status
			if _, err := p.do("GET", "/api/v1/padd/status", nil, &st); err == nil && st.Memory != nil {
				mu.Lock()
				res.PeakHeapMB = max(res.PeakHeapMB, float64(st.Memory.HeapBytes)/(1<<20))
				res.PeakOwnMB = max(res.PeakOwnMB, float64(st.Memory.OwnBytes)/(1<<20))
				mu.Unlock()
			}
		}
	})
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
		paced.Wait()
	}()

	time.Sleep(before)
	mu.Lock()
	cur = &res.Import
	mu.Unlock()
	t0 := time.Now()
	var ws struct {
		ID  string `json:"id"`
		Seq int64  `json:"seq"`
	}
	res.Status, err = p.do("POST", "/api/v1/workspaces/import", body, &ws)
	res.ImportSecs = time.Since(t0).Seconds()
	res.Rate = float64(n) / res.ImportSecs
	if err != nil {
		return nil, err
	}
	mu.Lock()
	cur = &res.CatchUp
	mu.Unlock()
	t1 := time.Now()
	for {
		var st struct {
			Watermarks map[string]int64 `json:"watermarks"`
		}
		if _, err := p.do("GET", "/api/v1/padd/index", nil, &st); err != nil {
			return nil, err
		}
		if st.Watermarks[ws.ID] >= ws.Seq {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	res.IndexSecs = time.Since(t1).Seconds()
	close(stop)
	wg.Wait()
	paced.Wait()
	for _, l := range []*latencies{&res.Before.Reads, &res.Before.Writes, &res.Import.Reads, &res.Import.Writes, &res.CatchUp.Reads, &res.CatchUp.Writes} {
		l.settle()
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if f := bytes.Fields(line); len(f) == 3 && string(f[0]) == "VmHWM:" {
				kb, _ := strconv.ParseFloat(string(f[1]), 64)
				res.VmHWMMB = kb / 1024
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		res.Load = string(bytes.TrimSpace(b))
	}
	return res, nil
}
