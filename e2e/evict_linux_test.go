package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// evictPageCache drops a data directory's files from the page cache, as
// a reboot would: padd then reads them from disk, and its RSS shows
// the pages it touches. Without this, a directory just copied or just
// built sits in the cache in large folios, and each page padd touches
// maps its whole folio, up to 2 MB of RSS for one 4 KiB B+tree page.
func evictPageCache(tb testing.TB, dir string) bool {
	tb.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		// Dirty pages are not dropped: write them first.
		if err := f.Sync(); err != nil {
			return err
		}
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
	if err != nil {
		tb.Fatalf("drop %s from the page cache: %v", dir, err)
	}
	return true
}
