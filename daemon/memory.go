package daemon

import (
	"path/filepath"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/memuse"
	"github.com/padd/padd/searchindex"
)

// memoryUse is padd's resident memory by kind, for its status.
func (s *Server) memoryUse() *api.MemoryUse {
	db := s.store.Path()
	u := memuse.Read(memuse.Files{DB: db, IndexDir: filepath.Join(filepath.Dir(db), searchindex.Dir)})
	if u == nil {
		return nil
	}
	return &api.MemoryUse{OwnBytes: u.Own, HeapBytes: u.Heap, DatabaseBytes: u.Database,
		IndexBytes: u.Index, ProgramBytes: u.Program, PeakBytes: u.Peak}
}
