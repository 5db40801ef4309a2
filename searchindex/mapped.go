package searchindex

import (
	"errors"

	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"

	"github.com/padd/padd/internal/mapped"
)

// ReleaseMapped drops the pages of the index's segment files from padd's
// page tables (internal/mapped). The segments' snapshot is held meanwhile
// (eachSegment), so each mapping stays in place while it is released.
// Segments still in memory (recent writes not yet persisted) are heap,
// not a mapping, and are left alone.
func (x *Index) ReleaseMapped() error {
	if !mapped.Supported {
		return nil
	}
	x.use.RLock()
	defer x.use.RUnlock()
	x.mu.Lock()
	bi := x.bi
	x.mu.Unlock()
	if bi == nil {
		return nil
	}
	var errs []error
	err := eachSegment(bi, func(s segment.Segment) error {
		if seg, ok := s.(*zap.Segment); ok {
			errs = append(errs, mapped.ReleaseBytes(seg.Data()))
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}
