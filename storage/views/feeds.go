package views

import (
	"context"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// Head is the workspace's current seq: the last change-log position.
func (s *Views) Head(ws string) (int64, error) {
	return records.ReadHead(s.base, ws)
}

// GlobalHead is the journal's last position (all workspaces).
func (s *Views) GlobalHead() (int64, error) {
	return records.ReadGlobalHead(s.base)
}

// ChangesSince returns the workspace's change log after afterSeq
// (exclusive), ascending, at most limit entries (default
// DefaultChangesLimit, capped at MaxChangesLimit), and the head seq read
// in the same transaction. The next page starts after the last entry.
func (s *Views) ChangesSince(ctx context.Context, ws string, afterSeq int64, limit int) ([]model.Change, int64, error) {
	return records.ChangesSince(ctx, s.base, ws, afterSeq, limit)
}

// JournalSince returns journal entries after afterGlobal (exclusive),
// ascending, at most limit, and the journal head. Entries of purged
// workspaces are skipped, and the walk goes on past them until the page
// is full, so an empty page always means the follower has caught up: it
// may move its cursor to head.
func (s *Views) JournalSince(ctx context.Context, afterGlobal int64, limit int) ([]storage.JournalEntry, int64, error) {
	return records.JournalSince(ctx, s.base, afterGlobal, limit)
}

// ItemsChangedSince answers Pad's /items-changes: items whose latest
// change is after afterSeq, ascending by seq, each once, without bodies,
// archived ones included with Deleted set. limit defaults to 5000 and is
// capped at 50000.
func (s *Views) ItemsChangedSince(ctx context.Context, ws string, afterSeq int64, limit int) (*storage.ItemChanges, error) {
	return records.ItemsChangedSince(ctx, s.base, ws, afterSeq, limit)
}

// ItemsIndex lists the workspace's items for a follower's bootstrap.
// An unknown collection gives an empty list, as Pad's does. Items of
// archived collections count as archived.
func (s *Views) ItemsIndex(ctx context.Context, ws, collection string, includeArchived bool) (*storage.ItemsIndexResult, error) {
	return records.ItemsIndex(ctx, s.base, ws, collection, includeArchived)
}

// ChangesByTime answers Pad's /changes: items updated at or after
// sinceUnixMs (truncated to whole seconds, inclusive), with full bodies,
// archived ones included and their ids in Deleted. A walk's first page
// names since (>= 0); later pages pass NextCursor, with sinceUnixMs < 0
// or equal to the walk's. limit defaults to and is capped at 1000.
//
// Pages are positions in write order (seq): an item changed during a
// walk may appear twice. The walk stops at the head it began with;
// changes after that have times at or after ServerTime and arrive in the
// next walk.
func (s *Views) ChangesByTime(ctx context.Context, ws string, sinceUnixMs int64, cursor string, limit int) (*storage.TimeChanges, error) {
	return records.ChangesByTime(ctx, s.base, ws, sinceUnixMs, cursor, limit)
}

// ItemCount is the number of items (live and archived) in a workspace.
func (s *Views) ItemCount(ws string) (int, error) {
	n := 0
	err := s.base.Read(ws, func(r *records.Rtx) error {
		n = int(records.CountOf(r.WS, []byte{records.KindAll, records.LifeLive}) + records.CountOf(r.WS, []byte{records.KindAll, records.LifeArchived}))
		return nil
	})
	return n, err
}
