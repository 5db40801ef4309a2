package views

import (
	"github.com/padd/padd/storage/internal/records"
)

// ItemRefByNumber is the ref the workspace's item numbered n carries
// now, whatever its collection (an item's number is the workspace's),
// or "" when no item has that number.
func (s *Views) ItemRefByNumber(ws string, n int64) (string, error) {
	ref := ""
	err := s.base.Read(ws, func(r *records.Rtx) error {
		if n <= 0 {
			return nil
		}
		id := r.WS.Nums().Get(records.U64(uint64(n)))
		if id == nil {
			return nil
		}
		it, err := records.GetItem(r.WS, id, false)
		if err != nil || it == nil {
			return err
		}
		c, err := records.GetCollection(r.WS, records.MustID(it.CollectionID))
		if err != nil || c == nil {
			return err
		}
		ref = records.RefOf(c, it.Number)
		return nil
	})
	return ref, err
}
