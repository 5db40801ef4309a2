package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// SavedViews lists the saved views of collection coll (slug, alias or
// id) of workspace ws, in their order: Pad's GET .../views. An archived
// or missing collection is not_found, as a write to it is.
func (s *Views) SavedViews(ws, coll string) ([]*model.SavedView, error) {
	var out []*model.SavedView
	err := s.base.Read(ws, func(r *records.Rtx) error {
		c, err := records.FindCollection(r.WS, coll)
		if err != nil {
			return err
		}
		if c == nil || c.ArchivedAt != nil {
			return model.CollectionNotFound(coll)
		}
		out, err = records.SavedViewsOf(r.WS, c.ID)
		return err
	})
	return out, err
}
