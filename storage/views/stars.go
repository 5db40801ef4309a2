package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// StarredIDs lists the ids of every starred item, archived ones too.
func (s *Views) StarredIDs(ws string) ([]string, error) {
	var out []string
	err := s.base.Read(ws, func(r *records.Rtx) error {
		return r.WS.Stars().ForEach(func(k, _ []byte) error {
			out = append(out, records.IDString(k))
			return nil
		})
	})
	return out, err
}

// IsStarred reports whether an item (archived ones too) is starred.
func (s *Views) IsStarred(ws, itemRef string) (bool, error) {
	var out bool
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		out = r.WS.Stars().Get(records.MustID(it.ID)) != nil
		return nil
	})
	return out, err
}

// Starred lists starred items, most recently starred first. Archived
// items (or items of archived collections) are left out, and so are
// items in a terminal state unless IncludeTerminal.
func (s *Views) Starred(ws string, p storage.StarredParams) (*storage.StarredResult, error) {
	return records.ReadStarred(s.base, ws, p)
}
