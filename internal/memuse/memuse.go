// Package memuse splits this process's resident memory (what top shows as
// RES) the way a user reading it needs: the process's own memory, and the
// pages of its database and index files mapped from the page cache. Under
// load the mapped pages are most of the figure (a search or a list reads
// items all over the file); they are the system's cache, clean, and taken
// back when something else needs the memory.
package memuse

import (
	"path/filepath"
	"runtime/metrics"
	"strings"
)

// Use is resident memory by kind, in bytes.
type Use struct {
	Own      int64 // anonymous: heap, stacks, caches
	Heap     int64 // the Go heap's live and not yet swept objects
	Database int64 // the database file's mapped pages
	Index    int64 // the search index's mapped pages
	Program  int64 // the program's own code and libraries
	Peak     int64 // the highest resident figure so far (0: unknown)
}

// Files says which mapped file is which: the database file and the
// search index's directory.
type Files struct{ DB, IndexDir string }

// Read is this process's memory by kind, nil when the system will not
// say (a locked-down /proc): a status says nothing rather than something
// wrong.
func Read(f Files) *Use {
	u := read(f)
	if u != nil {
		u.Heap = heapBytes()
	}
	return u
}

// add counts rss bytes of a mapping of path (empty: anonymous).
func (f Files) add(u *Use, path string, rss int64) {
	path = strings.TrimSuffix(path, " (deleted)") // an index segment merged away, still mapped
	switch {
	case path == "" || strings.HasPrefix(path, "["): // [heap], [stack], [vdso]: the process's own
		u.Own += rss
	case path == f.DB:
		u.Database += rss
	case strings.HasPrefix(path, f.IndexDir+string(filepath.Separator)):
		u.Index += rss
	default:
		u.Program += rss
	}
}

// heapBytes is the Go heap's objects, live and not yet swept: the part of
// the process's own memory its data structures hold.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
