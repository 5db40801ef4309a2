package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Content history (Pad's VER-01..03).
//
// Pad stores a version row as the body BEFORE the update that wrote it
// (a reverse patch), so its diff of an update row runs from that row's
// body to the next newer body. padd stores the body AFTER the change
// (versions.go), so the same diff, the change made by the mutation that
// wrote the row, runs from the previous row's body to this row's. Both
// say "what this edit did"; a create row diffs "" -> its body in both.

// Version-history page sizes (Pad's maxItemVersionsQueryLimit).
const (
	DefaultVersionLimit = 50
	MaxVersionLimit     = 500
)

// VersionDiff is one version with the change it recorded.
type VersionDiff struct {
	Version model.Version
	Before  string
	After   string // this version's body
	// Unified is a line diff of Before -> After with @@ hunks ("" when
	// the body did not change, e.g. a title-only edit).
	Unified string
}

// ListVersions lists an item's versions (archived items included),
// newest first. limit defaults to 50 and is clamped at 500; summary
// leaves out the bodies.
func (s *Views) ListVersions(ws, itemRef string, limit int, summary bool) ([]model.Version, error) {
	limit = records.BoundLimit(limit, DefaultVersionLimit, MaxVersionLimit)
	out := []model.Version{}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		return r.WS.EachReverse(r.WS.Versions().Cursor(), records.MustID(it.ID), nil, func(k, v []byte) (bool, error) {
			ver, err := records.DecodeVersion(r.WS, k, v)
			if err != nil {
				return false, err
			}
			if summary {
				ver.Content = ""
			}
			out = append(out, *ver)
			return len(out) < limit, nil
		})
	})
	return out, err
}

// GetVersion reads one version of an item by version id or version_seq.
func (s *Views) GetVersion(ws, itemRef, versionID string) (*model.Version, error) {
	var out *model.Version
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		out, _, err = records.FindVersion(r.WS, it.ID, versionID)
		return err
	})
	return out, err
}

// DiffVersion is the change a version recorded: "" -> its body for the
// create row, the previous version's body -> its body for any other. A
// non-create row with no predecessor cannot say what it changed: 409
// version_unreconstructable.
func (s *Views) DiffVersion(ws, itemRef, versionID string) (*VersionDiff, error) {
	var out *VersionDiff
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, itemRef, false)
		if err != nil {
			return err
		}
		ver, prev, err := records.FindVersion(r.WS, it.ID, versionID)
		if err != nil {
			return err
		}
		d := &VersionDiff{Version: *ver, After: ver.Content}
		switch {
		case ver.IsCreate:
		case prev != nil:
			d.Before = prev.Content
		default:
			return model.Errorf(model.CodeVersionUnreconstructable,
				"version %s has no earlier version to diff against", ver.ID).
				With("reason", "no_predecessor").With("version", ver.ID)
		}
		c, err := records.GetCollection(r.WS, records.MustID(it.CollectionID))
		if err != nil {
			return err
		}
		name := it.ID
		if c != nil {
			name = records.RefOf(c, it.Number)
		}
		d.Unified = records.UnifiedDiff(d.Before, d.After, name)
		out = d
		return nil
	})
	return out, err
}
