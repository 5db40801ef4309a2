package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// SetWorkspaceContext replaces workspace ws's context (Pad's `pad
// workspace context set`); an empty one is kept as empty, as Pad keeps
// it. A context equal to the one kept writes nothing.
func (s *Store) SetWorkspaceContext(ws string, c *model.WorkspaceContext, actor model.Actor) (*model.Workspace, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	var out *model.Workspace
	err := s.write(ws, actor, func(w *wtx) error {
		rec := w.wsRec
		out = rec
		if sameContext(rec.Context, c) {
			return nil
		}
		rec.Context = c
		rec.UpdatedAt = records.Tstamp(w.now)
		seq, err := w.stamp(model.EntityWorkspace, model.OpUpdated, rec.ID, "", "")
		if err != nil {
			return err
		}
		if err := putWorkspace(w.tx, rec); err != nil {
			return err
		}
		rec.Seq = seq
		return w.activity(seq, "", "workspace_updated", map[string]any{"seq": seq, "changed": "context"})
	})
	return out, err
}

func sameContext(a, b *model.WorkspaceContext) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	ja, err1 := records.Encode(a)
	jb, err2 := records.Encode(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
