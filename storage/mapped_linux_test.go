package storage

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/padd/padd/internal/mapped"
	"github.com/padd/padd/internal/mapped/mappedtest"
)

// bodyOf is item i's content: long enough that the items fill many pages.
func bodyOf(i int) string {
	return fmt.Sprintf("item %d: ", i) + strings.Repeat(fmt.Sprintf("words of item %d ", i), 120)
}

func TestReleaseMappedGivesBackTheDatabasePagesAndLosesNothing(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Mapped")
	const n = 3000
	in := make([]ItemCreate, n)
	for i := range in {
		in[i] = ItemCreate{Collection: "docs", Title: fmt.Sprintf("Doc %d", i), Content: bodyOf(i)}
	}
	made, err := s.CreateItems(ws.Slug, in, user, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	readAll := func(when string) {
		t.Helper()
		for i, m := range made {
			v, err := s.GetItem(ws.Slug, m.Ref)
			if err != nil {
				t.Fatalf("%s: get %s: %v", when, m.Ref, err)
			}
			if v.Title != in[i].Title || v.Content != in[i].Content {
				t.Fatalf("%s: %s reads back %q with %d bytes of content; want %q with %d", when, m.Ref, v.Title, len(v.Content), in[i].Title, len(in[i].Content))
			}
		}
	}
	readAll("before a release")
	_, mappedAll, err := mapped.Resident()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	_, released, _ := mapped.Resident()
	// 3,000 items of 2 KB: well over 4 MiB of the file was mapped.
	if mappedAll-released < 4<<20 {
		t.Fatalf("ReleaseMapped gave back %d bytes of file-backed pages; want the database's, over 4 MiB", mappedAll-released)
	}
	readAll("after a release")
}

// Releases while writes grow the file (and bbolt remaps it) and reads run
// beside them: every acknowledged write reads back, and the file checks
// out (openTest's cleanup).
func TestReleaseMappedDuringWritesAndReads(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Busy")
	const n = 1500
	refs := make([]string, n)
	stop := mappedtest.Repeat(s.ReleaseMapped)
	for i := range n {
		r, err := s.CreateItem(ws.Slug, ItemCreate{Collection: "docs", Title: fmt.Sprintf("Doc %d", i), Content: bodyOf(i)}, user)
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		refs[i] = r.Item.Ref
		if i%100 == 99 {
			if err := s.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
		if v, err := s.GetItem(ws.Slug, refs[i/2]); err != nil || v.Content != bodyOf(i/2) {
			t.Fatalf("read of %s while releasing: %v", refs[i/2], err)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for i, ref := range refs {
		if v, err := s.GetItem(ws.Slug, ref); err != nil || v.Content != bodyOf(i) {
			t.Fatalf("%s after the releases: %v", ref, err)
		}
	}
}

// Reads of the database map the pages they read, not the file around
// them, and go on doing so after bbolt has grown and remapped the file.
func TestDatabaseReadsMapOnlyTheirPages(t *testing.T) {
	if err := mapped.CanMapExactly(); err != nil {
		t.Skipf("this system cannot map reads exactly, so the database keeps the kernel's fault-around: %v", err)
	}
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Exact")
	var refs []string
	var size int64
	grow := func(n int) {
		t.Helper()
		in := make([]ItemCreate, n)
		for i := range in {
			in[i] = ItemCreate{Collection: "docs", Title: fmt.Sprintf("Doc %d", len(refs)+i), Content: bodyOf(len(refs) + i)}
		}
		made, err := s.CreateItems(ws.Slug, in, user, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range made {
			refs = append(refs, m.Ref)
		}
		if err := s.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		size = fi.Size()
	}
	readSpread := func(when string) {
		t.Helper()
		if !s.MappedExactly() {
			t.Fatalf("%s: the store does not map its reads exactly", when)
		}
		if err := s.ReleaseMapped(); err != nil {
			t.Fatal(err)
		}
		_, before, _ := mapped.Resident()
		const reads = 40
		for i := range reads {
			j := i * len(refs) / reads
			if v, err := s.GetItem(ws.Slug, refs[j]); err != nil || v.Content != bodyOf(j) {
				t.Fatalf("%s: read of %s: %v", when, refs[j], err)
			}
		}
		_, after, _ := mapped.Resident()
		// Each read takes a dozen pages at most, some shared; the 64 KB
		// of fault-around would take most of the file.
		if got, limit := after-before, int64(reads*16*4096); got > limit {
			t.Fatalf("%s: %d reads of items across a %d MB database mapped %d KB; want under %d KB", when, reads, size>>20, got>>10, limit>>10)
		}
	}
	grow(4000)
	readSpread("after open")
	grow(6000) // past bbolt's first mapping: it remaps
	readSpread("after the file grew")
}
