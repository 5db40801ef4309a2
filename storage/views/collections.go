package views

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// ListCollections lists a workspace's live collections with counts.
func (s *Views) ListCollections(ws string) ([]storage.CollectionInfo, error) {
	return records.CollectionInfos(s.base, ws, false)
}

// ListArchivedCollections lists archived collections with live item counts.
func (s *Views) ListArchivedCollections(ws string) ([]storage.CollectionInfo, error) {
	return records.CollectionInfos(s.base, ws, true)
}

// GetCollection resolves one collection (exact slug, then alias), with counts.
func (s *Views) GetCollection(ws, ref string) (*storage.CollectionInfo, error) {
	return records.ReadCollectionInfo(s.base, ws, ref, records.LiveCollection)
}

// GetCollectionAnyState is GetCollection that also answers for an
// archived collection (an update or restore reports it back).
func (s *Views) GetCollectionAnyState(ws, ref string) (*storage.CollectionInfo, error) {
	return records.ReadCollectionInfo(s.base, ws, ref, records.AnyCollection)
}

// CollectionSchema is a collection's schema (archived too) by id or
// slug: what the sync engine reads of one for each item it moves, with
// none of GetCollection's counts.
func (s *Views) CollectionSchema(ws, ref string) (model.Schema, error) {
	var out model.Schema
	err := s.base.Read(ws, func(r *records.Rtx) error {
		c, err := records.AnyCollection(r.WS, ref)
		if err == nil {
			out = c.Schema
		}
		return err
	})
	return out, err
}
