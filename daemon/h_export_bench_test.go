package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bench"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
)

// exportSeed fixes the generated workspace of the benchmarks.
const exportSeed = 29

// generatedExport is Pad's JSON export of a workspace of n generated
// items (bench.Workspace) with the default template's collections, two
// comments per item and the generator's dependencies as links.
func generatedExport(tb testing.TB, collections []api.CollectionExport, n int) []byte {
	tb.Helper()
	coll := map[string]string{}
	for _, c := range collections {
		coll[c.Slug] = c.ID
	}
	r := rand.New(rand.NewPCG(exportSeed, 1))
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	e := api.WorkspaceExport{Version: 1, ExportedAt: at.Format(time.RFC3339),
		Workspace: api.WorkspaceExportMeta{Name: "Generated", Slug: "generated", Settings: "{}"}, Collections: collections}
	items := bench.Workspace(exportSeed, n)
	id := func(i int) string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", i) }
	for i, it := range items {
		when := at.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		fields, _ := json.Marshal(it.Fields)
		if it.Fields == nil {
			fields = []byte("{}")
		}
		tags, _ := json.Marshal(it.Tags)
		if it.Tags == nil {
			tags = []byte("[]")
		}
		x := api.ItemExport{ID: id(i), CollectionID: coll[it.Collection], Title: it.Title, Content: it.Content,
			Fields: string(fields), Tags: string(tags), CreatedBy: "user", LastModifiedBy: "user", Source: "web",
			ItemNumber: int64(i + 1), CreatedAt: when, UpdatedAt: when}
		if it.Parent >= 0 {
			x.ParentID = id(it.Parent)
		}
		e.Items = append(e.Items, x)
		for c := range 2 {
			e.Comments = append(e.Comments, api.CommentExport{ID: id(n + 2*i + c), ItemID: id(i), Author: "Local User",
				Body: bench.Words(r, 10+r.IntN(30)), CreatedBy: "user", Source: "web", CreatedAt: when, UpdatedAt: when})
		}
		for _, b := range it.BlockedBy {
			e.ItemLinks = append(e.ItemLinks, api.ItemLinkExport{ID: id(3*n + i), SourceID: id(b), TargetID: id(i),
				LinkType: "blocks", CreatedBy: "user", CreatedAt: when})
		}
	}
	raw, err := json.Marshal(e)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// benchPadd is a padd over a store with real syncs (as padd runs) and a
// running indexer, on loopback.
func benchPadd(b *testing.B) (url string, stop func()) {
	dir := b.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	index, err := searchindex.Open(dir, store, log)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	indexed := make(chan struct{})
	go func() { index.Run(ctx); close(indexed) }()
	srv := NewServer(store, index, testToken, log)
	ts := httptest.NewServer(srv)
	return ts.URL, func() {
		srv.Close()
		ts.Close()
		cancel()
		<-indexed
		index.Close()
		store.Close()
	}
}

func benchDo(b *testing.B, method, url, contentType string, body []byte) []byte {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode >= 300 {
		b.Fatalf("%s %s: %d %v %.300s", method, url, resp.StatusCode, err, out)
	}
	return out
}

// BenchmarkExportImport10k imports a generated 10k-item workspace with
// 20k comments (the JSON export), exports it as JSON and as the bundle,
// and imports the bundle: each step's seconds and CPU seconds are
// reported (goal: ≤ 5 s each, issue 29), with the heap in use at the end.
func BenchmarkExportImport10k(b *testing.B) {
	const n = 10_000
	b.Logf("seed %d, %d items", exportSeed, n)
	url, stop := benchPadd(b)
	defer stop()
	benchDo(b, "POST", url+"/api/v1/workspaces", "application/json", []byte(`{"name":"Template","slug":"t"}`))
	var tmpl api.WorkspaceExport
	if err := json.Unmarshal(benchDo(b, "GET", url+"/api/v1/workspaces/t/export", "", nil), &tmpl); err != nil {
		b.Fatal(err)
	}
	body := generatedExport(b, tmpl.Collections, n)
	b.Logf("export JSON %d bytes", len(body))
	var imp, expJ, expT, impT time.Duration
	var cpu [4]time.Duration
	var tarLen int
	for i := 0; i < b.N; i++ {
		c0 := cpuTime()
		t0 := time.Now()
		var res api.ImportResult
		if err := json.Unmarshal(benchDo(b, "POST", url+"/api/v1/workspaces/import", "application/json", body), &res); err != nil {
			b.Fatal(err)
		}
		if res.ImportSummary.Imported.Items != n || res.ImportSummary.Imported.Comments != 2*n {
			b.Fatalf("imported %+v", res.ImportSummary.Imported)
		}
		t1, c1 := time.Now(), cpuTime()
		benchDo(b, "GET", url+"/api/v1/workspaces/"+res.Slug+"/export", "", nil)
		t2, c2 := time.Now(), cpuTime()
		bundle := benchDo(b, "GET", url+"/api/v1/workspaces/"+res.Slug+"/export?format=tar", "", nil)
		t3, c3 := time.Now(), cpuTime()
		benchDo(b, "POST", url+"/api/v1/workspaces/import", "application/gzip", bundle)
		t4, c4 := time.Now(), cpuTime()
		cpu[0], cpu[1], cpu[2], cpu[3] = cpu[0]+c1-c0, cpu[1]+c2-c1, cpu[2]+c3-c2, cpu[3]+c4-c3
		imp, expJ, expT, impT, tarLen = imp+t1.Sub(t0), expJ+t2.Sub(t1), expT+t3.Sub(t2), impT+t4.Sub(t3), len(bundle)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(per(imp), "import-json-s")
	b.ReportMetric(per(expJ), "export-json-s")
	b.ReportMetric(per(expT), "export-tar-s")
	b.ReportMetric(per(impT), "import-tar-s")
	b.ReportMetric(per(cpu[0]), "import-json-cpu-s")
	b.ReportMetric(per(cpu[1]), "export-json-cpu-s")
	b.ReportMetric(per(cpu[2]), "export-tar-cpu-s")
	b.ReportMetric(per(cpu[3]), "import-tar-cpu-s")
	b.ReportMetric(float64(tarLen)/(1<<20), "bundle-MB")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
}
