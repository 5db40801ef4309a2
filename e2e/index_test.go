//go:build unix

package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/searchindex"
)

// TestCorruptIndexRebuilt: the search index is derived data. Damaged
// while padd is stopped, in any of the ways below, it is found damaged at
// start, moved aside (kept for a look) and rebuilt from the database;
// padd serves throughout and search then answers exactly as before.
// indexedItems is how many items indexedHome makes.
const indexedItems = 300

// indexedHome makes a stopped padd's data directory holding one
// workspace of indexedItems items, all indexed, and returns it and the
// workspace's slug.
func indexedHome(t *testing.T) (string, string) {
	t.Helper()
	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Indexed")
	for i := range indexedItems {
		d.createItem(t, ws, "tasks", api.ItemCreate{Title: fmt.Sprintf("item %d %s", i, searchMarker),
			Content: fmt.Sprintf("body of item %d, codeword w%04d", i, i)})
	}
	verifySearch(t, d, ws, indexedItems)
	d.stop()
	segments, _ := filepath.Glob(filepath.Join(home, searchindex.Dir, "store", "*.zap"))
	if len(segments) == 0 {
		t.Fatalf("the stopped index has no segment files to damage")
	}
	return home, ws
}

// middle, given to flip, is the middle of each segment.
const middle = int64(1) << 62

// flip overwrites 16 bytes of every segment at off (negative: from the
// end; middle: its middle) with 0xff, always inside the file: a write
// past a small segment's end would cut off its footer instead, and
// Bleve skips such a snapshot rather than report it damaged.
func flip(off int64) func(t *testing.T, idx string) {
	return func(t *testing.T, idx string) {
		segs, _ := filepath.Glob(filepath.Join(idx, "store", "*.zap"))
		for _, s := range segs {
			f, err := os.OpenFile(s, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			at := off
			switch {
			case off == middle:
				at = fi.Size() / 2
			case at < 0:
				at += fi.Size()
			}
			at = max(0, min(at, fi.Size()-16))
			if _, err := f.WriteAt([]byte(strings.Repeat("\xff", 16)), at); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
}

func TestCorruptIndexRebuilt(t *testing.T) {
	t.Parallel()
	const items = indexedItems
	pristine, ws := indexedHome(t)
	write := func(rel, content string) func(t *testing.T, idx string) {
		return func(t *testing.T, idx string) {
			if err := os.WriteFile(filepath.Join(idx, rel), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A segment file missing or cut short would make Bleve skip its
	// snapshot for an older one, whose successors can then land in the
	// broken one's leftovers: padd checks the newest snapshot before
	// Bleve opens it and rebuilds instead (checkNewestSnapshot).
	cases := []struct {
		name    string
		corrupt func(t *testing.T, idx string)
	}{
		{"index_meta.json garbage", write("index_meta.json", "garbage")},
		{"root.bolt garbage", write("store/root.bolt", strings.Repeat("\x5a", 64<<10))},
		{"segment bytes flipped near the start", flip(0)},
		{"segment bytes flipped in the middle", flip(middle)},
		// Bleve panicked opening this one (slice bounds out of range in
		// zap's loadField), and padd with it: a crash loop at every start.
		{"segment bytes flipped near the footer", flip(-123)},
		{"segment truncated", func(t *testing.T, idx string) {
			segs, _ := filepath.Glob(filepath.Join(idx, "store", "*.zap"))
			for _, s := range segs {
				if err := os.Truncate(s, 100); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"segment deleted", func(t *testing.T, idx string) {
			segs, _ := filepath.Glob(filepath.Join(idx, "store", "*.zap"))
			for _, s := range segs {
				os.Remove(s)
			}
		}},
		{"index directory replaced by a file", func(t *testing.T, idx string) {
			os.RemoveAll(idx)
			write("", "not a directory")(t, idx)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			copyTree(t, pristine, home)
			tc.corrupt(t, filepath.Join(home, searchindex.Dir))
			d := startPadd(t, home)
			// Search waits out the rebuild (503 index_rebuilding) and then
			// finds every item, and one by its own word.
			verifySearch(t, d, ws, items)
			var res struct {
				Total   int `json:"total"`
				Results []struct {
					Item api.Item `json:"item"`
				} `json:"results"`
			}
			decode(t, d.do(t, "GET", "/api/v1/search?q=w0123&workspace="+ws, nil), &res)
			if res.Total != 1 || len(res.Results) != 1 || res.Results[0].Item.Title != "item 123 "+searchMarker {
				t.Errorf("search for one item's codeword: %+v", res)
			}
			aside, _ := filepath.Glob(filepath.Join(home, searchindex.Dir+".broken-*"))
			switch {
			case len(aside) != 1:
				t.Errorf("the damaged index was not moved aside (found %v)", aside)
			case !strings.Contains(d.stderr.String(), "moved aside and rebuilding"):
				t.Errorf("padd did not say it rebuilt the index:\n%s", tail(d.stderr.String(), 2000))
			}
			// The repaired index is sound: a clean restart uses it as it is.
			d.stop()
			d = startPadd(t, home)
			verifySearch(t, d, ws, items)
			if again, _ := filepath.Glob(filepath.Join(home, searchindex.Dir+".broken-*")); len(again) != len(aside) {
				t.Errorf("the repaired index was found damaged again: %v", again)
			}
		})
	}
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if !e.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// TestIndexDamagedWhileRunning: segment bytes flipped under a running
// padd (Bleve maps the files, so it reads the damage). Whatever Bleve
// makes of it, padd stays up and answers searches 200 or a coded 503
// (a panic in Bleve is caught, and the index moved aside and rebuilt),
// never a 5xx of its own; and the next start finds the damage by its
// checksums if it is still there, and rebuilds.
func TestIndexDamagedWhileRunning(t *testing.T) {
	t.Parallel()
	home, ws := indexedHome(t)
	d := startPadd(t, home)
	verifySearch(t, d, ws, indexedItems)
	for _, off := range []int64{20000, 60000, -2000} {
		flip(off)(t, filepath.Join(home, searchindex.Dir))
	}
	answers := map[int]int{}
	for round := range 20 {
		for _, q := range []string{"/api/v1/search?q=body&sort=title&workspace=" + ws, "/api/v1/search?q=w0123&workspace=" + ws,
			"/api/v1/search?q=" + searchMarker + "&limit=200&workspace=" + ws, "/api/v1/workspaces/" + ws + "/items?search=codeword"} {
			r := d.do(t, "GET", q, nil)
			answers[r.Status]++
			switch r.Status {
			case 200:
			case 503:
				var e map[string]any
				decode(t, r, &e)
			default:
				t.Fatalf("round %d: %s answered %s", round, q, r)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d.done() {
		t.Fatalf("padd died reading a damaged index:\n%s", tail(d.stderr.String(), 3000))
	}
	rebuilt := strings.Contains(d.stderr.String(), "search index is damaged")
	t.Logf("searches on the damaged index answered %v; caught and rebuilt while running: %v", answers, rebuilt)
	d.stop()
	d = startPadd(t, home)
	verifySearch(t, d, ws, indexedItems)
	if aside, _ := filepath.Glob(filepath.Join(home, searchindex.Dir+".broken-*")); len(aside) == 0 {
		t.Errorf("the damaged index was never moved aside")
	}
}
