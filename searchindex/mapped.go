package searchindex

import (
	"errors"

	"github.com/blevesearch/bleve/v2/index/scorch"
	zap "github.com/blevesearch/zapx/v17"

	"github.com/padd/padd/internal/mapped"
)

// ReleaseMapped drops the pages of the index's segment files from padd's
// page tables (internal/mapped). It holds a snapshot meanwhile: a
// segment in a snapshot is not closed, so its mapping stays in place.
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
	adv, err := bi.Advanced()
	if err != nil {
		return err
	}
	rd, err := adv.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	var errs []error
	for _, ss := range snap.Segments() {
		if seg, ok := ss.Segment().(*zap.Segment); ok {
			errs = append(errs, mapped.ReleaseBytes(seg.Data()))
		}
	}
	return errors.Join(errs...)
}
