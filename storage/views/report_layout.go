package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// ReportLayout is the workspace's saved report layout, or the page's
// defaults (nothing hidden, the default window, every collection) when
// none was saved. Its lists are never nil.
func (s *Views) ReportLayout(ws string) (*model.ReportLayout, error) {
	out := &model.ReportLayout{HiddenCards: []string{}, DefaultCollections: []string{}}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		if l := r.WSRec.ReportLayout; l != nil {
			out.DefaultWindow = l.DefaultWindow
			out.HiddenCards = append(out.HiddenCards, l.HiddenCards...)
			out.DefaultCollections = append(out.DefaultCollections, l.DefaultCollections...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
