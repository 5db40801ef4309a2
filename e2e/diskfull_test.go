//go:build linux

package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// diskFull fills the disk under a padd and frees it again. On a tmpfs of
// its own (mount needs root, which CI has) it is a real ENOSPC: a filler
// file takes the space and deleting it frees it. Where mount is refused
// the test says so and falls back to an unprivileged simulation: padd's
// file-size limit (RLIMIT_FSIZE, set with prlimit) is lowered to what its
// database holds, so growing it fails with EFBIG, and raised again to
// free it. PADD_TEST_DISKFULL=rlimit forces the simulation.
type diskFull struct {
	mode   string // "tmpfs" or "rlimit"
	mnt    string
	filler string
}

// tmpfsSize is the test tmpfs's size until the space is freed, and
// freedSize after.
const tmpfsSize, freedSize = 16 << 20, 64 << 20

func newDiskFull(t *testing.T) *diskFull {
	t.Helper()
	mnt := t.TempDir()
	df := &diskFull{mode: "tmpfs", mnt: mnt, filler: filepath.Join(mnt, "filler")}
	if os.Getenv("PADD_TEST_DISKFULL") == "rlimit" {
		df.mode = "rlimit"
		t.Logf("PADD_TEST_DISKFULL=rlimit: simulating a full disk with RLIMIT_FSIZE instead of a tmpfs")
		return df
	}
	err := unix.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", tmpfsSize))
	if err != nil {
		df.mode = "rlimit"
		t.Logf("NOTE: mount -t tmpfs %s refused (%v; it needs root): falling back to an unprivileged simulation of a full disk, "+
			"padd's RLIMIT_FSIZE lowered with prlimit (EFBIG instead of ENOSPC)", mnt, err)
		return df
	}
	t.Cleanup(func() {
		// Runs after padd's own cleanup (registered later) killed it.
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount the test tmpfs %s: %v", mnt, err)
		}
	})
	t.Logf("padd's data directory is on a %d MiB tmpfs at %s", tmpfsSize>>20, mnt)
	return df
}

// fill takes all but reserve bytes of the disk (tmpfs), or caps padd's
// file sizes at what padd.db holds now plus reserve (rlimit).
func (df *diskFull) fill(t *testing.T, d *instance, reserve int64) {
	t.Helper()
	if df.mode == "rlimit" {
		fi, err := os.Stat(filepath.Join(d.home, daemon.DBFile))
		if err != nil {
			t.Fatal(err)
		}
		var old unix.Rlimit
		if err := unix.Prlimit(d.pid(), unix.RLIMIT_FSIZE, nil, &old); err != nil {
			t.Fatalf("prlimit: read padd's RLIMIT_FSIZE: %v", err)
		}
		lim := uint64(fi.Size() + reserve)
		if err := unix.Prlimit(d.pid(), unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: lim, Max: old.Max}, nil); err != nil {
			t.Fatalf("prlimit RLIMIT_FSIZE on padd pid %d: %v", d.pid(), err)
		}
		return
	}
	var st unix.Statfs_t
	if err := unix.Statfs(df.mnt, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	f, err := os.OpenFile(df.filler, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for n := free - reserve; n > 0; n -= int64(len(chunk)) {
		if _, err := f.Write(chunk[:min(int64(len(chunk)), n)]); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatalf("write the filler: %v", err)
		}
	}
	if err := unix.Statfs(df.mnt, &st); err == nil {
		t.Logf("filler takes the disk: %d KiB of %d KiB free", int64(st.Bavail)*st.Bsize>>10, tmpfsSize>>10)
	}
}

