package storage

import (
	"github.com/padd/padd/model"
)

// SaveReportLayout stores the workspace's report layout, cleaned as Pad
// cleans it (model.CleanReportLayout), and answers what was stored. It
// is a stamped change of the workspace, so the change log and export
// carry it; the workspace keeps its updated_at and no activity entry is
// written, as Pad's save of a layout leaves both alone.
func (s *Store) SaveReportLayout(ws string, in model.ReportLayout, actor model.Actor) (*model.ReportLayout, error) {
	clean, err := model.CleanReportLayout(in)
	if err != nil {
		return nil, err
	}
	err = s.write(ws, actor, func(w *wtx) error {
		rec := w.wsRec
		if _, err := w.stamp(model.EntityWorkspace, model.OpUpdated, rec.ID, "", ""); err != nil {
			return err
		}
		stored := clean
		rec.ReportLayout = &stored
		return putWorkspace(w.tx, rec)
	})
	if err != nil {
		return nil, err
	}
	return &clean, nil
}
