package mirror

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
)

// TestMirrorPerf measures the targets on a 10k-item workspace
// (PADD_MIRROR_PERF=1; docs/PERFORMANCE.md, "Mirror folders (issue 30)"):
// the first write of the folder, a file save reaching its item, and an
// item change reaching its file.
func TestMirrorPerf(t *testing.T) {
	if os.Getenv("PADD_MIRROR_PERF") == "" {
		t.Skip("PADD_MIRROR_PERF=1 runs the measurement")
	}
	r := &rig{t: t, dbPath: t.TempDir() + "/padd.db", dir: t.TempDir() + "/mirror"}
	r.open()
	defer r.close()
	if _, err := r.store.CreateWorkspace(storage.WorkspaceCreate{Name: "Big", Slug: "big"}, user); err != nil {
		t.Fatal(err)
	}
	r.ws = "big"
	const n = 10000
	in := make([]storage.ItemCreate, n)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "tasks", Title: "Item number " + strconv.Itoa(i), Content: strings.Repeat("Some words of content. ", 20),
			Fields: map[string]any{"status": "open", "priority": "medium"}}
	}
	if _, err := r.store.CreateItems(r.ws, in, user, 1000); err != nil {
		t.Fatal(err)
	}
	r.start()
	start := time.Now()
	if _, err := r.m.Add(r.ws, r.dir); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "every file", func() bool { return r.status().Files == n && r.status().State == "watching" })
	t.Logf("first write of %d files: %v", n, time.Since(start).Round(time.Millisecond))

	var saves, changes []time.Duration
	for i := 1; i <= 20; i++ {
		ref := "TASK-" + strconv.Itoa(i*100)
		rel := r.fileOf(ref)
		want := "saved " + strconv.Itoa(i)
		body := r.read(rel)
		j := strings.Index(body, "\n---\n")
		t0 := time.Now()
		r.write(rel, body[:j+5]+want)
		r.waitItem(ref, "saved", func(v *storage.ItemView) bool { return v.Content == want })
		saves = append(saves, time.Since(t0))

		c := "changed " + strconv.Itoa(i)
		t0 = time.Now()
		if _, err := r.store.UpdateItem(r.ws, ref, storage.ItemUpdate{Content: &c}, user); err != nil {
			t.Fatal(err)
		}
		r.waitFile(rel, "changed", func(s string) bool { return strings.HasSuffix(s, c) })
		changes = append(changes, time.Since(t0))
	}
	t.Logf("file save -> item: median %v, max %v", median(saves), maxOf(saves))
	t.Logf("item change -> file: median %v, max %v", median(changes), maxOf(changes))
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2].Round(time.Millisecond)
}

func maxOf(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = max(m, x)
	}
	return m.Round(time.Millisecond)
}