// free gives the space back: the filler is deleted, or the limit lifted.
func (df *diskFull) free(t *testing.T, d *instance) {
	t.Helper()
	if df.mode == "rlimit" {
		var old unix.Rlimit
		if err := unix.Prlimit(d.pid(), unix.RLIMIT_FSIZE, nil, &old); err != nil {
			t.Fatalf("prlimit: %v", err)
		}
		// Back up to the hard limit, which an unprivileged user may do.
		if err := unix.Prlimit(d.pid(), unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: old.Max, Max: old.Max}, nil); err != nil {
			t.Fatalf("prlimit: %v", err)
		}
		return
	}
	if err := os.Remove(df.filler); err != nil {
		t.Fatalf("delete the filler: %v", err)
	}
	// And more: what the filler held may be no more than padd's own work
	// takes back at once on a busy machine (an index build retried in
	// scratch space, the write-ahead log flushed), and the test writes on.
	if err := unix.Mount("tmpfs", df.mnt, "tmpfs", unix.MS_REMOUNT, fmt.Sprintf("size=%d,mode=0700", freedSize)); err != nil {
		t.Fatalf("grow the test tmpfs to %d MiB: %v", freedSize>>20, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(df.mnt, &st); err == nil {
		t.Logf("space freed: %d KiB of %d KiB free", int64(st.Bavail)*st.Bsize>>10, int64(st.Blocks)*st.Bsize>>10)
	}
}

// TestDiskFull: with padd's data on a small disk, writes go on until the
// disk is full; from then every write is refused with 507
// insufficient_storage (or, when it still fits in the database's free
// pages, accepted) — never a bare 500, a panic or an exit. Reads keep
// answering with the data stored before, and once space is freed writes
// succeed again without a restart, search included. Stopped, the
// database passes bbolt's check and holds every acknowledged write.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	df := newDiskFull(t)
	home := filepath.Join(df.mnt, "home")
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Full")
	items := "/api/v1/workspaces/" + ws + "/collections/tasks/items"

	kept := map[string]string{} // acknowledged item id -> content
	for i := range 20 {
		it := d.createItem(t, ws, "tasks", api.ItemCreate{Title: fmt.Sprintf("kept %d %s", i, searchMarker), Content: fmt.Sprintf("kept %d %s", i, searchMarker)})
		kept[it.ID] = it.Content
	}
	first := ""
	for id := range kept {
		first = id
		break
	}
	var c api.Comment
	decode(t, d.do(t, "POST", "/api/v1/workspaces/"+ws+"/items/"+first+"/comments", mustJSON(t, map[string]string{"body": "kept comment"})), &c)

	// Indexed before the disk fills (a search waits for the index to
	// reach the workspace's head), so it must stay searchable after.
	var before struct {
		Total int `json:"total"`
	}
	decode(t, d.do(t, "GET", "/api/v1/search?q=kept&workspace="+ws+"&limit=1", nil), &before)
	if before.Total != 20 {
		t.Fatalf("search for \"kept\" before the disk fills finds %d, want 20", before.Total)
	}

	df.fill(t, d, 1<<20)

	// Write until the disk is full: 64 KiB items.
	big := strings.Repeat("lorem ipsum ", 64<<10/12)
	accepted, refused := 0, 0
	for i := 0; i < 2000 && refused < 5; i++ {
		title := fmt.Sprintf("filling %d %s", i, searchMarker)
		r := d.do(t, "POST", items, mustJSON(t, map[string]string{"title": title, "content": big + searchMarker}))
		switch r.Status {
		case 201:
			var it api.Item
			decode(t, r, &it)
			kept[it.ID] = it.Content
			accepted++
		case 507:
			details := wantError(t, r, 507, model.CodeInsufficientStorage)
			if details["reason"] != "disk_full" {
				t.Errorf("507 details %v, want reason disk_full", details)
			}
			refused++
		default:
			t.Fatalf("write %d on a filling disk: %s (want 201, or 507 insufficient_storage)", i, r)
		}
	}
	if refused == 0 {
		t.Fatalf("%d writes of 64 KiB all accepted: the disk never filled", accepted)
	}
	t.Logf("%s: %d writes of 64 KiB accepted, then refused with 507 insufficient_storage", df.mode, accepted)

	// Take the last free bytes too. Every kind of write answers 2xx (one
	// that fits in pages the database already has) or 507, nothing else.
	df.fill(t, d, 0)
	writes := []struct{ method, path, body string }{
		{"POST", items, `{"title":"small while full ` + searchMarker + `","content":"` + big[:8000] + `"}`},
		{"PATCH", "/api/v1/workspaces/" + ws + "/items/" + first, `{"content":"` + big + `"}`},
		{"POST", "/api/v1/workspaces/" + ws + "/items/" + first + "/comments", `{"body":"` + big + `"}`},
		{"POST", "/api/v1/workspaces/" + ws + "/collections", `{"name":"Bugs","description":"` + big[:4000] + `","fields":"severity:select:low,high"}`},
		{"POST", "/api/v1/workspaces", `{"name":"Another"}`},
		{"POST", "/api/v1/workspaces/" + ws + "/items/bulk", `{"ids":["` + first + `"],"op":"set-priority","priority":"low"}`},
	}
	mixed := map[int]int{}
	for round := range 3 {
		for _, w := range writes {
			r := d.do(t, w.method, w.path, []byte(w.body))
			mixed[r.Status]++
			switch {
			case r.Status == 507:
				wantError(t, r, 507, model.CodeInsufficientStorage)
			case r.Status < 300:
				if w.method == "PATCH" {
					var it api.Item
					decode(t, r, &it)
					kept[it.ID] = it.Content
				}
				if w.path == items {
					var it api.Item
					decode(t, r, &it)
					kept[it.ID] = it.Content
				}
			default:
				t.Errorf("round %d: %s %s on a full disk: %s (want 2xx or 507)", round, w.method, w.path, r)
			}
		}
	}

	// (How many fit depends on the pages bbolt freed when the refused
	// commits rolled back; the refusals above are the ones that must be.)
	t.Logf("%d mixed writes on the full disk (create, update, comment, collection, workspace, bulk) answered: %v", 3*len(writes), mixed)

	// Reads go on, with everything stored before.
	wantStatus(t, d.do(t, "GET", "/api/v1/health", nil), 200)
	for id, content := range kept {
		it, err := d.getItem(t, ws, id)
		if err != nil || it.Content != content {
			t.Fatalf("while the disk is full, item %s reads %v (content %d bytes, want %d)", id, err, len(it.Content), len(content))
		}
	}
	wantStatus(t, d.do(t, "GET", "/api/v1/workspaces/"+ws+"/items?limit=5", nil), 200)
	var found struct {
		Total int `json:"total"`
	}
	decode(t, d.do(t, "GET", "/api/v1/search?q=kept&workspace="+ws+"&limit=1", nil), &found)
	if found.Total != 20 {
		t.Errorf("search for \"kept\" while the disk is full finds %d, want 20", found.Total)
	}
	if d.done() {
		t.Fatalf("padd exited on a full disk: %s", tail(d.stderr.String(), 2000))
	}
	if strings.Contains(d.stderr.String(), "panic") {
		t.Errorf("padd logged a panic on a full disk:\n%s", tail(d.stderr.String(), 4000))
	}

	// Free the space: writes succeed again, no restart.
	df.free(t, d)
	freed := time.Now()
	var after api.Item
	attempt := 0
	testwait.UntilOK(t, func() error {
		attempt++
		r := d.do(t, "POST", items, mustJSON(t, map[string]string{"title": "after the disk was freed " + searchMarker, "content": "quixotic " + searchMarker}))
		if r.Status != 201 {
			return fmt.Errorf("space freed %s ago, writes still refused: %s", time.Since(freed).Round(time.Millisecond), r)
		}
		decode(t, r, &after)
		kept[after.ID] = after.Content
		t.Logf("space freed: write accepted again after %s (attempt %d), same padd pid %d", time.Since(freed).Round(time.Millisecond), attempt, d.pid())
		return nil
	})
	for i := range 20 {
		r := d.do(t, "POST", items, mustJSON(t, map[string]string{"title": fmt.Sprintf("after %d %s", i, searchMarker), "content": big}))
		wantStatus(t, r, 201)
		var it api.Item
		decode(t, r, &it)
		kept[it.ID] = it.Content
	}
	// The index caught up with what was written while the disk was full
	// and after: a search finds the new item.
	testwait.UntilOK(t, func() error {
		var res struct {
			Total int `json:"total"`
		}
		r := d.do(t, "GET", "/api/v1/search?q=quixotic&workspace="+ws, nil)
		if r.Status == 200 {
			decode(t, r, &res)
			if res.Total == 1 {
				return nil
			}
		}
		return fmt.Errorf("after space was freed, search never found the new item: %s", r)
	})

	// Stopped: the database is sound and holds every acknowledged write.
	d.stop()
	st, err := storage.Open(filepath.Join(home, daemon.DBFile), storage.Options{Timeout: 5 * time.Second, Logger: quietLog})
	if err != nil {
		t.Fatalf("open the database after the disk-full run: %v", err)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("bbolt check after the disk-full run: %v", err)
	}
	for id, content := range kept {
		v, err := views.Of(st).GetItem(ws, id)
		if err != nil || v.Content != content {
			t.Fatalf("storage lost acknowledged item %s: %v", id, err)
		}
	}
	cs, err := views.Of(st).ListComments(ws, first)
	if err != nil || len(cs) == 0 || cs[0].Body != "kept comment" {
		t.Fatalf("the comment stored before the disk filled: %v %+v", err, cs)
	}
	st.Close()

	// A restart on the freed disk serves the same data and a search index
	// that agrees with it (the index may have been rebuilt if a segment
	// write was cut short; either way it answers correctly).
	d = startPadd(t, home)
	verifySearch(t, d, ws, countItems(t, d, ws))
	if aside, _ := filepath.Glob(filepath.Join(home, "search.bleve.broken-*")); len(aside) > 0 {
		t.Logf("the index was rebuilt on restart (moved aside: %v)", aside)
	}
	d.stop()
}

