//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/bench"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Benchmarks of the real padd over loopback HTTP on a 100k-item
// workspace. The workspace is written straight into a data directory
// once per run (bench.Workspace), then padd starts on a copy of it and
// builds its search index before the measurements begin.

const benchItems = 100_000

var (
	seedOnce sync.Once
	seedDir  string
	seedErr  error
)

// seedHome is a data directory holding the 100k workspace "bench".
func seedHome(b *testing.B) string {
	seedOnce.Do(func() {
		seedDir, seedErr = os.MkdirTemp("", "padd-e2e-bench-")
		if seedErr != nil {
			return
		}
		st, err := storage.Open(filepath.Join(seedDir, "padd.db"), storage.Options{NoSync: true, Logger: quietLog})
		if err != nil {
			seedErr = err
			return
		}
		defer st.Close()
		user := model.UserActor(model.SourceCLI)
		ws, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Bench", Slug: "bench"}, user)
		if err != nil {
			seedErr = err
			return
		}
		gen := bench.Workspace(9, benchItems)
		in := make([]storage.ItemCreate, len(gen))
		for i, it := range gen {
			in[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
		}
		_, seedErr = st.CreateItems(ws.Slug, in, user, 5000)
	})
	if seedErr != nil {
		b.Fatal(seedErr)
	}
	home := b.TempDir()
	data, err := os.ReadFile(filepath.Join(seedDir, "padd.db"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "padd.db"), data, 0o600); err != nil {
		b.Fatal(err)
	}
	return home
}

// readyPadd starts padd on home and waits until its search index is built.
func readyPadd(b *testing.B, home string) *instance {
	d := startPadd(b, home)
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		r := d.do(b, "GET", "/api/v1/padd/index", nil)
		if bytes.Contains(r.Body, []byte(`"state":"ready"`)) {
			return d
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatal("search index not ready after 10 minutes")
	return nil
}

type lat []time.Duration

func (l lat) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	b.ReportMetric(float64(l[len(l)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(l[len(l)*99/100])/1e6, "p99-ms")
}

// timed sends one request and records its latency; it fails on any
// answer other than want.
func (d *instance) timed(b *testing.B, l *lat, want int, method, path string, body []byte) {
	req := d.request(context.Background(), method, path, body)
	t := time.Now()
	r, err := d.send(req)
	*l = append(*l, time.Since(t))
	if err != nil || r.Status != want {
		b.Fatalf("%s %s: %v %v", method, path, r, err)
	}
}

func BenchmarkREST100k(b *testing.B) {
	d := readyPadd(b, seedHome(b))
	defer d.stop() // a clean exit writes PADD_CPUPROFILE
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("create", func(b *testing.B) {
		var l lat
		for i := 0; b.Loop(); i++ {
			body := []byte(fmt.Sprintf(`{"title":"bench create %d","content":"made by the benchmark","fields":{"priority":"high"}}`, i))
			d.timed(b, &l, 201, "POST", "/api/v1/workspaces/bench/collections/tasks/items", body)
		}
		l.report(b)
	})
	var refs []struct {
		Ref string `json:"ref"`
	}
	decode(b, d.do(b, "GET", "/api/v1/workspaces/bench/items?limit=1000", nil), &refs)
	b.Run("get", func(b *testing.B) {
		var l lat
		for i := 0; b.Loop(); i++ {
			d.timed(b, &l, 200, "GET", "/api/v1/workspaces/bench/items/"+refs[i%len(refs)].Ref, nil)
		}
		l.report(b)
	})
	b.Run("list-page-50", func(b *testing.B) {
		var l lat
		for b.Loop() {
			d.timed(b, &l, 200, "GET", "/api/v1/workspaces/bench/collections/tasks/items?status=open,in-progress&priority=high&limit=50", nil)
		}
		l.report(b)
	})
	b.Run("search", func(b *testing.B) {
		var l lat
		for b.Loop() {
			q := bench.Topics[r.IntN(len(bench.Topics))]
			if r.IntN(2) == 0 {
				q += "+" + bench.Topics[r.IntN(len(bench.Topics))]
			}
			d.timed(b, &l, 200, "GET", "/api/v1/search?workspace=bench&limit=20&q="+q, nil)
		}
		l.report(b)
	})
}

// BenchmarkStartAndRSS100k measures padd's start-up (exec to answering
// health) on a 100k workspace whose index is already built, and its
// resident memory when idle after a round of reads. Run with -benchtime=1x.
//
// It starts padd twice. First warm ("warm-"), on files the bench's copy
// of the seeded database and the index build left in the page cache in
// large folios: each page padd touches maps its whole folio, up to
// 2 MB, so a few reads show up as a lot of RSS. Then cold (no prefix),
// with the data directory dropped from the page cache as after a
// reboot: padd reads what it needs from disk and its RSS shows the
// pages it touched. A database padd wrote itself, page by page, is
// cached in small folios as in the cold case; one copied whole (this
// bench, a restore from a backup) is cached like the warm case.
func BenchmarkStartAndRSS100k(b *testing.B) {
	home := seedHome(b)
	first := readyPadd(b, home) // builds the index once
	first.stop()
	for b.Loop() {
		measureStartAndRSS(b, home, "warm-")
		if evictPageCache(b, home) {
			measureStartAndRSS(b, home, "")
		} else {
			b.Log("cannot drop files from the page cache here: cold figures not measured")
		}
	}
}

func measureStartAndRSS(b *testing.B, home, prefix string) {
	start := time.Now()
	d := startPadd(b, home)
	b.ReportMetric(float64(time.Since(start))/1e6, prefix+"start-ms")
	b.Logf("%sstarted: %s", prefix, rssLine(b, d.pid()))
	d.do(b, "GET", "/api/v1/workspaces/bench/items?limit=200", nil)
	d.do(b, "GET", "/api/v1/workspaces/bench/items?limit=50", nil)
	b.Logf("%safter two lists: %s", prefix, rssLine(b, d.pid()))
	d.do(b, "GET", "/api/v1/search?workspace=bench&q=cache", nil)
	b.Logf("%safter a search: %s", prefix, rssLine(b, d.pid()))
	time.Sleep(2 * time.Second) // idle
	st := procStatus(b, d.pid())
	b.ReportMetric(float64(st["VmRSS"])/1024, prefix+"idle-RSS-MB")
	// Anonymous memory is padd's own; file-backed pages are the
	// mapped database and index, shared with the page cache and
	// given back by the kernel under memory pressure.
	b.ReportMetric(float64(st["RssAnon"])/1024, prefix+"idle-anon-MB")
	b.ReportMetric(float64(st["RssFile"])/1024, prefix+"idle-file-MB")
	d.stop()
}

// procStatus reads the kB figures of /proc/<pid>/status (VmRSS,
// RssAnon, RssFile, VmHWM...).
func procStatus(b *testing.B, pid int) map[string]int {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "kB" {
			out[strings.TrimSuffix(f[0], ":")], _ = strconv.Atoi(f[1])
		}
	}
	if _, ok := out["VmRSS"]; !ok {
		b.Fatal("no VmRSS in /proc/<pid>/status")
	}
	return out
}

func rssLine(b *testing.B, pid int) string {
	st := procStatus(b, pid)
	return fmt.Sprintf("RSS %d MB (anon %d, file %d)", st["VmRSS"]/1024, st["RssAnon"]/1024, st["RssFile"]/1024)
}
