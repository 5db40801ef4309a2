package daemon

import (
	"path/filepath"
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
	m.DatabaseExact = s.store.MappedExactly()
	if s.rss != nil {
		m.TargetBytes, m.Releases = s.rss.target, s.rss.releases.Load()
	}
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
