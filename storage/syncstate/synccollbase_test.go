package syncstate

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// A collection's base is kept beside the items' bases, read back whole,
// and gone when the workspace is unlinked.
func TestSyncCollectionBase(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Bases").Slug
	mustSyncLink(t, s, ws)
	it := mustCreate(t, s, ws, "tasks", "a", nil)
	coll := it.CollectionID
	if b, err := Of(s).SyncCollectionBase(ws, coll); err != nil || b != nil {
		t.Fatalf("base before any = %+v, %v", b, err)
	}
	want := storage.SyncCollectionBase{CollectionID: coll, Icon: "✓",
		Schema:          model.Schema{Fields: []model.FieldDef{{Key: "status", Label: "Status", Type: "select", Options: []string{"open", "blocked"}}}},
		Settings:        model.Settings{DefaultView: "board"},
		RemoteUpdatedAt: "2026-12-07T12:48:01.937883487Z"}
	apply := func(b storage.SyncCollectionBase) error {
		return s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error { return tx.SetCollectionBase(b) })
	}
	if err := apply(want); err != nil {
		t.Fatal(err)
	}
	// An item's base under the same bucket is apart from it.
	if err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error {
		return tx.SetBase(storage.SyncBase{ItemID: it.ID, Title: "a", CollectionID: coll})
	}); err != nil {
		t.Fatal(err)
	}
	got, err := Of(s).SyncCollectionBase(ws, coll)
	if err != nil || got == nil || got.Icon != "✓" || got.RemoteUpdatedAt != want.RemoteUpdatedAt || got.Settings.DefaultView != "board" ||
		len(got.Schema.Fields) != 1 || len(got.Schema.Fields[0].Options) != 2 || got.CollectionID != coll {
		t.Fatalf("base = %+v, %v; want %+v", got, err, want)
	}
	if err := apply(storage.SyncCollectionBase{CollectionID: it.ID}); !model.IsNotFound(err) {
		t.Errorf("a base for an item's id as a collection: %v, want not found", err)
	}
	if err := apply(storage.SyncCollectionBase{CollectionID: "tasks"}); err == nil {
		t.Error("a base for a collection named by slug was taken")
	}
	if err := Of(s).UnlinkSync(ws); err != nil {
		t.Fatal(err)
	}
	if b, err := Of(s).SyncCollectionBase(ws, coll); err != nil || b != nil {
		t.Errorf("base after unlink = %+v, %v", b, err)
	}
}
