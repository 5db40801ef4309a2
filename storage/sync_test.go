package storage

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// storage/syncstate keeps the sync bookkeeping and imports storage, so
// storage's own tests of the sync writes (SyncApply, the log under
// them) link, read and keep it through the records both share.

// testLink is a link to a remote the tests never reach.
var testLink = RemoteLink{BaseURL: "http://127.0.0.1:1", RemoteWorkspaceID: "remote-ws", RemoteSlug: "team", TokenName: "team"}

// syncActor is the sync engine writing what it pulled.
var syncActor = model.Actor{Kind: model.ActorUser, Name: "Remote User", Source: model.SourceSync}

// mustSyncLink links ws to testLink, as syncstate's LinkSync does.
func mustSyncLink(t testing.TB, s *Store, ws string) {
	t.Helper()
	l := testLink
	l.State, l.LinkedAt = LinkActive, s.base.Clock().UTC()
	mustSyncWrite(t, s, ws, func(b *records.Wsb) error { return records.PutRemoteLink(b, &l) })
}

// mustSyncWrite runs fn on a live workspace's buckets outside its seq,
// as syncstate's writes do.
func mustSyncWrite(t testing.TB, s *Store, ws string, fn func(b *records.Wsb) error) {
	t.Helper()
	if err := s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return fn(records.OpenWS(tx, rec.ID))
	}); err != nil {
		t.Fatal(err)
	}
}

// mustSyncRead runs fn on a live workspace's buckets in a read.
func mustSyncRead(t testing.TB, s *Store, ws string, fn func(b *records.Wsb) error) {
	t.Helper()
	if err := s.base.Read(ws, func(r *records.Rtx) error { return fn(r.WS) }); err != nil {
		t.Fatal(err)
	}
}

// mustOutbox is the workspace's queued changes, oldest first.
func mustOutbox(t testing.TB, s *Store, ws string) []model.Change {
	t.Helper()
	var out []model.Change
	mustSyncRead(t, s, ws, func(b *records.Wsb) error {
		return b.Outbox().ForEach(func(_, v []byte) error {
			ch, err := records.DecodeChange(v)
			out = append(out, ch)
			return err
		})
	})
	return out
}
