package daemon

import (
	"path/filepath"
	"runtime/metrics"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/searchindex"
)

// memoryUse splits padd's resident memory the way a user reading top's
// RES needs it: padd's own memory, and the pages of its database and
// index files that bbolt and Bleve map from the page cache. Under load
// the mapped pages are most of the figure (a search or a list reads
// items all over the file); they are the system's cache, clean, and
// taken back when something else needs the memory.
func (s *Server) memoryUse() *api.MemoryUse {
	db := s.store.Path()
	m := readMemory(memoryKinds{db: db, index: filepath.Join(filepath.Dir(db), searchindex.Dir)})
	if m == nil {
		return nil
	}
	m.HeapBytes = heapBytes()
	return m
}

// memoryKinds says which mapped file is which.
type memoryKinds struct{ db, index string }

// add counts rss bytes of a mapping of path (empty: anonymous).
func (k memoryKinds) add(m *api.MemoryUse, path string, rss int64) {
	path = strings.TrimSuffix(path, " (deleted)") // an index segment merged away, still mapped
	switch {
	case path == "" || strings.HasPrefix(path, "["): // [heap], [stack], [vdso]: the process's own
		m.OwnBytes += rss
	case path == k.db:
		m.DatabaseBytes += rss
	case strings.HasPrefix(path, k.index+string(filepath.Separator)):
		m.IndexBytes += rss
	default:
		m.ProgramBytes += rss
	}
}

// heapBytes is the Go heap's objects, live and not yet swept: the part of
// padd's own memory its data structures hold.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
