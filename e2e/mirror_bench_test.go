//go:build unix

// These tests run on the real-binaries harness of harness_test.go, which is Unix only.

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bench"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// BenchmarkMirror10k measures the mirror targets with a real padd
// on a 10k-item workspace (docs/PERFORMANCE.md, "Mirror folders
// (issue 30)"): the first write of the folder, a file saved reaching its
// item and the search index, an item changed over REST reaching its file.
//
//	go test -run '^$' -bench BenchmarkMirror10k -benchtime 1x -v ./e2e/
func BenchmarkMirror10k(b *testing.B) {
	home := b.TempDir()
	st, err := storage.Open(filepath.Join(home, "padd.db"), storage.Options{NoSync: true, Logger: quietLog})
	if err != nil {
		b.Fatal(err)
	}
	user := model.UserActor(model.SourceCLI)
	if _, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Bench", Slug: "bench"}, user); err != nil {
		b.Fatal(err)
	}
	gen := bench.Workspace(9, 10_000)
	in := make([]storage.ItemCreate, len(gen))
	for i, it := range gen {
		in[i] = storage.ItemCreate{Collection: it.Collection, Title: it.Title, Content: it.Content, Fields: it.Fields, Tags: it.Tags}
	}
	if _, err := st.CreateItems("bench", in, user, 5000); err != nil {
		b.Fatal(err)
	}
	st.Close()
	d := readyPadd(b, home)
	dir := filepath.Join(b.TempDir(), "pad")
	ctx := context.Background()
	mirrored := func() api.Mirror {
		list, err := d.client.Mirrors(ctx)
		if err != nil || len(list) != 1 {
			b.Fatalf("mirrors: %v %v", list, err)
		}
		return list[0]
	}
	for b.Loop() {
		start := time.Now()
		if _, err := d.client.AddMirror(ctx, api.MirrorSpec{Workspace: "bench", Dir: dir}); err != nil {
			b.Fatal(err)
		}
		testwait.Until(b, "every file written", func() bool {
			m := mirrored()
			return m.State == "watching" && m.Files == len(gen)
		})
		b.ReportMetric(time.Since(start).Seconds(), "first-write-s")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "tasks", "*.md"))
	if len(files) < 20 {
		b.Fatalf("only %d task files", len(files))
	}
	var saves, toItem, changes lat
	for i := range 20 {
		p := files[i*len(files)/20]
		body, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		ref := strings.TrimPrefix(string(body[:bytes.Index(body, []byte("\ntitle:"))]), "---\nref: ")
		word := fmt.Sprintf("mirrorsaved%dword", i)
		j := bytes.Index(body, []byte("\n---\n"))
		t0 := time.Now()
		if err := os.WriteFile(p, append(body[:j+5:j+5], []byte("saved in an editor "+word)...), 0o600); err != nil {
			b.Fatal(err)
		}
		testwait.Until(b, "the saved file in its item", func() bool {
			r := d.do(b, "GET", "/api/v1/workspaces/bench/items/"+ref, nil)
			return r.Status == 200 && bytes.Contains(r.Body, []byte(word))
		})
		toItem = append(toItem, time.Since(t0))
		testwait.Until(b, "the saved word searchable", func() bool {
			r := d.do(b, "GET", "/api/v1/search?workspace=bench&q="+url.QueryEscape(word), nil)
			return r.Status == 200 && bytes.Contains(r.Body, []byte(ref))
		})
		saves = append(saves, time.Since(t0))

		want := fmt.Sprintf("changed over REST %d", i)
		t0 = time.Now()
		r := d.do(b, "PATCH", "/api/v1/workspaces/bench/items/"+ref, mustJSON(b, map[string]any{"content": want}))
		wantStatus(b, r, 200)
		testwait.Until(b, "the REST change in the file", func() bool {
			got, _ := os.ReadFile(p)
			return bytes.HasSuffix(got, []byte(want))
		})
		changes = append(changes, time.Since(t0))
	}
	b.Logf("file save -> item, in order: %v", toItem)
	b.Logf("file save -> search, in order: %v", saves)
	b.Logf("REST change -> file, in order: %v", changes)
	slices.Sort(saves)
	slices.Sort(toItem)
	b.ReportMetric(float64(toItem[len(toItem)/2])/1e6, "save-to-item-p50-ms")
	b.ReportMetric(float64(toItem[len(toItem)-1])/1e6, "save-to-item-max-ms")
	slices.Sort(changes)
	b.ReportMetric(float64(saves[len(saves)/2])/1e6, "save-to-search-p50-ms")
	b.ReportMetric(float64(saves[len(saves)-1])/1e6, "save-to-search-max-ms")
	b.ReportMetric(float64(changes[len(changes)/2])/1e6, "rest-to-file-p50-ms")
	b.ReportMetric(float64(changes[len(changes)-1])/1e6, "rest-to-file-max-ms")
}