// countItems lists the workspace and counts its items.
func countItems(t *testing.T, d *instance, ws string) int {
	t.Helper()
	var n int
	for offset := 0; ; {
		var page []api.Item
		r := d.do(t, "GET", fmt.Sprintf("/api/v1/workspaces/%s/items?include_archived=true&limit=1000&offset=%d", ws, offset), nil)
		wantStatus(t, r, 200)
		decode(t, r, &page)
		n += len(page)
		if r.Header.Get("X-Pad-Has-More") != "true" || len(page) == 0 {
			return n
		}
		offset += len(page)
	}
}

// TestIndexBuildRetriesAfterDiskFull: a search index that cannot be
// built because the disk is full is built again by padd on its own once
// there is room; nobody has to run `padctl index rebuild`.
func TestIndexBuildRetriesAfterDiskFull(t *testing.T) {
	t.Parallel()
	df := newDiskFull(t)
	if df.mode != "tmpfs" {
		// The rlimit stand-in caps file sizes at the database's, which a
		// fresh index stays under: it cannot make this build fail.
		t.Skip("needs a tmpfs to fill (root): the RLIMIT_FSIZE stand-in cannot fail an index build")
	}
	home := filepath.Join(df.mnt, "home")
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Retry")
	body := strings.Repeat("ledger reconciliation notes ", 32<<10/28)
	for i := range 40 {
		d.createItem(t, ws, "tasks", api.ItemCreate{Title: fmt.Sprintf("retry %d %s", i, searchMarker), Content: body})
	}
	d.stop()
	// No index: the next start builds one from the 40 items, about a
	// megabyte of text, on a disk with 64 KiB left.
	if err := os.RemoveAll(filepath.Join(home, "search.bleve")); err != nil {
		t.Fatal(err)
	}
	df.fill(t, d, 64<<10)
	d = startPadd(t, home)
	testwait.UntilOK(t, func() error {
		if !strings.Contains(d.stderr.String(), "padd retries on its own") {
			return fmt.Errorf("the index build on a full disk did not fail as this test needs:\n%s", tail(d.stderr.String(), 3000))
		}
		return nil
	})
	df.free(t, d)
	freed := time.Now()
	testwait.UntilOK(t, func() error {
		var res struct {
			Total int `json:"total"`
		}
		r := d.do(t, "GET", "/api/v1/search?q="+searchMarker+"&workspace="+ws, nil)
		if r.Status == 200 {
			decode(t, r, &res)
			if res.Total == 40 {
				t.Logf("search answered all 40 items %s after the space was freed", time.Since(freed).Round(time.Millisecond))
				return nil
			}
		}
		return fmt.Errorf("%s after the space was freed search still answers %s", time.Since(freed).Round(time.Second), r)
	})
}
